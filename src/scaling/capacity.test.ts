import { describe, expect, it } from 'vitest';
import type { NodeInfo, PodInfo, Snapshot } from '../cluster/types.js';
import { node, pod } from '../../test/scaling/support.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { nodeCapacity, notGpuBoundNote } from './capacity.js';
import type { NodeCapacity } from './types.js';

const GI = 2 ** 30;

/** A Ready, schedulable GPU node of long-task with 8 GPUs, 64 cores, 512Gi, 110 pod slots, nothing requested. */
function gpuNode(name: string, o: Partial<NodeInfo> = {}): NodeInfo {
  return nodeInfo(name, {
    allocatable: { cpuMillis: 64_000, memoryBytes: 512 * GI, pods: 110 },
    pool: 'long-task',
    ...o,
  });
}

const snapshot = (nodes: NodeInfo[], pods: PodInfo[] = []): Snapshot =>
  ({ takenAt: '2025-06-01T12:00:00Z', nodes, pods, replicaSets: [] }) as unknown as Snapshot;

describe('nodeCapacity: what each GPU node offers new pods', () => {
  it.each<[string, Snapshot, Record<string, number>]>([
    ['AllFree', snapshot([gpuNode('a')]), { a: 8 }],
    [
      'ARunningPodHoldsItsGpus',
      snapshot([gpuNode('a')], [pod('p', { nodeName: 'a', gpuRequest: 3 })]),
      { a: 5 },
    ],
    [
      'SucceededAndFailedPodsHoldNone',
      snapshot(
        [gpuNode('a')],
        [
          pod('done', { nodeName: 'a', gpuRequest: 2, phase: 'Succeeded' }),
          pod('dead', { nodeName: 'a', gpuRequest: 2, phase: 'Failed' }),
        ],
      ),
      { a: 8 },
    ],
    [
      'APendingUnboundPodHoldsNone',
      snapshot([gpuNode('a')], [pod('wait', { nodeName: null, gpuRequest: 4, phase: 'Pending' })]),
      { a: 8 },
    ],
    ['NotReadyOffersNothing', snapshot([gpuNode('a', { ready: false })]), { a: 0 }],
    ['CordonedOffersNothing', snapshot([gpuNode('a', { cordoned: true })]), { a: 0 }],
    ['UnschedulableOffersNothing', snapshot([gpuNode('a', { schedulable: false })]), { a: 0 }],
  ])('%s', (_name, snap, want) => {
    expect(Object.fromEntries(nodeCapacity(snap).map((c) => [c.node, c.freeGpus]))).toEqual(want);
  });

  it('free cpu, memory and pods are allocatable minus requested; nodes sorted by name', () => {
    const snap = snapshot([
      gpuNode('b', { requested: { cpuMillis: 4_000, memoryBytes: 16 * GI, pods: 3 } }),
      gpuNode('a'),
      gpuNode('c'),
    ]);
    const out = nodeCapacity(snap);
    expect(out.map((c) => c.node)).toEqual(['a', 'b', 'c']);
    expect(out[1]!.free).toEqual({ cpuMillis: 60_000, memoryBytes: 496 * GI, pods: 107 });
  });

  it.each<[string, NodeInfo['allocatable'], NodeCapacity['free']]>([
    [
      'NothingReportedIsUnbounded',
      { cpuMillis: 0, memoryBytes: 0, pods: 0 },
      { cpuMillis: Infinity, memoryBytes: Infinity, pods: Infinity },
    ],
    [
      'OnlyCpuReported',
      { cpuMillis: 1_000, memoryBytes: 0, pods: 0 },
      { cpuMillis: 1_000, memoryBytes: 0, pods: 0 },
    ],
    [
      'OnlyMemoryReported',
      { cpuMillis: 0, memoryBytes: GI, pods: 0 },
      { cpuMillis: 0, memoryBytes: GI, pods: 0 },
    ],
    [
      'OnlyPodsReported',
      { cpuMillis: 0, memoryBytes: 0, pods: 1 },
      { cpuMillis: 0, memoryBytes: 0, pods: 1 },
    ],
  ])('room: %s', (_name, allocatable, free) => {
    expect(nodeCapacity(snapshot([gpuNode('a', { allocatable })]))[0]!.free).toEqual(free);
  });
});

describe('notGpuBoundNote: nodes with GPUs free but no room for the rest of a replica', () => {
  const REPLICA = { gpus: 1, cpuMillis: 4_000, memoryBytes: 16 * GI };
  const noCpu = (name: string, freeGpus = 2) =>
    node(name, 'long-task', freeGpus, null, { free: { cpuMillis: 0 } });

  it.each<[string, NodeCapacity[], string]>([
    ['EveryNodeFits', [node('a', 'long-task', 2)], ''],
    ['NoFreeGpuIsNoNote (GPU-bound)', [noCpu('a', 0)], ''],
    ['ExactlyTheGpusFreeButNoCpu', [noCpu('a', 1)], ' (each 1 GPU, 4 cpu, 16Gi; a: Insufficient cpu)'],
    [
      'ThreeNamedNoMore',
      [noCpu('c'), noCpu('a'), noCpu('b')],
      ' (each 1 GPU, 4 cpu, 16Gi; a: Insufficient cpu; b: Insufficient cpu; c: Insufficient cpu)',
    ],
    [
      'FiveShortNamesThreeAndTwoMore',
      ['e', 'd', 'c', 'b', 'a'].map((n) => noCpu(n)),
      ' (each 1 GPU, 4 cpu, 16Gi; a: Insufficient cpu; b: Insufficient cpu; c: Insufficient cpu; … and 2 more)',
    ],
  ])('%s', (_name, nodes, want) => {
    expect(notGpuBoundNote(nodes, REPLICA)).toBe(want);
  });
});
