import { readFileSync } from 'node:fs';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSnapshot, createSnapshotBuilder, effectiveGpuRequest } from '../../src/cluster/snapshot.js';

const fixture = (f: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8')) as {
    items: unknown[];
  };
const NOW = new Date('2026-12-01T10:00:00Z');

describe('buildSnapshot on cluster-mixed', () => {
  const snap = buildSnapshot(
    fixture('nodes.json') as { items: V1Node[] },
    fixture('pods.json') as { items: V1Pod[] },
    NOW,
  );
  const node = (name: string) => snap.nodes.find((n) => n.name === name)!;

  it('records the time it was given and every node and pod', () => {
    expect(snap.takenAt).toBe('2026-12-01T10:00:00.000Z');
    expect(snap.nodes).toHaveLength(13);
    expect(snap.pods).toHaveLength(10);
    expect(snap.warnings).toBeUndefined();
  });

  it.each([
    // name, ready, cordoned, schedulable, product, capacity, allocatable, mig, requested, foreign
    ['ip-10-0-1-11.ec2.internal', true, false, true, null, 0, 0, 0, 0, 0],
    ['gpu-a100-01', true, false, true, 'NVIDIA-A100-SXM4-80GB', 8, 8, 0, 0, 0],
    ['gpu-a100-03', true, false, true, 'NVIDIA-A100-SXM4-80GB', 8, 8, 0, 4, 4],
    ['gpu-a100-04', true, false, true, 'NVIDIA-A100-SXM4-80GB', 0, 0, 56, 0, 0],
    ['gpu-h100-02', true, true, false, 'NVIDIA-H100-80GB-HBM3', 8, 8, 0, 0, 0],
    ['gpu-t4-02', true, false, true, 'Tesla-T4', 4, 4, 0, 1, 1],
    ['gpu-t4-04', false, false, false, 'Tesla-T4', 1, 1, 0, 0, 0],
    ['gpu-t4-05', true, false, true, 'Tesla-T4', 4, 0, 0, 0, 0],
  ] as const)(
    '%s: ready=%s cordoned=%s schedulable=%s product=%s capacity=%i allocatable=%i mig=%i requested=%i foreign=%i',
    (name, ready, cordoned, schedulable, product, capacity, allocatable, mig, requested, foreign) => {
      const n = node(name);
      expect(n).toMatchObject({
        ready,
        cordoned,
        schedulable,
        gpuProduct: product,
        gpuCapacity: capacity,
        gpuAllocatable: allocatable,
        migAllocatable: mig,
        gpuRequested: requested,
        foreignGpuRequested: foreign,
        managedPods: 0,
        pool: null,
      });
    },
  );

  it('keeps taints without timeAdded', () => {
    expect(node('gpu-t4-04').taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
    ]);
  });

  it('the Pending unbound pod holds nothing and the second container of video-decode requests none', () => {
    const pending = snap.pods.find((p) => p.name === 'batch-embed-x7k2p')!;
    expect(pending).toMatchObject({ nodeName: null, phase: 'Pending', gpuRequest: 1, managed: false });
    const video = snap.pods.find((p) => p.name.startsWith('video-decode'))!;
    expect(video).toMatchObject({ nodeName: 'gpu-t4-02', gpuRequest: 1 });
    const total = snap.nodes.reduce((s, n) => s + n.gpuRequested, 0);
    expect(total).toBe(5);
  });
});

function pod(
  spec: Partial<V1Pod['spec']> & object,
  phase = 'Running',
  extra: Partial<V1Pod['metadata']> = {},
): V1Pod {
  return {
    metadata: { name: 'p', namespace: 'ns', ...extra },
    spec: { containers: [], nodeName: 'n1', ...spec },
    status: { phase },
  } as V1Pod;
}
let seq = 0;
const gpus = (n: string | undefined, limitsOnly = false) => ({
  name: `c${++seq}`,
  resources:
    n === undefined
      ? {}
      : limitsOnly
        ? { limits: { 'nvidia.com/gpu': n } }
        : { requests: { 'nvidia.com/gpu': n }, limits: { 'nvidia.com/gpu': n } },
});

