/**
 * The pass plans a policy's standby set into Git: against the simulated cluster over HTTP and a
 * real GitOps repo, `bert` (1 GPU, pinned to short-task) runs one pod at 100 %; the pass opens
 * `gpuops/prod/standby/llm` with the standby Deployment sized ceil(1 × √1 / 0.8) = 2 (before any
 * reading, none), and once a person merges it and Argo CD syncs, the simulated cluster runs two
 * Ready standbys.
 * A second pass at the same load proposes nothing more.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStandbyPods } from '../../src/cluster/standby-pods.js';
import { standbyActions } from '../../src/scaling/rules/claim-actions.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import type { Harness } from '../support/reconcile-harness.js';
import {
  BERT_SERVICE,
  isReady,
  STANDBY_SET,
  startStandbyHarness,
  startWakeRuntime,
  type WakeRuntime,
} from '../support/standby-policy.js';

const BRANCH = 'gpuops/prod/standby/llm';
const FILE = 'clusters/prod/standby/llm/deployment.yaml';

let h: Harness;
let noData: PassResult;
let sized: PassResult;
beforeAll(async () => {
  // No reading yet: a set Git does not hold waits for one (no data is no size).
  ({ h, first: noData } = await startStandbyHarness());
  h.load.setLoad('bert', 100);
  sized = await h.pass();
}, 180_000);
afterAll(async () => {
  await h?.close();
  await runtime?.close();
});

/** The set the policy declares, as parsed. */
const SET = STANDBY_SET;

/** The serving runtime's wake endpoint, for every standby pod, and the calls it took. */
let runtime: WakeRuntime | undefined;
const wakes: { url: string; body: string }[] = [];
async function startRuntime(): Promise<number> {
  runtime = await startWakeRuntime((method, url, body) => wakes.push({ url: `${method} ${url}`, body }));
  return runtime.port;
}

