/**
 * kube-scheduler's scores in the fleet model: NodeResourcesFit and InterPodAffinity with the
 * standby's preferred pod affinity terms, checked node by node against the plugins' formulas, and
 * where a standby or a replica goes on a pool of busy and empty nodes.
 */
import { describe, expect, it } from 'vitest';
import { pickNode, type FleetNode } from '../../src/replay/node-fleet.js';
import { schedulePending, type NodePod } from '../../src/replay/node-service.js';
import {
  affinityRaw,
  fitProfileText,
  fitScore,
  GPU_ONLY_POD,
  nodeScore,
  normaliseAffinity,
  parseScoredResources,
  type AffinityCounts,
  type FitProfile,
  type FitScoring,
  type PodRequests,
  type ScoredResource,
} from '../../src/replay/scheduler-score.js';

const node = (name: string, used: number, gpus = 8): FleetNode => ({
  name,
  pool: 'short-task',
  gpus,
  used,
  movedAt: 0,
  emptySince: used === 0 ? 0 : null,
});

describe('NodeResourcesFit: the incoming pod of 1 GPU counted as requested', () => {
  it.each<[FitScoring, number, number, number]>([
    ['LeastAllocated', 8, 0, 87], // ⌊7·100/8⌋
    ['LeastAllocated', 8, 6, 12],
    ['LeastAllocated', 8, 7, 0], // the last GPU
    ['MostAllocated', 8, 0, 12],
    ['MostAllocated', 8, 7, 100],
    ['LeastAllocated', 4, 1, 50],
  ])('%s, %i GPUs, %i held → %i', (scoring, gpus, used, want) => {
    expect(fitScore(scoring, gpus, used)).toBe(want);
  });
  it('refuses a node with no room for the pod', () => {
    expect(() => fitScore('LeastAllocated', 8, 8)).toThrow('a pod of 1 GPU does not fit 8 of 8 held');
  });
});

describe('NodeResourcesFit over the scored resources: the default profile scores cpu and memory', () => {
  const cm: ScoredResource[] = ['cpu', 'memory'];
  const gpu: ScoredResource[] = ['nvidia.com/gpu'];
  const all: ScoredResource[] = ['cpu', 'memory', 'nvidia.com/gpu'];
  const small: PodRequests = { cpuMillis: 4000, memoryBytes: 64 * 1024 ** 3 }; // half the node's cpu share
  it.each<[string, FitScoring, ScoredResource[], PodRequests | undefined, number, number, number]>([
    // The replay's pods ask cpu and memory in the node's proportion: every resource gives the GPUs' score.
    ['proportional pods, an empty node', 'LeastAllocated', cm, undefined, 8, 0, 87],
    ['proportional pods, 6 held', 'LeastAllocated', cm, undefined, 8, 6, 12],
    ['proportional pods, the last GPU', 'LeastAllocated', cm, undefined, 8, 7, 0],
    ['proportional pods, bin packing', 'MostAllocated', cm, undefined, 8, 7, 100],
    ['a profile that lists the GPUs', 'LeastAllocated', gpu, GPU_ONLY_POD, 8, 0, 87],
    ['the GPUs listed, 7 held', 'MostAllocated', gpu, GPU_ONLY_POD, 8, 7, 100],
    // Pods that ask GPUs alone count 100 m and 200 MiB: on 64 cores and 512 GiB, 1–6 pods tie at 99.
    ['GPU-only pods, an empty node', 'LeastAllocated', cm, GPU_ONLY_POD, 8, 0, 99],
    [
      'GPU-only pods, 5 held (6 with the pod: 99.06 % cpu free)',
      'LeastAllocated',
      cm,
      GPU_ONLY_POD,
      8,
      5,
      99,
    ],
    ['GPU-only pods, 6 held (98.9 % cpu free: one below)', 'LeastAllocated', cm, GPU_ONLY_POD, 8, 6, 98],
    ['GPU-only pods under MostAllocated: 0 everywhere', 'MostAllocated', cm, GPU_ONLY_POD, 8, 7, 0],
    ['all three, GPU-only pods: ⌊(87 + 99 + 99) / 3⌋', 'LeastAllocated', all, GPU_ONLY_POD, 8, 0, 95],
    ['cpu at half the share: ⌊(93 + 87) / 2⌋', 'LeastAllocated', cm, small, 8, 0, 90],
  ])('%s, %s', (_, strategy, resources, pod, gpus, used, want) => {
    const p: FitProfile = { strategy, resources, ...(pod ? { pod } : {}) };
    expect(fitScore(p, gpus, used)).toBe(want);
  });
  it("a bare strategy is the default profile with the replay's pods", () => {
    expect(fitProfileText('LeastAllocated')).toBe(
      'NodeResourcesFit LeastAllocated over cpu,memory (pods ask cpu and memory in proportion to their GPUs, 8 cores and 64 GiB per GPU)',
    );
  });
  it('reads --scored-resources and names a bad entry', () => {
    expect(parseScoredResources('cpu,memory')).toEqual(['cpu', 'memory']);
    expect(parseScoredResources('nvidia.com/gpu')).toEqual(['nvidia.com/gpu']);
    expect(() => parseScoredResources('cpu,gpu')).toThrow(
      '--scored-resources: "gpu" is not one of cpu, memory, nvidia.com/gpu',
    );
    expect(() => parseScoredResources('cpu,cpu')).toThrow('--scored-resources: "cpu" listed twice');
  });
});