describe('effectiveGpuRequest (Kubernetes resource sharing within containers)', () => {
  it.each([
    ['sum of app containers', pod({ containers: [gpus('1'), gpus('2')] }), 3],
    ['limit alone counts as the request (extended resources)', pod({ containers: [gpus('2', true)] }), 2],
    [
      'an init container larger than the app sum wins',
      pod({ initContainers: [gpus('4')], containers: [gpus('1'), gpus('1')] }),
      4,
    ],
    [
      'app sum larger than every init container wins',
      pod({ initContainers: [gpus('1')], containers: [gpus('2'), gpus('1')] }),
      3,
    ],
    [
      'a sidecar (restartPolicy Always) adds to the app sum',
      pod({ initContainers: [{ ...gpus('1'), restartPolicy: 'Always' }], containers: [gpus('2')] }),
      3,
    ],
    [
      'a sidecar started before an init container adds to that init container',
      pod({
        initContainers: [{ ...gpus('1'), restartPolicy: 'Always' }, gpus('4')],
        containers: [gpus('1')],
      }),
      5,
    ],
    [
      'a sidecar started after an init container does not add to it',
      pod({
        initContainers: [gpus('4'), { ...gpus('1'), restartPolicy: 'Always' }],
        containers: [gpus('1')],
      }),
      4,
    ],
    ['no GPU anywhere', pod({ containers: [gpus(undefined)] }), 0],
  ] as const)('%s', (_name, p, want) => {
    expect(effectiveGpuRequest(p)).toBe(want);
  });
});

