/**
 * Issue 23 item 9: only the Deployment's own pods are its replicas. A copied "shadow" Deployment
 * carrying resnet50-infer's labels (managed-by, gpuops.dev/algorithm) runs two idle pods; by
 * labels they were averaged in (93 % and 93 % with 10 % and 12 % → 52 %, WithinRange) and the
 * scale-up was missed. Kubectl-shaped Pods and ReplicaSets through the snapshot model and
 * `decideScaling`; with ReplicaSets read, and without (the Deployment controller's naming).
 */
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import { nodeInfo } from '../support/node-info.js';
import { algorithm, policyNoWindows } from './support.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const LABELS = {
  'app.kubernetes.io/managed-by': 'gpuops',
  'app.kubernetes.io/name': 'resnet50-infer',
  'gpuops.dev/algorithm': 'resnet50-infer',
};

function pod(
  name: string,
  replicaSet: string,
  hash: string,
  o: { kind?: string; node?: string } = {},
): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      uid: `uid-${name}`,
      labels: { ...LABELS, ...(o.kind ? {} : { 'pod-template-hash': hash }) },
      ownerReferences: [
        {
          kind: o.kind ?? 'ReplicaSet',
          name: replicaSet,
          apiVersion: 'apps/v1',
          uid: `uid-${replicaSet}`,
          controller: true,
        },
      ],
      creationTimestamp: '2026-12-01T08:00:00Z' as unknown as Date,
    },
    spec: {
      nodeName: o.node ?? 'gpu-lt-1',
      containers: [{ name: 'main', resources: { requests: { 'nvidia.com/gpu': '1' } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function replicaSet(name: string, deployment: string): V1ReplicaSet {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ownerReferences: [
        {
          kind: 'Deployment',
          name: deployment,
          apiVersion: 'apps/v1',
          uid: `uid-${deployment}`,
          controller: true,
        },
      ],
    },
    spec: { replicas: 2, selector: {} },
  };
}

const util = (podName: string, value: number): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { UUID: `GPU-${podName}`, gpu: '0', Hostname: 'gpu-lt-1', namespace: 'algorithms', pod: podName },
  value,
  timestamp: NOW.getTime(),
});

const OWN = [
  pod('resnet50-infer-7d9f6c5b8-aaa0', 'resnet50-infer-7d9f6c5b8', '7d9f6c5b8'),
  pod('resnet50-infer-7d9f6c5b8-aaa1', 'resnet50-infer-7d9f6c5b8', '7d9f6c5b8'),
];
const SHADOW = [
  pod('resnet50-infer-shadow-5c4d8-bbb0', 'resnet50-infer-shadow-5c4d8', '5c4d8'),
  pod('resnet50-infer-shadow-5c4d8-bbb1', 'resnet50-infer-shadow-5c4d8', '5c4d8'),
];
const SERIES = [
  util('resnet50-infer-7d9f6c5b8-aaa0', 93),
  util('resnet50-infer-7d9f6c5b8-aaa1', 93),
  util('resnet50-infer-shadow-5c4d8-bbb0', 10),
  util('resnet50-infer-shadow-5c4d8-bbb1', 12),
];

function run(pods: V1Pod[], replicaSets?: V1ReplicaSet[], series = SERIES) {
  const snapshot = buildSnapshot([], pods, NOW, {}, replicaSets);
  snapshot.nodes = [nodeInfo('gpu-lt-1', { pool: 'long-task', gpuRequested: 4 })];
  return decideScaling({
    algorithms: [{ algorithm: algorithm({ name: 'resnet50-infer' }), pool: 'long-task', replicas: 2 }],
    snapshot,
    reading: { ok: true, series, errors: [], evaluatedAt: NOW.getTime() },
    recent: [],
    policy: policyNoWindows(),
    now: NOW,
  });
}

describe('a shadow Deployment with the same labels', () => {
  const SETS = [
    replicaSet('resnet50-infer-7d9f6c5b8', 'resnet50-infer'),
    replicaSet('resnet50-infer-shadow-5c4d8', 'resnet50-infer-shadow'),
  ];

  it.each([
    ['ReplicaSets read', SETS],
    ['no ReplicaSets (the Deployment controller’s naming)', undefined],
  ])('%s: the 93 % of its own two pods scales it up; the shadow’s pods are NotOwned', (_name, sets) => {
    const r = run([...OWN, ...SHADOW], sets);
    expect(r.decisions[0]).toMatchObject({
      action: 'scale-up',
      reason: 'AboveMax',
      utilization: 93,
      replicas: { from: 2, to: 3 },
    });
    expect(r.decisions[0]!.message).toContain('over 2 of 2 Ready pod(s)');
    expect(r.samples.map((s) => s.pod)).toEqual([
      'resnet50-infer-7d9f6c5b8-aaa0',
      'resnet50-infer-7d9f6c5b8-aaa1',
    ]);
    const notOwned = r.attribution.dropped.filter((d) => d.reason === 'NotOwned');
    expect(notOwned.map((d) => d.pod)).toEqual([
      'resnet50-infer-shadow-5c4d8-bbb0',
      'resnet50-infer-shadow-5c4d8-bbb1',
    ]);
    expect(notOwned[0]!.message).toContain(
      'pod carries gpuops.dev/algorithm=resnet50-infer but belongs to Deployment resnet50-infer-shadow (ReplicaSet resnet50-infer-shadow-5c4d8)',
    );
  });

  it('without the shadow (the neighbour) the same two pods decide the same', () => {
    expect(run(OWN, SETS).decisions[0]).toMatchObject({ action: 'scale-up', utilization: 93 });
  });

  it('a ReplicaSet named like the algorithm’s but owned by another Deployment is not its', () => {
    const copy = [pod('resnet50-infer-a1b2c-ccc0', 'resnet50-infer-a1b2c', 'a1b2c')];
    const r = run(
      [...OWN, ...copy],
      [...SETS, replicaSet('resnet50-infer-a1b2c', 'copy-of-resnet')],
      [...SERIES.slice(0, 2), util('resnet50-infer-a1b2c-ccc0', 5)],
    );
    expect(r.decisions[0]).toMatchObject({ action: 'scale-up', utilization: 93 });
    expect(r.samples.map((x) => x.pod)).not.toContain('resnet50-infer-a1b2c-ccc0');
    expect(r.attribution.dropped.find((d) => d.pod === 'resnet50-infer-a1b2c-ccc0')?.message).toContain(
      'belongs to Deployment copy-of-resnet (ReplicaSet resnet50-infer-a1b2c)',
    );
  });

  it('a benchmark Job’s pod with the algorithm’s labels is no replica and no sample', () => {
    const bench = pod('gpuops-bench-resnet50-infer-1-xyz', 'gpuops-bench-resnet50-infer-1', '', {
      kind: 'Job',
    });
    const r = run([...OWN, bench], SETS, [
      ...SERIES.slice(0, 2),
      util('gpuops-bench-resnet50-infer-1-xyz', 2),
    ]);
    expect(r.decisions[0]).toMatchObject({ action: 'scale-up', utilization: 93 });
    expect(r.attribution.dropped.find((d) => d.pod === 'gpuops-bench-resnet50-infer-1-xyz')).toMatchObject({
      reason: 'NotOwned',
      message: expect.stringContaining('belongs to Job gpuops-bench-resnet50-infer-1'),
    });
  });
});