describe('pickNode under the default profile: which node wins, and ties', () => {
  const cm = (pod?: PodRequests): FitProfile => ({
    strategy: 'LeastAllocated',
    resources: ['cpu', 'memory'],
    ...(pod ? { pod } : {}),
  });
  const gpus: FitProfile = { strategy: 'LeastAllocated', resources: ['nvidia.com/gpu'], pod: GPU_ONLY_POD };
  it.each<[string, FitProfile, [string, number][], string]>([
    [
      'proportional pods: the emptiest',
      cm(),
      [
        ['a', 3],
        ['b', 0],
      ],
      'b',
    ],
    [
      'GPU-only pods: 3 held and empty tie (the model: first by name)',
      cm(GPU_ONLY_POD),
      [
        ['a', 3],
        ['b', 0],
      ],
      'a',
    ],
    [
      'GPU-only pods: 6 held loses to an empty node',
      cm(GPU_ONLY_POD),
      [
        ['a', 6],
        ['b', 0],
      ],
      'b',
    ],
    [
      'GPU-only pods, the GPUs listed: the emptiest',
      gpus,
      [
        ['a', 3],
        ['b', 0],
      ],
      'b',
    ],
    [
      'proportional pods, equal nodes: first by name',
      cm(),
      [
        ['b', 2],
        ['a', 2],
      ],
      'a',
    ],
  ])('%s', (_, profile, spec, want) => {
    expect(
      pickNode(
        spec.map(([n, used]) => node(n, used)),
        'short-task',
        profile,
      )?.name,
    ).toBe(want);
  });
});

describe('InterPodAffinity: raw sums with symmetry, then normalised over the feasible nodes', () => {
  it.each<[string, AffinityCounts, boolean, number]>([
    ['a standby: W per replica', { replicas: 3, carrying: 0 }, true, 300],
    [
      'a standby: 2W per standby or claimed pod (its term and theirs)',
      { replicas: 0, carrying: 2 },
      true,
      400,
    ],
    ['a standby on a mixed node', { replicas: 3, carrying: 1 }, true, 500],
    ['a replica: W per standby or claimed pod (their term)', { replicas: 3, carrying: 1 }, false, 100],
    ['a replica among replicas only: nothing', { replicas: 5, carrying: 0 }, false, 0],
  ])('%s', (_, counts, carries, want) => {
    expect(affinityRaw(counts, carries, 100)).toBe(want);
  });
  it.each<[number[], number[]]>([
    [
      [0, 500, 250],
      [0, 100, 50],
    ],
    [
      [100, 200, 300],
      [0, 50, 100],
    ], // the lowest node scores 0, not its share
    [
      [0, 100, 700],
      [0, 14, 100],
    ], // truncated
    [
      [300, 300],
      [0, 0],
    ], // max = min
    [
      [0, 0, 0],
      [0, 0, 0],
    ], // no pod carrying the terms: the baseline
  ])('%j → %j', (raw, want) => {
    expect(normaliseAffinity(raw)).toEqual(want);
  });
  it('weighs affinity twice as the fit', () => {
    expect(nodeScore(12, 100)).toBe(212);
    expect(nodeScore(87, 0)).toBe(87);
  });
});