describe('what a pod holds on its node', () => {
  const node: V1Node = {
    metadata: { name: 'n1', labels: {} },
    status: {
      allocatable: { 'nvidia.com/gpu': '8' },
      capacity: { 'nvidia.com/gpu': '8' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  } as V1Node;
  it.each([
    ['Running pod holds its GPUs', pod({ containers: [gpus('2')] }, 'Running'), 2],
    ['Pending but bound pod holds its GPUs', pod({ containers: [gpus('2')] }, 'Pending'), 2],
    ['Succeeded pod holds nothing', pod({ containers: [gpus('2')] }, 'Succeeded'), 0],
    ['Failed pod holds nothing', pod({ containers: [gpus('2')] }, 'Failed'), 0],
    [
      'Pending unbound pod holds nothing',
      pod({ containers: [gpus('2')], nodeName: undefined }, 'Pending'),
      0,
    ],
    [
      'terminating pod still holds its GPUs',
      pod({ containers: [gpus('2')] }, 'Running', { deletionTimestamp: new Date() }),
      2,
    ],
  ] as const)('%s', (_name, p, want) => {
    expect(buildSnapshot([node], [p], NOW).nodes[0]!.gpuRequested).toBe(want);
  });

  it('counts managed pods apart from foreign GPUs', () => {
    const managed = pod({ containers: [gpus('3')] }, 'Running', {
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'a' },
    });
    const s = buildSnapshot([node], [managed, pod({ containers: [gpus('1')] })], NOW);
    expect(s.nodes[0]).toMatchObject({ gpuRequested: 4, foreignGpuRequested: 1, managedPods: 1 });
    expect(s.pods[0]).toMatchObject({ managed: true, algorithm: 'a' });
  });

  it.each([
    ['an RFC 3339 string from the API server', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
    ['a string with an offset', '2026-01-02T05:04:05+02:00', '2026-01-02T03:04:05.000Z'],
    ['a string that is no time, kept as it is', 'yesterday', 'yesterday'],
  ])('writes creation times in one canonical form: %s', (_name, given, want) => {
    const p = pod({ containers: [] }, 'Running', { creationTimestamp: given as unknown as Date });
    expect(buildSnapshot([node], [p], NOW).pods[0]!.createdAt).toBe(want);
  });

  it('reads client-library objects whose timestamps are Dates', () => {
    const p = pod({ containers: [] }, 'Running', { creationTimestamp: new Date('2026-01-02T03:04:05Z') });
    expect(buildSnapshot([node], [p], NOW).pods[0]!.createdAt).toBe('2026-01-02T03:04:05.000Z');
  });

  it('reads the pool label, ignores an unknown value, and honours a custom label key', () => {
    const labelled = (v: string, key = 'gpuops.dev/pool') =>
      ({ ...node, metadata: { name: 'n1', labels: { [key]: v } } }) as V1Node;
    expect(buildSnapshot([labelled('long-task')], [], NOW).nodes[0]!.pool).toBe('long-task');
    expect(buildSnapshot([labelled('gpu-heavy')], [], NOW).nodes[0]!.pool).toBeNull();
    expect(
      buildSnapshot([labelled('test', 'example.com/pool')], [], NOW, { poolLabel: 'example.com/pool' })
        .nodes[0]!.pool,
    ).toBe('test');
  });

  it('a bad quantity counts as 0 with a warning naming object and field; the other objects still count', () => {
    const bad = {
      ...node,
      metadata: { name: 'bad' },
      status: { ...node.status, allocatable: { 'nvidia.com/gpu': 'eight' } },
    } as V1Node;
    const s = buildSnapshot([bad, node], [pod({ containers: [gpus('2')] })], NOW);
    expect(s.nodes.map((n) => [n.name, n.gpuAllocatable, n.gpuRequested])).toEqual([
      ['bad', 0, 0],
      ['n1', 8, 2],
    ]);
    expect(s.warnings).toEqual([
      'Node bad: status.allocatable["nvidia.com/gpu"]: not a Kubernetes quantity: "eight"; counted as 0',
    ]);
  });
});

describe('createSnapshotBuilder: the snapshot from list pages', () => {
  const nodes = fixture('nodes.json').items as V1Node[];
  const pods = fixture('pods.json').items as V1Pod[];
  const badPod = {
    metadata: { name: 'bad', namespace: 'ns' },
    spec: {
      nodeName: 'gpu-t4-01',
      containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 'two' } } }],
    },
    status: { phase: 'Running' },
  } as V1Pod;
  const badNode = {
    ...nodes[0]!,
    metadata: { name: 'zz-bad' },
    status: { capacity: { 'nvidia.com/gpu': 'x' } },
  };
  const whole = buildSnapshot([...nodes, badNode], [...pods, badPod], NOW);

  it.each([
    ['pods in pages of 3 before the nodes', 3, 'pods-first'],
    ['one pod per page, nodes first', 1, 'nodes-first'],
  ] as const)('%s gives what buildSnapshot gives', (_name, size, order) => {
    const b = createSnapshotBuilder(NOW);
    if (order === 'nodes-first') b.addNodes([...nodes, badNode]);
    const all = [...pods, badPod];
    for (let i = 0; i < all.length; i += size) b.addPods(all.slice(i, i + size));
    if (order === 'pods-first') b.addNodes([...nodes, badNode]);
    const s = b.build();
    expect(s).toEqual(whole);
    // Pod warnings first, then node warnings, as buildSnapshot orders them.
    expect(s.warnings).toHaveLength(2);
    expect(s.warnings![0]).toMatch(/^Pod ns\/bad: /);
  });

  it('resetPods forgets the pages received before a list restart', () => {
    const b = createSnapshotBuilder(NOW);
    b.addPods([badPod, ...pods.slice(0, 4)]);
    b.resetPods();
    b.addPods(pods);
    b.addNodes(nodes);
    expect(b.build()).toEqual(buildSnapshot(nodes, pods, NOW));
  });
});
