/**
 * `gpuops run`'s pass decides an algorithm of a standby set under the claim's windows while a
 * standby of its set is Ready (`claimPolicy`, docs/standby.md), end to end on the simulated
 * cluster over HTTP: the loop's delays as `gpuops run` gives them (a 5 s signal and reaction),
 * bert's replicas Ready 30 s after creation (the cold start), so D = 40 s and the loop's
 * scale-down windows would be 2.5·D = 100 s and D + 5 = 45 s; with a Ready standby they are the
 * policy's 300 s. A load step claims a standby for bert (1 → 2); the load then falls below the
 * band. 120 s after the claim, with the backfilled standbys Ready, the pass holds (the cooldown
 * of 300 s), where the loop's windows would have scaled down; 299 s after it still holds; 300 s
 * after it scales down, giving the claimed pod back.
 *
 * The standby set's size is held for the policy's 300 s too (`standbyHoldSeconds`, as the
 * replay's standby fleet holds it), not for the 100 s a loop-sized window with the standbys' own
 * 30 s start-up would give: the pass of the claim asked 2 standbys (ΣL 1 GPU), every pass after it
 * 1 (ΣL 0.2), so the set shrinks 2 → 1 at the first pass whose window no longer reaches back to the
 * claim's: 420 s after it (the window opens at the pass 120 s after), not 419 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../support/reconcile-harness.js';
import {
  isReady,
  runStandbys,
  startStandbyHarness,
  startWakeRuntime,
  type WakeRuntime,
} from '../support/standby-policy.js';

let runtime: WakeRuntime | undefined;
let h: Harness;
/** The simulated time (ms) just before the pass that claims a standby for bert. */
let t0 = 0;

const pods = () => h.sim.store.list('pods', 'algorithms').filter((p) => !p.metadata.deletionTimestamp);
const standbys = () => pods().filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
const claimed = () => pods().filter((p) => p.metadata.labels?.['gpuops.dev/claimed-from'] === 'llm');
/** Moves the simulated clock to `seconds` after {@link t0}. */
const at = async (seconds: number) => {
  h.sim.clock.advance((t0 + seconds * 1000 - h.sim.clock.now().getTime()) / 1000);
  await h.settle();
};
const STANDBY_FILE = 'clusters/prod/standby/llm/deployment.yaml';
/** One pass; bert's decision as `action reason from→to`, its standby part, and the files the pass plans. */
const bert = async () => {
  const r = await h.pass();
  await h.settle();
  const d = r.plan.scaling.find((x) => x.algorithm === 'bert')!;
  const files = r.plan.files.map((f) => f.path);
  return { line: `${d.action} ${d.reason} ${d.replicas.from}→${d.replicas.to}`, standby: d.standby, files };
};

beforeAll(async () => {
  runtime = await startWakeRuntime(() => {});
  const { port } = runtime;
  ({ h } = await startStandbyHarness({ speed: 1e-6, standbyPods: { address: () => `127.0.0.1:${port}` } }));
  // As `gpuops run` composes it: the windows follow the loop's delays.
  h.deps.loop = { sampleSeconds: 5, reactionSeconds: 5 };
  await runStandbys(h);
  h.sim.clock.advance(60);
  await h.settle();
}, 180_000);
afterAll(async () => {
  await h?.close();
  await runtime?.close();
});

describe('gpuops run: the claim’s scale-down windows while a standby is Ready', () => {
  it('a load step claims a standby for bert (1 → 2); the backfill is Ready after the cold start', async () => {
    expect(standbys().map(isReady)).toEqual([true, true]);
    h.load.setLoad('bert', 100);
    t0 = h.sim.clock.now().getTime();
    const d = await bert();
    expect(d.line).toBe('scale-up AboveMax 1→2');
    expect(d.standby).toMatchObject({ claim: 1, deployment: 0 });
    expect(claimed()).toHaveLength(1);
    // Two pods at 10 %, below min 30: a scale-down is due once the windows let it.
    h.load.setLoad('bert', 20);
    await at(60);
    expect(standbys().map(isReady)).toEqual([true, true]);
  });

  it('120 s after the claim it holds on the policy’s 300 s cooldown (the loop’s 45 s and 100 s are long over)', async () => {
    await at(120);
    const d = await bert();
    expect(d.line).toBe('hold CooldownActive 2→2');
    // The set keeps its 2 standbys: no change to its file.
    expect(d.files).not.toContain(STANDBY_FILE);
  });

  it('299 s after, still held; 300 s after, the scale-down gives the claimed pod back', async () => {
    await at(299);
    const held = await bert();
    expect(held.line).toBe('hold CooldownActive 2→2');
    expect(held.files).not.toContain(STANDBY_FILE);
    await at(300);
    const d = await bert();
    expect(d.line).toBe('scale-down BelowMin 2→1');
    expect(d.standby).toMatchObject({ claimed: 1, giveBack: 1, deployment: 0 });
  });
});

describe('gpuops run: the standby set’s size is held for the policy’s 300 s, as the replay holds it', () => {
  it('419 s after the claim the set keeps 2; 420 s after, it shrinks to 1', async () => {
    await at(419);
    expect((await bert()).files).not.toContain(STANDBY_FILE);
    await at(420);
    expect((await bert()).files).toContain(STANDBY_FILE);
    expect(h.file('gpuops/prod/standby/llm', STANDBY_FILE)).toContain('replicas: 1\n');
  });
});
