import { describe, expect, it } from 'vitest';
import { benchmarkInProgress, isBenchmarkPod, nodesRunningBenchmarks } from './benchmark-pods.js';
import type { PodInfo } from './types.js';

function pod(name: string, over: Partial<PodInfo> = {}): PodInfo {
  return {
    namespace: 'algorithms',
    name,
    uid: name,
    labels: {},
    nodeName: 'gpu-test',
    phase: 'Running',
    ready: true,
    terminating: false,
    gpuRequest: 1,
    requests: { cpuMillis: 0, memoryBytes: 0 },
    managed: true,
    algorithm: 'resnet',
    owner: { kind: 'Job', name: 'resnet-bench-1' },
    unschedulable: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    ...over,
  };
}

const rows: { name: string; pod: PodInfo; benchmark: boolean; inProgress: boolean }[] = [
  { name: 'a Running pod of a gpuops Job', pod: pod('run'), benchmark: true, inProgress: true },
  {
    name: 'a Pending one (queued, pulling)',
    pod: pod('pend', { phase: 'Pending' }),
    benchmark: true,
    inProgress: true,
  },
  {
    name: 'a Succeeded one: the run ended',
    pod: pod('done', { phase: 'Succeeded' }),
    benchmark: true,
    inProgress: false,
  },
  { name: 'a Failed one', pod: pod('fail', { phase: 'Failed' }), benchmark: true, inProgress: false },
  {
    name: 'a Running one being deleted',
    pod: pod('del', { terminating: true }),
    benchmark: true,
    inProgress: false,
  },
  {
    name: 'phase Unknown (node lost)',
    pod: pod('unk', { phase: 'Unknown' }),
    benchmark: true,
    inProgress: false,
  },
  { name: "another team's Job", pod: pod('team', { managed: false }), benchmark: false, inProgress: false },
  {
    name: "a gpuops Deployment's pod",
    pod: pod('serve', { owner: { kind: 'ReplicaSet', name: 'resnet-5d4f' } }),
    benchmark: false,
    inProgress: false,
  },
  {
    name: 'a managed pod with no owner',
    pod: pod('bare', { owner: null }),
    benchmark: false,
    inProgress: false,
  },
];

describe('isBenchmarkPod, benchmarkInProgress', () => {
  it.each(rows)('$name', (row) => {
    expect(isBenchmarkPod(row.pod)).toBe(row.benchmark);
    expect(benchmarkInProgress(row.pod)).toBe(row.inProgress);
  });
});

describe('nodesRunningBenchmarks', () => {
  it('names the nodes of runs in progress only: a finished run keeps no test node', () => {
    const pods = [
      pod('done', { phase: 'Succeeded', nodeName: 'gpu-a' }),
      pod('run', { nodeName: 'gpu-b' }),
      pod('pend', { phase: 'Pending', nodeName: null }),
      pod('fail', { phase: 'Failed', nodeName: 'gpu-c' }),
      pod('serve', { owner: { kind: 'ReplicaSet', name: 'x' }, nodeName: 'gpu-d' }),
    ];
    expect(nodesRunningBenchmarks(pods)).toEqual(['gpu-b']);
  });
});
