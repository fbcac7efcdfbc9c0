/**
 * Node eligibility (`src/pools/eligibility.ts`) as a table over `NodeInfo`: each reason, its exact
 * message (what `plan` and `status` show a person), and the neighbour across each boundary.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, Taint } from '../../src/cluster/types.js';
import { ineligibility, isHealthy, unhealthyState } from '../../src/pools/eligibility.js';
import { nodeInfo } from '../support/node-info.js';

/** A healthy, idle 8-GPU node without a pool; a row overrides what it needs. */
const node = (over: Partial<NodeInfo> = {}): NodeInfo => nodeInfo('n', over);
const tainted = (...taints: Taint[]): Partial<NodeInfo> => ({ schedulable: false, taints });
const CA_DELETE: Taint = { key: 'ToBeDeletedByClusterAutoscaler', value: '1764583200', effect: 'NoSchedule' };
const CA_CANDIDATE: Taint = {
  key: 'DeletionCandidateOfClusterAutoscaler',
  value: '1764583200',
  effect: 'PreferNoSchedule',
};
const KARPENTER: Taint = { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' };
const UNREACHABLE: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const NOT_READY: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
const DEDICATED: Taint = { key: 'dedicated', value: 'ml', effect: 'NoSchedule' };
const MAINTENANCE: Taint = { key: 'example.com/maintenance', value: '', effect: 'NoExecute' };
const POOL_TAINT: Taint = { key: 'gpuops.dev/pool', value: 'test', effect: 'NoSchedule' };
const GPU_TAINT: Taint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

interface Row {
  name: string;
  node: Partial<NodeInfo>;
  labelKey?: string;
  want: [string, string] | null;
}

const rows: Row[] = [
  { name: 'healthy idle GPU node is eligible', node: {}, want: null },
  {
    name: 'no GPU capacity, allocatable, MIG or product: NoGPU',
    node: { gpuProduct: null, gpuCapacity: 0, gpuAllocatable: 0 },
    want: ['NoGPU', 'no nvidia.com/gpu or amd.com/gpu capacity: not a GPU node'],
  },
  {
    name: 'product label but 0 GPUs: a GPU node whose plugin offers none',
    node: { gpuCapacity: 0, gpuAllocatable: 0 },
    want: [
      'NoAllocatableGPU',
      'nvidia.com/gpu allocatable is 0 (capacity 0): the device plugin offers no GPU',
    ],
  },
  {
    name: 'capacity 1 without product or allocatable: NoAllocatableGPU, not NoGPU',
    node: { gpuProduct: null, gpuCapacity: 1, gpuAllocatable: 0 },
    want: [
      'NoAllocatableGPU',
      'nvidia.com/gpu allocatable is 0 (capacity 1): the device plugin offers no GPU',
    ],
  },
  {
    name: 'allocatable 1 without capacity or product: eligible',
    node: { gpuProduct: null, gpuCapacity: 0, gpuAllocatable: 1 },
    want: null,
  },
  {
    name: 'only MIG slices, no product label: MIGOnly, not NoGPU',
    node: { gpuProduct: null, gpuCapacity: 0, gpuAllocatable: 0, migAllocatable: 1 },
    want: [
      'MIGOnly',
      'GPUs are partitioned by MIG (1 nvidia.com/mig-* slices allocatable, 0 whole GPUs); not a candidate for whole-GPU pools',
    ],
  },
  {
    name: 'MIG slices and 1 whole GPU: eligible',
    node: { gpuAllocatable: 1, migAllocatable: 7 },
    want: null,
  },
  {
    name: 'capacity 4, allocatable 0 (device plugin reports them unhealthy)',
    node: { gpuCapacity: 4, gpuAllocatable: 0 },
    want: [
      'NoAllocatableGPU',
      'nvidia.com/gpu allocatable is 0 (capacity 4): the device plugin offers no GPU',
    ],
  },
  {
    name: 'NotReady comes before cordoned',
    node: { ready: false, cordoned: true, schedulable: false },
    want: ['NotReady', 'the Ready condition is not True'],
  },
  {
    name: 'NotReady while schedulable',
    node: { ready: false },
    want: ['NotReady', 'the Ready condition is not True'],
  },
  {
    name: 'cordoned comes before a leaving taint',
    node: { cordoned: true, ...tainted(CA_DELETE) },
    want: ['Cordoned', 'cordoned (spec.unschedulable)'],
  },
  {
    name: 'Cluster Autoscaler drains it: Leaving',
    node: tainted(CA_DELETE),
    want: [
      'Leaving',
      'on its way out (tainted ToBeDeletedByClusterAutoscaler=1764583200:NoSchedule): offers no capacity',
    ],
  },
  {
    name: 'Cluster Autoscaler deletion candidate (PreferNoSchedule) and Karpenter, both listed; a team taint is not',
    node: tainted(DEDICATED, CA_CANDIDATE, KARPENTER),
    want: [
      'Leaving',
      'on its way out (tainted DeletionCandidateOfClusterAutoscaler=1764583200:PreferNoSchedule, karpenter.sh/disrupted:NoSchedule): offers no capacity',
    ],
  },
  {
    name: 'node lifecycle controller: unreachable',
    node: tainted(UNREACHABLE),
    want: ['Cordoned', 'tainted node.kubernetes.io/unreachable'],
  },
  {
    name: 'lifecycle taint after a team taint: Cordoned by the lifecycle taint',
    node: tainted(DEDICATED, NOT_READY),
    want: ['Cordoned', 'tainted node.kubernetes.io/not-ready'],
  },
  {
    name: 'unschedulable without a blocking taint',
    node: tainted(),
    want: ['Cordoned', 'tainted unschedulable'],
  },
  {
    name: 'only the pool taint and the tolerated GPU taint: neither blocks',
    node: tainted(POOL_TAINT, GPU_TAINT),
    want: ['Cordoned', 'tainted unschedulable'],
  },
  {
    name: 'the pool taint of another label key blocks',
    node: tainted(POOL_TAINT),
    labelKey: 'example.com/pool',
    want: [
      'Tainted',
      "tainted gpuops.dev/pool=test:NoSchedule, which gpuops's pods do not tolerate: offers no capacity",
    ],
  },
  {
    name: 'a team taint: Tainted, every blocking taint listed as kubectl prints it',
    node: tainted(DEDICATED, POOL_TAINT, MAINTENANCE),
    want: [
      'Tainted',
      "tainted dedicated=ml:NoSchedule, example.com/maintenance:NoExecute, which gpuops's pods do not tolerate: offers no capacity",
    ],
  },
  {
    name: 'one GPU held by a foreign pod',
    node: { foreignGpuRequested: 1, gpuRequested: 1 },
    want: ['ForeignWorkload', '1 of 8 GPUs are held by pods gpuops does not manage'],
  },
  {
    name: 'GPUs held by gpuops pods only: eligible',
    node: { gpuRequested: 3, managedPods: 3 },
    want: null,
  },
];

describe('ineligibility', () => {
  it.each(rows)('$name', (row) => {
    const got = ineligibility(node(row.node), row.labelKey);
    expect(got && [got.reason, got.message]).toEqual(row.want);
  });
});

describe('unhealthyState', () => {
  it.each<[string, Partial<NodeInfo>, string | null, string?]>([
    ['healthy', {}, null],
    ['NotReady first', { ready: false, cordoned: true, schedulable: false, gpuAllocatable: 0 }, 'NotReady'],
    ['cordoned before its taints', { cordoned: true, ...tainted(DEDICATED), gpuAllocatable: 0 }, 'cordoned'],
    [
      'blocking taints, as kubectl prints them',
      { ...tainted(POOL_TAINT, UNREACHABLE, DEDICATED), gpuAllocatable: 0 },
      'tainted node.kubernetes.io/unreachable:NoExecute, dedicated=ml:NoSchedule',
    ],
    ['unschedulable without a blocking taint', tainted(POOL_TAINT), 'unschedulable'],
    [
      'the pool taint of another label key',
      tainted(POOL_TAINT),
      'tainted gpuops.dev/pool=test:NoSchedule',
      'example.com/pool',
    ],
    ['0 allocatable', { gpuAllocatable: 0 }, 'without allocatable GPUs'],
    ['1 allocatable', { gpuAllocatable: 1 }, null],
  ])('%s', (_name, over, want, labelKey) => {
    expect(unhealthyState(node(over), labelKey)).toBe(want);
  });
});

describe('isHealthy', () => {
  it.each<[Partial<NodeInfo>, boolean]>([
    [{}, true],
    [{ gpuAllocatable: 1 }, true],
    [{ gpuAllocatable: 0 }, false],
    [{ ready: false }, false],
    [{ schedulable: false }, false],
  ])('%j → %s', (over, want) => {
    expect(isHealthy(node(over))).toBe(want);
  });
});
