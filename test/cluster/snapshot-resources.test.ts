/**
 * What the scheduler's NodeResourcesFit and pod count judge (issue 23 item 7), as the snapshot
 * model reads it from Nodes and Pods: allocatable cpu, memory and pods; effective pod requests
 * (init containers, sidecars, overhead, limit defaulting); what the pods bound to a node hold;
 * pod start times (item 10) and ReplicaSets with their owners (item 9).
 */
import { readFileSync } from 'node:fs';
import type { V1Node, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { cpuMemoryRequest } from '../../src/cluster/requests.js';
import { parseQuantity } from '../../src/cluster/quantity.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const GI = 2 ** 30;
const read = (q: string) => parseQuantity(q);

type Resources = Record<string, string>;
const c = (name: string, requests?: Resources, limits?: Resources, restartPolicy?: string) => ({
  name,
  resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  ...(restartPolicy ? { restartPolicy } : {}),
});

describe('cpuMemoryRequest: the effective cpu and memory request of a pod', () => {
  it.each([
    ['one container', { containers: [c('a', { cpu: '4', memory: '16Gi' })] }, 4000, 16 * GI],
    [
      'two app containers add up',
      { containers: [c('a', { cpu: '500m' }), c('b', { cpu: '1500m', memory: '1Gi' })] },
      2000,
      GI,
    ],
    [
      'a limit without a request counts as the request',
      { containers: [c('a', undefined, { cpu: '2', memory: '2Gi' })] },
      2000,
      2 * GI,
    ],
    ['the request wins over a larger limit', { containers: [c('a', { cpu: '1' }, { cpu: '8' })] }, 1000, 0],
    [
      'a regular init container larger than the app: its request',
      { initContainers: [c('init', { cpu: '6' })], containers: [c('a', { cpu: '4' })] },
      6000,
      0,
    ],
    [
      'a regular init container smaller than the app: the app',
      { initContainers: [c('init', { cpu: '3' })], containers: [c('a', { cpu: '4' })] },
      4000,
      0,
    ],
    [
      'a sidecar (restartPolicy Always) adds to the app',
      {
        initContainers: [c('proxy', { cpu: '500m', memory: '128Mi' }, undefined, 'Always')],
        containers: [c('a', { cpu: '4', memory: '16Gi' })],
      },
      4500,
      16 * GI + 128 * 2 ** 20,
    ],
    [
      'pod overhead adds to the sum',
      { overhead: { cpu: '250m', memory: '160Mi' }, containers: [c('a', { cpu: '1', memory: '1Gi' })] },
      1250,
      GI + 160 * 2 ** 20,
    ],
    ['no requests at all: 0', { containers: [c('a')] }, 0, 0],
  ])('%s → %i m cpu, %i bytes', (_name, spec, cpuMillis, memoryBytes) => {
    expect(cpuMemoryRequest({ spec: spec as V1Pod['spec'] }, read)).toEqual({ cpuMillis, memoryBytes });
  });
});

function node(name: string, allocatable: Resources): V1Node {
  return {
    metadata: { name, labels: { 'nvidia.com/gpu.product': 'Tesla-T4' } },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      capacity: allocatable,
      allocatable,
    },
  };
}

function pod(
  name: string,
  o: { node?: string; phase?: string; cpu?: string; memory?: string; startTime?: string },
): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      ownerReferences: [
        { kind: 'Node', name: 'ignored', apiVersion: 'v1', uid: 'n' },
        {
          kind: 'ReplicaSet',
          name: 'resnet50-infer-7d9f6c5b8',
          apiVersion: 'apps/v1',
          uid: 'rs',
          controller: true,
        },
      ],
    },
    spec: {
      ...(o.node ? { nodeName: o.node } : {}),
      containers: [c('main', { cpu: o.cpu ?? '4', memory: o.memory ?? '16Gi', 'nvidia.com/gpu': '1' })],
    },
    status: { phase: o.phase ?? 'Running', ...(o.startTime ? { startTime: o.startTime } : {}) },
  } as V1Pod;
}

