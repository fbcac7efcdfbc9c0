import type { AlgorithmSpec, Pool, PolicySpec } from '../spec/types.js';

/** Node label of GPU Feature Discovery that names the GPU model, e.g. `NVIDIA-A100-SXM4-80GB`. */
export const GPU_PRODUCT_LABEL = 'nvidia.com/gpu.product';
/** Extended resource of the NVIDIA device plugin: whole GPUs. */
export const GPU_RESOURCE = 'nvidia.com/gpu';

/** A Kubernetes toleration (`PodSpec.tolerations[]`). */
export interface Toleration {
  key: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/**
 * Where a pod of a pool may run: a `nodeSelector` on the pool label (plus the GPU product when
 * given) and the tolerations it needs there:
 * - the GPU taint `nvidia.com/gpu:NoSchedule` that GPU node groups carry (GKE, EKS and the NVIDIA
 *   GPU Operator all use the key `nvidia.com/gpu`), tolerated with `Exists` whatever its value;
 * - the pool taint `<labelKey>=<pool>:<effect>` that gpuops puts on pool nodes when
 *   `pools.taint.enabled` (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
 *   The toleration is emitted even while the taint is disabled, so turning the taint on never
 *   evicts or strands a workload.
 */
export function poolScheduling(
  pool: Pool,
  policy: PolicySpec,
  gpuProduct?: string | null,
): { nodeSelector: Record<string, string>; tolerations: Toleration[] } {
  const nodeSelector: Record<string, string> = { [policy.pools.labelKey]: pool };
  if (gpuProduct) nodeSelector[GPU_PRODUCT_LABEL] = gpuProduct;
  return {
    nodeSelector,
    tolerations: [
      { key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' },
      { key: policy.pools.labelKey, operator: 'Equal', value: pool, effect: policy.pools.taint.effect },
    ],
  };
}

/**
 * Container resources of an algorithm: `nvidia.com/gpu`, `cpu` and `memory` as both requests
 * and limits. Extended resources such as GPUs must have request = limit
 * (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/); equal cpu/memory make the pod
 * Guaranteed QoS, which keeps a GPU job from being evicted first under node pressure.
 */
export function containerResources(resources: AlgorithmSpec['resources']): {
  requests: Record<string, string>;
  limits: Record<string, string>;
} {
  const r: Record<string, string> = { [GPU_RESOURCE]: String(resources.gpus) };
  if (resources.cpu !== undefined) r.cpu = resources.cpu;
  if (resources.memory !== undefined) r.memory = resources.memory;
  return { requests: { ...r }, limits: { ...r } };
}

/** `env` of a container, or undefined when the spec has none (so the field is left out). */
export function containerEnv(env: AlgorithmSpec['env']): { name: string; value: string }[] | undefined {
  return env && env.length > 0 ? env.map((e) => ({ name: e.name, value: e.value })) : undefined;
}
