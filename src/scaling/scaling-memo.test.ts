/**
 * The scaling step's memo (`rememberedScaling`, scaling-memo.ts): the owner index, pods per Deployment, the pod index
 * and node capacity are kept while the watch cache hands out the same arrays, and rebuilt, equal
 * to fresh ones, when any array (or node object) changes identity.
 */
import { describe, expect, it } from 'vitest';
import { ownerIndex } from '../cluster/owners.js';
import type { NodeInfo, PodInfo, ReplicaSetInfo } from '../cluster/types.js';
import { pod } from '../../test/scaling/support.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { nodeCapacity } from './capacity.js';
import { plainLookups } from './lookups.js';
import { createScalingMemo, rememberedScaling } from './scaling-memo.js';

const rs = (name: string, deployment: string): ReplicaSetInfo => ({
  namespace: 'algorithms',
  name,
  owner: { kind: 'Deployment', name: deployment },
  revision: 1,
  replicas: 1,
});
const gpuNode = (name: string): NodeInfo =>
  nodeInfo(name, { allocatable: { cpuMillis: 64_000, memoryBytes: 2 ** 39, pods: 110 }, pool: 'long-task' });

/** Pod names per Deployment key: the real content of a `podsByDeployment` answer. */
const names = (m: ReadonlyMap<string, readonly PodInfo[]>): Record<string, string[]> =>
  Object.fromEntries([...m].map(([k, ps]) => [k, ps.map((p) => p.name)]));
const free = (cs: readonly { node: string; freeGpus: number }[]): Record<string, number> =>
  Object.fromEntries(cs.map((c) => [c.node, c.freeGpus]));

const rsA = [rs('a-1', 'alpha'), rs('b-1', 'beta')];
const podsA = [
  pod('a-1-x', { rs: 'a-1', nodeName: 'n1' }),
  pod('b-1-y', { rs: 'b-1', nodeName: 'n1', gpuRequest: 3 }),
];
const n1 = gpuNode('n1');
const nodesA = [n1, gpuNode('n2')];

/** Each case changes one array's identity (same or new content); the memo must rebuild from it. */
const changes: [string, { rs: ReplicaSetInfo[]; pods: PodInfo[]; nodes: NodeInfo[] }][] = [
  [
    'NewReplicaSetsArrayMovesAPod',
    { rs: [rs('a-1', 'beta'), rs('b-1', 'beta')], pods: podsA, nodes: nodesA },
  ],
  [
    'NewPodsArrayAddsAPod',
    { rs: rsA, pods: [...podsA, pod('a-1-z', { rs: 'a-1', nodeName: 'n2', gpuRequest: 2 })], nodes: nodesA },
  ],
  ['NewPodsArrayDropsAPod', { rs: rsA, pods: podsA.slice(1), nodes: nodesA }],
  ['NewNodeObject', { rs: rsA, pods: podsA, nodes: [n1, { ...gpuNode('n2'), gpuAllocatable: 4 }] }],
];

describe('scaling memo: indexes kept by array identity', () => {
  it('returns the very same indexes for the same arrays', () => {
    const m = rememberedScaling(createScalingMemo());
    const owners = m.owners(rsA);
    const byDep = m.podsByDeployment(podsA, owners);
    const index = m.podIndex(podsA);
    const cap = m.capacity({ pods: podsA, nodes: nodesA });
    const layout = m.layout({ pods: podsA, nodes: nodesA }, 'gpuops.dev/pool');
    expect(m.owners(rsA)).toBe(owners);
    expect(m.podsByDeployment(podsA, owners)).toBe(byDep);
    expect(m.podIndex(podsA)).toBe(index);
    expect(m.capacity({ pods: podsA, nodes: [...nodesA] })).toBe(cap);
    expect(m.layout({ pods: podsA, nodes: [...nodesA] }, 'gpuops.dev/pool')).toBe(layout);
    expect(names(byDep)).toEqual({ 'algorithms/alpha': ['a-1-x'], 'algorithms/beta': ['b-1-y'] });
  });

  it.each(changes)('%s: rebuilt, and equal to indexes built fresh', (_, next) => {
    const m = rememberedScaling(createScalingMemo());
    const o0 = m.owners(rsA);
    const d0 = m.podsByDeployment(podsA, o0);
    const i0 = m.podIndex(podsA);
    const c0 = m.capacity({ pods: podsA, nodes: nodesA });

    const o1 = m.owners(next.rs);
    const d1 = m.podsByDeployment(next.pods, o1);
    const i1 = m.podIndex(next.pods);
    const c1 = m.capacity({ pods: next.pods, nodes: next.nodes });

    const fresh = ownerIndex(next.rs);
    const want = names(plainLookups.podsByDeployment(next.pods, fresh));
    expect(names(d1)).toEqual(want);
    expect([...i1.keys()].sort()).toEqual(next.pods.map((p) => `${p.namespace}/${p.name}`).sort());
    expect(free(c1)).toEqual(free(nodeCapacity({ pods: next.pods, nodes: next.nodes })));
    // Each case's new input gives a different answer somewhere: a stale hit would fail above.
    const same = JSON.stringify([names(d0), [...i0.keys()], free(c0)]);
    expect(JSON.stringify([want, [...i1.keys()], free(c1)])).not.toEqual(same);
  });
});
