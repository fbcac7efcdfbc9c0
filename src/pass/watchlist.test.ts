import { describe, expect, it } from 'vitest';
import { algorithm, pod, policy } from '../../test/scaling/support.js';
import type { DesiredState } from '../plan/desired-state.js';
import type { ScalingDecision } from '../scaling/types.js';
import { createScalingMemo, rememberedScaling } from '../scaling/scaling-memo.js';
import { watchlistOf } from './watchlist.js';
import type { World } from './world.js';

const decision = (name: string, from: number, to: number, reason = 'WithinRange'): ScalingDecision =>
  ({
    algorithm: name,
    action: to === from ? 'hold' : 'scale-up',
    replicas: { from, to },
    reason,
  }) as ScalingDecision;
const world = (mode: 'patch' | 'pull-request', engine: 'gpuops' | 'hpa' = 'gpuops'): World =>
  ({
    repo: {
      policy: policy({ mode, engine, sizing: 'headroom' }),
      algorithms: [algorithm({ name: 'a' }), algorithm({ name: 'b' })],
    },
    snapshot: {
      pods: [
        pod('a-0', { algorithm: 'a' }),
        pod('a-1', { algorithm: 'a', ready: false }),
        pod('a-2', { algorithm: 'a', terminating: true }),
        pod('a-job', { algorithm: 'a', owner: { kind: 'Job', name: 'bench' } }),
        pod('b-0', { algorithm: 'b', managed: false }),
      ],
      nodes: [],
      replicaSets: [],
    },
  }) as unknown as World;
const desired = (...scaling: ScalingDecision[]) => ({ output: { scaling } }) as unknown as DesiredState;

describe('watchlistOf', () => {
  it('patch mode watches the replicas after the pass; only Ready, live, managed, non-Job pods', () => {
    const w = watchlistOf(world('patch'), desired(decision('a', 2, 3), decision('b', 1, 1)));
    expect(w.metric).toBe('DCGM_FI_DEV_GPU_UTIL');
    expect(w.namespaces).toEqual(['algorithms']);
    expect(w.algorithms.map((a) => [a.name, a.view.replicas, a.view.sizing, a.pods.join(',')])).toEqual([
      ['a', 3, 'headroom', 'a-0'],
      ['b', 1, 'headroom', ''],
    ]);
    expect(w.algorithms[0]!.heldUntilMs).toBe(Infinity);
    // The trigger judges series as the pass does: against every pod of the snapshot, owners included.
    expect(w.judge.pods.map((p) => p.name)).toEqual(['a-0', 'a-1', 'a-2', 'a-job', 'b-0']);
    expect(w.judge.podIndex?.has('algorithms/a-0')).toBe(true);
    expect(
      w.judge.deploymentOf(pod('a-job', { algorithm: 'a', owner: { kind: 'Job', name: 'bench' } })),
    ).toBe(null);
  });
  it('pull-request mode keeps the replicas until the merge', () => {
    expect(
      watchlistOf(world('pull-request'), desired(decision('a', 2, 3))).algorithms[0]!.view.replicas,
    ).toBe(2);
  });
  it('nothing placed yet, or the HPA owning replicas: nothing to watch', () => {
    expect(watchlistOf(world('patch'), desired(decision('a', 0, 0, 'PlacementPending'))).algorithms).toEqual(
      [],
    );
    expect(watchlistOf(world('patch', 'hpa'), desired(decision('a', 2, 3))).algorithms).toEqual([]);
  });
  // The reconciler passes the indexes its scaling step built over the same arrays: the judge
  // builds none again (a hit), builds them on arrays it has not seen (a miss), and judges the same.
  it.each([
    ['a hit: the scaling step indexed these arrays', true],
    ['a miss: new arrays', false],
  ])('remembered indexes, %s: the same watchlist as built afresh', (_, hit) => {
    const w = world('patch');
    const d = desired(decision('a', 2, 3), decision('b', 1, 1));
    const lookups = rememberedScaling(createScalingMemo());
    const built = hit ? lookups.podIndex(w.snapshot.pods) : undefined;
    const remembered = watchlistOf(w, d, undefined, lookups);
    const fresh = watchlistOf(w, d);
    const { judge, ...rest } = remembered;
    const { judge: freshJudge, ...freshRest } = fresh;
    expect(rest).toEqual(freshRest);
    expect(judge.podIndex).toEqual(freshJudge.podIndex);
    expect(judge.sharedNodes).toEqual(freshJudge.sharedNodes);
    for (const p of w.snapshot.pods) expect(judge.deploymentOf(p)).toEqual(freshJudge.deploymentOf(p));
    // The index is the one the memo holds, built once for these pods.
    expect(judge.podIndex).toBe(lookups.podIndex(w.snapshot.pods));
    if (built) expect(judge.podIndex).toBe(built);
  });
});
