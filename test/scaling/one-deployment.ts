/**
 * One algorithm's scaling rule, fed as the pass feeds it: resnet50-infer (1 GPU, 1..6 replicas,
 * band 30–80 %) in pool short-task, its replicas Running and Ready on one 8-GPU node `gpu-s1`,
 * every replica's DCGM_FI_DEV_GPU_UTIL at one value 5 s before `now`. The tests on what holds
 * scaling (another autoscaler, a refused replica) change only what they are about.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { buildSnapshot, type ReplicaSetInput } from '../../src/cluster/snapshot.js';
import type { AutoscalerInfo } from '../../src/cluster/types.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

export const NOW = new Date('2026-03-01T10:00:00Z');

export const RESNET: ResolvedAlgorithm = {
  name: 'resnet50-infer',
  namespace: 'algorithms',
  spec: { image: 'registry.example.com/ml/resnet50:1.4.2', resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 6, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 1, timeoutSeconds: 1800 },
  placement: 'short-task',
  source: { file: 'algorithms/resnet50-infer.yaml', line: 1 },
};

/** A Running, Ready replica of resnet50-infer on gpu-s1, controlled by ReplicaSet resnet50-infer-7d9f6c5b8. */
export const replica = (name: string): V1Pod =>
  ({
    metadata: {
      name,
      namespace: 'algorithms',
      uid: name,
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' },
      ownerReferences: [
        {
          kind: 'ReplicaSet',
          name: 'resnet50-infer-7d9f6c5b8',
          apiVersion: 'apps/v1',
          uid: 'rs',
          controller: true,
        },
      ],
      creationTimestamp: new Date('2026-03-01T08:00:00Z'),
    },
    spec: {
      nodeName: 'gpu-s1',
      containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  }) as V1Pod;

/** What a test changes; `replicas` is the Deployment's `spec.replicas`, `utilization` in %. */
export interface OneDeployment {
  policy: Policy;
  pods: V1Pod[];
  replicas: number;
  utilization: number;
  autoscalers?: AutoscalerInfo[];
  replicaSets?: ReplicaSetInput[];
  /** The HorizontalPodAutoscaler gpuops wrote (engine `hpa`), as the pass reads its status. */
  hpa?: { currentReplicas: number; desiredReplicas: number; maxReplicas: number } | null;
}

/** The rule's one decision for resnet50-infer. */
export function decideOne(o: OneDeployment): ScalingDecision {
  const node = {
    metadata: {
      name: 'gpu-s1',
      labels: { 'gpuops.dev/pool': 'short-task', 'nvidia.com/gpu.product': 'Tesla-T4' },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      allocatable: { 'nvidia.com/gpu': '8' },
      capacity: { 'nvidia.com/gpu': '8' },
    },
  };
  const built = buildSnapshot([node], o.pods, NOW, {}, o.replicaSets);
  const snapshot = o.autoscalers ? { ...built, autoscalers: o.autoscalers } : built;
  return decideScaling({
    algorithms: [
      {
        algorithm: RESNET,
        pool: 'short-task',
        replicas: o.replicas,
        ...(o.hpa !== undefined ? { hpa: o.hpa } : {}),
      },
    ],
    snapshot,
    reading: {
      ok: true,
      errors: [],
      evaluatedAt: NOW.getTime(),
      series: o.pods.map((p, i) => ({
        metric: 'DCGM_FI_DEV_GPU_UTIL',
        labels: {
          gpu: '0',
          UUID: `GPU-${i}`,
          Hostname: 'gpu-s1',
          namespace: 'algorithms',
          pod: p.metadata!.name!,
        },
        value: o.utilization,
        timestamp: NOW.getTime() - 5_000,
      })),
    },
    recent: [],
    policy: o.policy,
    now: NOW,
  }).decisions[0]!;
}
