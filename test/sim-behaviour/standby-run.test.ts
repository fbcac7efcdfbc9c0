/**
 * A reconcile pass claims a standby by itself: on the simulated cluster over HTTP, with
 * the standby set merged and two Ready standbys running, a load step on
 * `bert` makes the pass decide 1 → 2 and claim one standby through the composed adapter (one wake
 * call, then the label patch): the claimed pod is a Ready endpoint of bert's Service without the
 * simulated clock moving (no cold start), and the standby ReplicaSet backfills one that turns Ready
 * only after the 30 s cold start. The claimed pod is bert's replica (docs/standby.md, "Claims and
 * Git"): Git keeps bert's 1 replica, the scale-up pull request an earlier pass opened (1 → 2 in
 * Git) is closed as superseded, and the next pass decides from 2, claiming the backfilled standby
 * for 2 → 3. When the claimed pods vanish, the next pass's `from` is Git's 1 again; with the standby
 * set gone from the policy, a pass that scales bert up sends nothing: no wake, no patch, and the
 * Deployment takes the scale-up (1 → 2 in Git).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPassResult } from '../../src/cli/commands/reconcile.js';
import type { Harness } from '../support/reconcile-harness.js';
import {
  isReady,
  runStandbys,
  STANDBY_POLICY,
  startStandbyHarness,
  startWakeRuntime,
  type WakeRuntime,
} from '../support/standby-policy.js';

/** The wake calls of the serving runtime, as `METHOD path body`. */
const wakes: string[] = [];
let runtime: WakeRuntime | undefined;

let h: Harness;
const SCALE = 'gpuops/prod/scale/bert';
const DEPLOYMENT = 'clusters/prod/algorithms/bert/deployment.yaml';
/** The state of bert's scale pull request, as the store records it (undefined: none). */
const scalePr = async () => (await h.store.pullRequests('prod')).find((p) => p.branch === SCALE);
const pods = () => h.sim.store.list('pods', 'algorithms').filter((p) => !p.metadata.deletionTimestamp);
const standbys = () => pods().filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
const claimed = () => pods().filter((p) => p.metadata.labels?.['gpuops.dev/claimed-from'] === 'llm');
const endpoints = () => {
  const slice = h.sim.store
    .list('endpointslices', 'algorithms')
    .find((e) => e.metadata.labels?.['kubernetes.io/service-name'] === 'bert');
  return ((slice?.endpoints ?? []) as { targetRef: { name: string }; conditions: { ready: boolean } }[])
    .map((e) => `${e.targetRef.name} ${e.conditions.ready ? 'ready' : 'not ready'}`)
    .sort();
};

beforeAll(async () => {
  runtime = await startWakeRuntime((method, url, body) => wakes.push(`${method} ${url} ${body}`));
  const { port } = runtime;
  ({ h } = await startStandbyHarness({
    // The simulated clock moves only when the test advances it: "no time passed" is exact.
    speed: 1e-6,
    standbyPods: { address: () => `127.0.0.1:${port}` },
  }));
  // Two Ready standbys; bert back within the band, holding at 1 until the load step.
  await runStandbys(h);
  await h.settle();
}, 180_000);
afterAll(async () => {
  await h?.close();
  await runtime?.close();
});

