import { describe, expect, it } from 'vitest';
import type { FilterNode } from '../cluster/scheduling/node-filters.js';
import type { PodAffinityTerm } from '../cluster/scheduling/terms.js';
import type { Pool } from '../definitions/types.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { pod } from '../../test/scaling/support.js';
import { asMember, podLayout } from './pod-layout.js';

const KEY = 'gpuops.dev/pool';
const poolTaint = { key: KEY, value: 'short-task', effect: 'NoSchedule' } as const;
const gpuTaint = { key: 'nvidia.com/gpu', effect: 'NoSchedule' } as const;

describe('asMember: a node as a member of the pool the pass gives it', () => {
  it.each<[string, FilterNode, Pool | null, FilterNode | 'same']>([
    ['no pool: the node as it is', { name: 'n', labels: { [KEY]: 'x' }, taints: [poolTaint] }, null, 'same'],
    [
      'already a member, no pool taint: as it is',
      { name: 'n', labels: { [KEY]: 'short-task' }, taints: [gpuTaint] },
      'short-task',
      'same',
    ],
    [
      'another pool: the label rewritten, the pool taint left out, other taints kept',
      {
        name: 'n',
        labels: { [KEY]: 'training', zone: 'a' },
        taints: [gpuTaint, { ...poolTaint, value: 'training' }],
      },
      'short-task',
      { name: 'n', labels: { [KEY]: 'short-task', zone: 'a' }, taints: [gpuTaint] },
    ],
    [
      'a member still carrying the pool taint: the taint left out',
      { name: 'n', labels: { [KEY]: 'short-task' }, taints: [poolTaint, gpuTaint] },
      'short-task',
      { name: 'n', labels: { [KEY]: 'short-task' }, taints: [gpuTaint] },
    ],
    [
      'no label yet',
      { name: 'n', labels: {}, taints: [] },
      'short-task',
      { name: 'n', labels: { [KEY]: 'short-task' }, taints: [] },
    ],
  ])('%s', (_, node, pool, want) => {
    const before = structuredClone(node);
    const got = asMember(node, KEY, pool);
    if (want === 'same') expect(got).toBe(node);
    else expect(got).toEqual(want);
    expect(node).toEqual(before); // never changed in place
  });
});

describe('podLayout: nodes as members, live bound pods per node, the anti-affine ones', () => {
  const anti: PodAffinityTerm[] = [
    { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'kubernetes.io/hostname' },
  ];
  const snapshot = () => ({
    nodes: [
      nodeInfo('gpu-1', { pool: 'short-task', labels: { [KEY]: 'training' }, taints: [poolTaint] }),
      nodeInfo('gpu-2', { cordoned: true }),
    ],
    pods: [
      pod('a', { nodeName: 'gpu-1' }),
      pod('b', { nodeName: 'gpu-1', terminating: true, antiAffinity: anti }),
      pod('c', { nodeName: 'gpu-2' }),
      pod('done', { nodeName: 'gpu-2', phase: 'Succeeded' }),
      pod('failed', { nodeName: 'gpu-1', phase: 'Failed', antiAffinity: anti }),
      pod('pending', { nodeName: null, phase: 'Pending', antiAffinity: anti }),
    ],
  });

  it('reads the snapshot', () => {
    const l = podLayout(snapshot(), KEY, 'layout-7');
    expect([...l.nodes.values()]).toEqual([
      { name: 'gpu-1', labels: { [KEY]: 'short-task' }, taints: [], unschedulable: false },
      { name: 'gpu-2', labels: {}, taints: [], unschedulable: true },
    ]);
    expect([...l.podsOn].map(([n, ps]) => [n, ps.map((p) => p.name)])).toEqual([
      ['gpu-1', ['a', 'b']],
      ['gpu-2', ['c']],
    ]);
    expect(l.antiAffine.map((p) => p.name)).toEqual(['b']);
    expect(l.token).toBe('layout-7');
  });

  it('without a token: the empty one', () => {
    expect(podLayout(snapshot(), KEY).token).toBe('');
  });
});