describe('pickNode with the standby terms: a busy node before an empty one', () => {
  // Each case: the nodes with their pods (replicas r, standby or claimed pods c), the incoming pod.
  type Case = [string, FitScoring, [string, number, number][], boolean, string | null];
  it.each<Case>([
    [
      'no term anywhere: the emptiest (the default)',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 6, 0],
      ],
      false,
      'a',
    ],
    [
      'a standby: the busy node (12 + 2·100 > 87)',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 6, 0],
      ],
      true,
      'b',
    ],
    [
      'a standby: one replica is enough against an empty node',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 1, 0],
      ],
      true,
      'b',
    ],
    [
      'a standby: the most pods, not the least free',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 1, 0],
        ['c', 4, 0],
      ],
      true,
      'c',
    ],
    [
      'a standby: standbys weigh double',
      'LeastAllocated',
      [
        ['b', 3, 0],
        ['c', 0, 2],
      ],
      true,
      'c',
    ],
    [
      'a standby: the busy nodes full, the empty one',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 8, 0],
        ['c', 4, 4],
      ],
      true,
      'a',
    ],
    [
      'a replica: drawn to the standby node',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 5, 1],
      ],
      false,
      'b',
    ],
    [
      'a replica: replicas alone draw nothing',
      'LeastAllocated',
      [
        ['a', 0, 0],
        ['b', 6, 0],
        ['c', 1, 0],
      ],
      false,
      'a',
    ],
    [
      'bin packing agrees',
      'MostAllocated',
      [
        ['a', 0, 0],
        ['b', 6, 0],
      ],
      true,
      'b',
    ],
  ])('%s', (_, scoring, spec, carries, want) => {
    const nodes = spec.map(([name, r, c]) => node(name, r + c));
    const counts = new Map(spec.map(([name, replicas, carrying]) => [name, { replicas, carrying }]));
    const raw = (n: FleetNode) => affinityRaw(counts.get(n.name)!, carries, 100);
    expect(pickNode(nodes, 'short-task', scoring, raw)?.name ?? null).toBe(want);
  });
});

describe('schedulePending: the pods bound earlier in the pass count', () => {
  const pod = (name: string, carries: boolean, at = 0): NodePod => ({
    name,
    serial: 0,
    node: null,
    readyAt: Infinity,
    createdAt: at,
    ...(carries ? { carriesAffinity: true } : {}),
  });
  it.each<[string, boolean, string[]]>([
    ['two standbys on two empty nodes: together', true, ['a', 'a']],
    ['two replicas on two empty nodes: apart', false, ['a', 'b']],
  ])('%s', (_, carries, want) => {
    const nodes = [node('a', 0), node('b', 0)];
    const group = { pods: [pod('x-0', carries), pod('x-1', carries, 1)] };
    expect(schedulePending([group], nodes, 'short-task', 'LeastAllocated', 30, 0)).toBe(2);
    expect(group.pods.map((p) => p.node)).toEqual(want);
  });
  it("a replica of one service goes where another group's standby is bound", () => {
    const nodes = [node('a', 0), node('b', 5), node('c', 1)];
    const bound = (name: string, at: string, carries: boolean): NodePod => ({
      ...pod(name, carries),
      node: at,
    });
    const services = {
      pods: [...Array.from({ length: 5 }, (_, i) => bound(`s-${i}`, 'b', false)), pod('s-new', false, 5)],
    };
    const standby = { pods: [bound('standby-0', 'c', true)] };
    schedulePending([services, standby], nodes, 'short-task', 'LeastAllocated', 30, 10);
    // c: fit 75 + 2·100 (the standby's term matches a replica); b: 25 + 0; a: 87 + 0.
    expect(services.pods.at(-1)!.node).toBe('c');
  });
});