describe('a pass claims a Ready standby by itself', () => {
  it('starts with two Ready standbys, no claim and one endpoint (bert its own replica)', () => {
    expect(standbys().map(isReady)).toEqual([true, true]);
    expect(claimed()).toEqual([]);
    expect(endpoints()).toHaveLength(1);
  });

  it('a load step: the pass scales bert 1 → 2 and claims one standby, a Ready endpoint with no time passed; the backfill comes cold', async () => {
    // The pass that sized the standby set at 100 % scaled bert 1 → 2 in Git too, never merged.
    expect(await scalePr()).toMatchObject({
      state: 'open',
      title: 'gpuops(prod): scale bert from 1 to 2 replicas',
    });
    h.load.setLoad('bert', 100);
    const t0 = h.sim.clock.now().getTime();
    const hot = await h.pass();
    await h.settle();
    expect(hot.plan.scaling.find((d) => d.algorithm === 'bert')).toMatchObject({
      action: 'scale-up',
      replicas: { from: 1, to: 2 },
      standby: { set: 'llm', claimed: 0, claim: 1, giveBack: 0, deployment: 0 },
    });
    // The claim carries the whole scale-up: Git keeps 1 replica, and the open 1 → 2 would overshoot.
    expect(hot.plan.files.map((f) => f.path)).not.toContain(DEPLOYMENT);
    expect(await scalePr()).toMatchObject({ state: 'closed' });
    expect(h.file('main', DEPLOYMENT)).toContain('replicas: 1\n');
    const [pod] = claimed().map((p) => p.metadata.name);
    expect(hot.standby).toEqual([
      {
        kind: 'claim',
        set: 'llm',
        algorithm: 'bert',
        namespace: 'algorithms',
        pod,
        ok: true,
        message: `pod algorithms/${pod}: claimed by bert`,
      },
    ]);
    expect(wakes).toEqual(['POST /wake {"algorithm":"bert"}']);
    expect(h.logs.some((l) => l.msg === `pod algorithms/${pod}: claimed by bert`)).toBe(true);
    // The pass's summary line counts it, and `gpuops reconcile` prints it.
    expect(h.logs.filter((l) => l.msg === 'reconcile pass').at(-1)).toMatchObject({
      standby: { claimed: 1, givenBack: 0, deleted: 0, refused: 0 },
    });
    expect(formatPassResult(hot, false)).toContain(
      `standby pods:\n  claimed    algorithms/${pod} → bert (set llm)\n`,
    );
    // Ready in the Service beside bert's own replica, while the simulated clock stood still.
    expect(endpoints()).toHaveLength(2);
    expect(endpoints()).toContain(`${pod} ready`);
    expect(endpoints().every((e) => e.endsWith(' ready'))).toBe(true);
    expect(h.sim.clock.now().getTime() - t0).toBeLessThan(1000);
    // The standby ReplicaSet released it and backfills a new standby, Ready only after the cold start.
    expect(standbys().map(isReady).sort()).toEqual([false, true]);
    h.sim.clock.advance(30);
    await h.settle();
    expect(standbys().map(isReady)).toEqual([true, true]);
  });

  it("the next pass counts the claimed pod as bert's replica: both busy, 2 → 3 claims the backfill", async () => {
    // Both serving pods busy (the claimed pod's GPU is a sample of bert): 2 Ready pods at 100 %.
    h.load.setLoad('bert', 200);
    const again = await h.pass();
    await h.settle();
    expect(again.plan.scaling.find((x) => x.algorithm === 'bert')).toMatchObject({
      action: 'scale-up',
      replicas: { from: 2, to: 3 },
      utilization: 100,
      standby: { set: 'llm', claimed: 1, claim: 1, giveBack: 0, deployment: 0 },
    });
    expect(again.standby!.map((o) => `${o.kind} ${o.ok}`)).toEqual(['claim true']);
    expect(claimed()).toHaveLength(2);
    expect(wakes).toHaveLength(2);
    expect(endpoints()).toHaveLength(3);
    // Git's 1 replica + 2 claimed pods = 3; no scale pull request.
    expect(again.plan.files.map((f) => f.path)).not.toContain(DEPLOYMENT);
    expect(await scalePr()).toMatchObject({ state: 'closed' });
  });

  it('without standby sets in the policy a scale-up sends nothing: no wake, no label patch', async () => {
    // Its claims gone (the pods deleted by someone): the next pass's `from` is Git's 1 again, and
    // bert's scale-up 1 → 2 would claim a standby again with the set (both backfills Ready).
    for (const p of claimed()) h.sim.store.delete('pods', 'algorithms', p.metadata.name);
    h.sim.clock.advance(30);
    await h.settle();
    h.push({ 'policies/standby.yaml': STANDBY_POLICY.replace(/ {2}standby:[\s\S]*$/, '') });

    const before = pods().map((p) => `${p.metadata.name} ${p.metadata.resourceVersion}`);
    const pass = await h.pass();
    await h.settle();
    const d = pass.plan.scaling.find((x) => x.algorithm === 'bert')!;
    expect(d).toMatchObject({ action: 'scale-up', replicas: { from: 1, to: 2 } });
    expect(d.standby).toBeUndefined();
    // The Deployment takes the whole scale-up: 1 → 2 in Git.
    expect(pass.plan.files.find((f) => f.path === DEPLOYMENT)?.change).toBe('update');
    expect(claimed()).toEqual([]);
    expect(standbys().filter(isReady)).toHaveLength(2);
    expect(pass.standby).toEqual([]);
    expect(wakes).toHaveLength(2);
    expect(pods().map((p) => `${p.metadata.name} ${p.metadata.resourceVersion}`)).toEqual(before);
  });
});
