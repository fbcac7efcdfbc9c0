/**
 * Free whole GPUs (`src/pools/capacity.ts`) as a table: whole GPUs, and GPUs shared by
 * time-slicing, where a physical GPU is free only while none of its replicas is requested.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, Snapshot } from '../../src/cluster/types.js';
import { freeGpus, freeWholeGpus, nodeCapacities, poolCapacity } from '../../src/pools/capacity.js';
import type { PoolAssignment } from '../../src/pools/types.js';

/** 2 physical GPUs advertised 4 times each by the device plugin's time-slicing (8 `nvidia.com/gpu`). */
const TIME_SLICED = {
  'nvidia.com/gpu.product': 'Tesla-T4-SHARED',
  'nvidia.com/gpu.count': '2',
  'nvidia.com/gpu.replicas': '4',
  'nvidia.com/gpu.sharing-strategy': 'time-slicing',
};

function node(name: string, over: Partial<NodeInfo> = {}): NodeInfo {
  return {
    name,
    labels: {},
    ready: true,
    cordoned: false,
    schedulable: true,
    gpuProduct: 'Tesla-T4',
    gpuCapacity: 8,
    gpuAllocatable: 8,
    migAllocatable: 0,
    gpuRequested: 0,
    foreignGpuRequested: 0,
    managedPods: 0,
    pool: null,
    taints: [],
    ...over,
  };
}

describe('freeWholeGpus', () => {
  it.each<[string, Record<string, string>, number, number]>([
    ['whole GPUs, none requested', {}, 0, 8],
    ['whole GPUs, 3 requested', {}, 3, 5],
    ['whole GPUs, all requested', {}, 8, 0],
    ['whole GPUs, more requested than allocatable (never below 0)', {}, 9, 0],
    ['time-sliced, none requested: both physical GPUs', TIME_SLICED, 0, 2],
    ['time-sliced, 1 replica requested: that GPU is taken', TIME_SLICED, 1, 1],
    ['time-sliced, 4 replicas requested (one GPU packed)', TIME_SLICED, 4, 1],
    ['time-sliced, 5 replicas requested: both GPUs taken', TIME_SLICED, 5, 0],
    ['time-sliced, 12 replicas requested (never below 0)', TIME_SLICED, 12, 0],
  ])('%s', (_name, labels, requested, want) => {
    expect(freeWholeGpus({ labels, gpuAllocatable: 8 }, requested)).toBe(want);
  });
});

describe('freeGpus', () => {
  it.each<[string, Partial<NodeInfo>, number]>([
    ['healthy, 2 of 8 requested', { gpuRequested: 2 }, 6],
    ['NotReady offers nothing', { ready: false, gpuRequested: 2 }, 0],
    ['tainted offers nothing', { schedulable: false }, 0],
    ['time-sliced, 3 replicas requested', { labels: TIME_SLICED, gpuRequested: 3 }, 1],
  ])('%s', (_name, over, want) => {
    expect(freeGpus(node('n', over))).toBe(want);
  });
});

describe('nodeCapacities and poolCapacity', () => {
  const snap: Snapshot = {
    takenAt: '2026-12-01T10:00:00Z',
    pods: [],
    nodes: [
      node('a', { pool: 'unused', gpuRequested: 1 }),
      node('b', { labels: TIME_SLICED, gpuRequested: 2 }),
      node('c', { gpuProduct: null, gpuCapacity: 0, gpuAllocatable: 0 }),
    ],
  };
  const assignments: PoolAssignment[] = [
    { node: 'b', from: null, to: 'unused', reason: 'Unused', message: '' },
    { node: 'c', from: null, to: null, reason: 'NoGPU', message: '' },
  ];

  it('desired pool from the assignment, else the current one; shared GPUs count per physical GPU', () => {
    expect(nodeCapacities(snap, assignments)).toEqual([
      { node: 'a', pool: 'unused', gpuProduct: 'Tesla-T4', allocatable: 8, used: 1, free: 7 },
      { node: 'b', pool: 'unused', gpuProduct: 'Tesla-T4', allocatable: 2, used: 2, free: 1 },
      { node: 'c', pool: null, gpuProduct: null, allocatable: 0, used: 0, free: 0 },
    ]);
  });

  it('groups by pool, every pool present, nodes without a pool left out', () => {
    const cap = poolCapacity(snap, assignments);
    expect(Object.fromEntries(Object.entries(cap).map(([p, cs]) => [p, cs.map((c) => c.node)]))).toEqual({
      test: [],
      unused: ['a', 'b'],
      'long-task': [],
      'short-task': [],
    });
  });
});