describe('a pass plans the standby set into Git', () => {
  it('opens the standby pull request with the Deployment sized to the pool spare', async () => {
    expect(noData.writeBack.map((r) => r.branch)).not.toContain(BRANCH);
    expect(sized.writeBack.find((r) => r.branch === BRANCH)).toMatchObject({ action: 'created' });
    const d = parse(h.file(BRANCH, FILE)!);
    expect(d.metadata).toMatchObject({ name: 'gpuops-standby-llm', namespace: 'algorithms' });
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.template.spec.nodeSelector).toEqual({ 'gpuops.dev/pool': 'short-task' });
    expect(h.file('main', FILE)).toBeNull();
    const pr = (await h.store.pullRequests('prod')).find((r) => r.branch === BRANCH)!;
    expect(pr.title).toBe('gpuops(prod): keep 2 standby pods of set llm on short-task');
    expect(pr.body).toContain('ceil(1 × √1 / (1 × 80 %)) = 2 pods');
  });

  it('merged and synced, the simulated cluster runs two Ready standbys; the next pass proposes nothing', async () => {
    h.merge(BRANCH);
    await h.sync();
    h.sim.clock.advance(60);
    await h.settle();
    const standbys = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
    const ready = standbys.filter(isReady);
    expect(ready).toHaveLength(2);
    const again = await h.pass();
    expect(again.writeBack.filter((r) => r.branch === BRANCH)).toEqual([]);
  });

  it('a scale-up of bert 1 → 2 claims a Ready standby: woken, then a Ready endpoint of its Service at once; the standby set backfills cold', async () => {
    h.sim.store.create('services', BERT_SERVICE);
    h.load.setLoad('bert', 100);
    const hot = await h.pass();
    const d = hot.plan.scaling.find((x) => x.algorithm === 'bert')!;
    expect(d).toMatchObject({ action: 'scale-up', replicas: { from: 1, to: 2 } });
    const actions = standbyActions(hot.plan.scaling, [SET], hot.snapshot);
    expect(actions.map((a) => [a.kind, a.algorithm])).toEqual([['claim', 'bert']]);
    const port = await startRuntime();
    const pods = createStandbyPods(h.gpuopsKc, { address: () => `127.0.0.1:${port}` });
    const t0 = h.sim.clock.now().getTime();
    const results = await pods.apply(actions);
    await h.settle();
    expect(results.map((r) => r.ok)).toEqual([true]);
    expect(wakes).toEqual([{ url: 'POST /wake', body: '{"algorithm":"bert"}' }]);
    const slice = h.sim.store
      .list('endpointslices', 'algorithms')
      .find((e) => e.metadata.labels?.['kubernetes.io/service-name'] === 'bert')!;
    const endpoints = (slice.endpoints ?? []) as {
      targetRef: { name: string };
      conditions: { ready: boolean };
    }[];
    // bert's own replica and the claimed pod, both Ready.
    const own = h.sim.store
      .list('pods', 'algorithms')
      .filter(
        (p) =>
          p.metadata.labels?.['gpuops.dev/algorithm'] === 'bert' &&
          !p.metadata.labels['gpuops.dev/claimed-from'],
      )
      .map((p) => p.metadata.name);
    expect(own).toHaveLength(1);
    expect(endpoints.map((e) => [e.targetRef.name, e.conditions.ready]).sort()).toEqual(
      [...own, actions[0]!.pod].map((n) => [n, true]).sort(),
    );
    // Within seconds of the decision (simulated time at real speed: the API round trips alone).
    expect(h.sim.clock.now().getTime() - t0).toBeLessThan(5000);
    // Released by the standby ReplicaSet, which creates a new standby (still starting) beside the other.
    for (const a of actions)
      expect(h.sim.store.get('pods', 'algorithms', a.pod)!.metadata.ownerReferences ?? []).toEqual([]);
    const standbys = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
    expect(standbys).toHaveLength(2);
    expect(standbys.map(isReady).sort()).toEqual([false, true]);
    h.sim.clock.advance(30);
    await h.settle();
    const later = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm');
    expect(later.map(isReady)).toEqual([true, true]);
  });

  it('a scale-down gives the claimed pod back: the standby ReplicaSet adopts it and deletes its surplus; the endpoint goes', async () => {
    const seen = await h.pass();
    const claimedPod = seen.snapshot.pods.find((p) => p.labels['gpuops.dev/claimed-from'] === 'llm')!;
    expect(claimedPod).toBeDefined();
    // The decision as it reads once claimed pods count: bert's 2 replicas (1 its own, 1 claimed) to 1.
    const down = {
      ...seen.plan.scaling.find((x) => x.algorithm === 'bert')!,
      action: 'scale-down' as const,
      replicas: { from: 2, to: 1 },
    };
    const actions = standbyActions([down], [SET], seen.snapshot);
    expect(actions.map((a) => [a.kind, a.pod])).toEqual([['give-back', claimedPod.name]]);
    const results = await createStandbyPods(h.gpuopsKc).apply(actions);
    await h.settle();
    expect(results.map((r) => [r.ok, r.message])).toEqual([
      [true, `pod algorithms/${claimedPod.name}: given back by bert`],
    ]);
    const back = h.sim.store.get('pods', 'algorithms', claimedPod.name)!;
    expect(back.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    expect(back.metadata.labels?.['gpuops.dev/standby']).toBe('llm');
    const standbys = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => p.metadata.labels?.['gpuops.dev/standby'] === 'llm' && !p.metadata.deletionTimestamp);
    expect(standbys).toHaveLength(2);
    const slice = h.sim.store
      .list('endpointslices', 'algorithms')
      .find((e) => e.metadata.labels?.['kubernetes.io/service-name'] === 'bert')!;
    expect(
      ((slice.endpoints ?? []) as { targetRef: { name: string } }[]).map((e) => e.targetRef.name),
    ).not.toContain(claimedPod.name);
    // The pass saw it claimed; now it is a standby again: a stale give-back is refused, nothing changes.
    const again = await createStandbyPods(h.gpuopsKc).apply(actions);
    expect(again[0]).toMatchObject({ ok: false });
    expect(again[0]!.message).toContain('changed since the pass read it (gpuops.dev/claimed-from)');
    // A pod of that name that is another object (another uid) is left alone too.
    const other = await createStandbyPods(h.gpuopsKc).apply([{ ...actions[0]!, uid: 'another-uid' }]);
    expect(other[0]).toMatchObject({ ok: false });
    expect(other[0]!.message).toContain('changed since the pass read it (uid)');
  });
});