describe('buildSnapshot: node resources as the scheduler counts them', () => {
  const snap = buildSnapshot(
    [
      node('gpu-s1', { cpu: '7900m', memory: '64Gi', pods: '110', 'nvidia.com/gpu': '4' }),
      node('gpu-bare', { 'nvidia.com/gpu': '1' }),
    ],
    [
      pod('running', { node: 'gpu-s1', startTime: '2026-12-01T09:00:00Z' }),
      pod('pending-bound', { node: 'gpu-s1', phase: 'Pending', cpu: '2', memory: '1Gi' }),
      pod('succeeded', { node: 'gpu-s1', phase: 'Succeeded', cpu: '8' }),
      pod('failed', { node: 'gpu-s1', phase: 'Failed', cpu: '8' }),
      pod('unbound', { phase: 'Pending', cpu: '8' }),
    ],
    NOW,
  );
  const byName = new Map(snap.nodes.map((n) => [n.name, n]));

  it('allocatable cpu in millicores, memory in bytes, pods as a count', () => {
    expect(byName.get('gpu-s1')!.allocatable).toEqual({ cpuMillis: 7900, memoryBytes: 64 * GI, pods: 110 });
  });

  it('a node that reports no cpu, memory or pods has 0 of them (as the scheduler counts it)', () => {
    expect(byName.get('gpu-bare')!.allocatable).toEqual({ cpuMillis: 0, memoryBytes: 0, pods: 0 });
  });

  it('bound pods that are not finished count; Succeeded, Failed and unbound pods hold nothing', () => {
    expect(byName.get('gpu-s1')!.requested).toEqual({ cpuMillis: 6000, memoryBytes: 17 * GI, pods: 2 });
    expect(byName.get('gpu-bare')!.requested).toEqual({ cpuMillis: 0, memoryBytes: 0, pods: 0 });
  });

  it('each pod keeps its requests, its start time (null before the kubelet took it) and its controller owner', () => {
    const running = snap.pods.find((p) => p.name === 'running')!;
    expect(running).toMatchObject({
      requests: { cpuMillis: 4000, memoryBytes: 16 * GI },
      startedAt: '2026-12-01T09:00:00.000Z',
      owner: { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f6c5b8' },
    });
    expect(snap.pods.find((p) => p.name === 'unbound')!.startedAt).toBeNull();
  });

  it('without ReplicaSets the snapshot carries none (absent, not empty)', () => {
    expect(snap.replicaSets).toBeUndefined();
  });
});

describe('buildSnapshot: ReplicaSets and their Deployments', () => {
  const rs = (name: string, o: { owner?: string; revision?: string; replicas?: number }): V1ReplicaSet => ({
    metadata: {
      name,
      namespace: 'algorithms',
      ...(o.revision ? { annotations: { 'deployment.kubernetes.io/revision': o.revision } } : {}),
      ...(o.owner
        ? {
            ownerReferences: [
              { kind: 'Deployment', name: o.owner, apiVersion: 'apps/v1', uid: 'd', controller: true },
            ],
          }
        : {}),
    },
    spec: { replicas: o.replicas ?? 1, selector: {} },
  });

  it('keeps owner, revision and replicas; a bare ReplicaSet has no owner, a bad revision is null', () => {
    const snap = buildSnapshot([], [], NOW, {}, [
      rs('resnet50-infer-7d9f6c5b8', { owner: 'resnet50-infer', revision: '3', replicas: 2 }),
      rs('bare', { revision: 'x', replicas: 0 }),
    ]);
    expect(snap.replicaSets).toEqual([
      {
        namespace: 'algorithms',
        name: 'resnet50-infer-7d9f6c5b8',
        owner: { kind: 'Deployment', name: 'resnet50-infer', controller: true, uid: 'd' },
        revision: 3,
        replicas: 2,
      },
      { namespace: 'algorithms', name: 'bare', owner: null, revision: null, replicas: 0 },
    ]);
  });

  it.each([
    ['controller: true, with uid', [{ controller: true, uid: 'r1' }], { controller: true, uid: 'r1' }],
    ['controller: false: no controller', [{ controller: false, uid: 'r1' }], { uid: 'r1' }],
    ['no controller flag and no uid (a hand-written dump)', [{}], {}],
  ] as const)('a pod owner, %s', (_, refs, want) => {
    const p = {
      metadata: {
        name: 'p',
        namespace: 'algorithms',
        annotations: { 'gpuops.dev/claimed-uid': 'u-1' },
        ownerReferences: refs.map((r) => ({ kind: 'ReplicaSet', name: 'rs-a', apiVersion: 'apps/v1', ...r })),
      },
      spec: { containers: [] },
    } as unknown as V1Pod;
    const info = buildSnapshot([], [p], NOW).pods[0]!;
    expect(info.owner).toEqual({ kind: 'ReplicaSet', name: 'rs-a', ...want });
    expect(info.claimedUid).toBe('u-1');
  });

  it('an empty ReplicaSet list is kept as read: empty, not absent', () => {
    expect(buildSnapshot([], [], NOW, {}, { items: [] }).replicaSets).toEqual([]);
  });
});

describe('cluster-mixed: every node reports cpu, memory and pods', () => {
  const fixture = (f: string) =>
    JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8')) as {
      items: never[];
    };
  it('gpu-t4-03 has 3900 m cpu, 110 pods and its ephemeral storage allocatable; no warning is raised', () => {
    const snap = buildSnapshot(fixture('nodes.json'), fixture('pods.json'), NOW);
    expect(snap.nodes.find((n) => n.name === 'gpu-t4-03')!.allocatable).toEqual({
      cpuMillis: 3900,
      memoryBytes: 16012672 * 1024,
      pods: 110,
      other: { 'ephemeral-storage': 104845292 * 1024, 'hugepages-1Gi': 0, 'hugepages-2Mi': 0 },
    });
    expect(snap.warnings).toBeUndefined();
  });
});
