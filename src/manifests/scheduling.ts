import { gpuToleration, type Toleration } from '../cluster/taints.js';
import type { AlgorithmSpec, Pool, PolicySpec } from '../definitions/index.js';
import {
  isProductLabel,
  NVIDIA,
  VENDORS,
  vendorById,
  type AcceleratorVendor,
  byString,
} from '../util/index.js';

/**
 * Where a pod of a pool may run: a `nodeSelector` on the pool label (plus the GPU product when
 * given, on `vendor`'s product label) and the tolerations it needs there:
 * - the vendor's GPU taint that GPU node groups carry (`nvidia.com/gpu:NoSchedule`: GKE, EKS and
 *   the NVIDIA GPU Operator all use the key; `amd.com/gpu` for AMD's), tolerated with `Exists`
 *   whatever its value;
 * - the pool taint `<labelKey>=<pool>:<effect>` that gpuops puts on pool nodes when
 *   `pools.taint.enabled` (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
 *   The toleration is emitted even while the taint is disabled, so turning the taint on never
 *   evicts or strands a workload.
 */
export function poolScheduling(
  pool: Pool,
  policy: PolicySpec,
  gpuProduct?: string | null,
  vendor: AcceleratorVendor = NVIDIA,
): { nodeSelector: Record<string, string>; tolerations: Toleration[] } {
  const nodeSelector: Record<string, string> = { [policy.pools.labelKey]: pool };
  if (gpuProduct) nodeSelector[vendor.productLabel] = gpuProduct;
  return {
    nodeSelector,
    tolerations: [gpuToleration(vendor), poolToleration(pool, policy)],
  };
}

/** The toleration of the pool taint `<labelKey>=<pool>:<effect>` (see {@link poolScheduling}). */
function poolToleration(pool: Pool, policy: PolicySpec): Toleration {
  return { key: policy.pools.labelKey, operator: 'Equal', value: pool, effect: policy.pools.taint.effect };
}

/**
 * The tolerations of a pod that runs on the nodes of `pools` whatever their GPUs' vendor (a
 * standby set, the pre-pull DaemonSet): every vendor's GPU taint (`VENDORS`, in their order), then
 * each pool's taint, as {@link poolScheduling} tolerates them for one vendor.
 */
export function anyVendorTolerations(policy: PolicySpec, ...pools: Pool[]): Toleration[] {
  return [...VENDORS.map(gpuToleration), ...pools.map((pool) => poolToleration(pool, policy))];
}

/**
 * The required node affinity that keeps a pod on nodes of these GPU products (`vendor`'s product
 * label: GPU Feature Discovery's `nvidia.com/gpu.product In [...]`, the AMD node labeller's
 * `amd.com/gpu.product-name In [...]`; a run time holds only for the product it was
 * measured on), beside the pool's `nodeSelector`
 * (both must hold: https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity).
 * `requiredDuringSchedulingIgnoredDuringExecution`, so a label change never evicts a running pod.
 * Values sorted; undefined for no product (the field is left out).
 */
export function productAffinity(
  products: readonly string[] | undefined,
  vendor: AcceleratorVendor = NVIDIA,
): ProductAffinity | undefined {
  if (!products || products.length === 0) return undefined;
  const values = [...new Set(products)].sort(byString);
  return {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: vendor.productLabel, operator: 'In', values }] }],
      },
    },
  };
}

/** `PodSpec.affinity` with only the GPU product's required node affinity. */
export interface ProductAffinity {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: { matchExpressions: { key: string; operator: 'In'; values: string[] }[] }[];
    };
  };
}

/**
 * The GPU products a rendered pod's required node affinity allows (any vendor's product label `In`),
 * read back from a `PodSpec` as Git holds it; `[]` when it has none.
 */
export function affinityProducts(podSpec: unknown): string[] {
  const terms = (podSpec as { affinity?: Partial<ProductAffinity> } | undefined)?.affinity?.nodeAffinity
    ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!Array.isArray(terms)) return [];
  const out: string[] = [];
  for (const t of terms)
    for (const e of Array.isArray(t?.matchExpressions) ? t.matchExpressions : [])
      if (
        typeof e?.key === 'string' &&
        isProductLabel(e.key) &&
        e.operator === 'In' &&
        Array.isArray(e.values)
      )
        out.push(...e.values.filter((v): v is string => typeof v === 'string'));
  return [...new Set(out)].sort();
}

/**
 * Container resources of an algorithm: its vendor's GPU resource (`spec.gpu.vendor`:
 * `nvidia.com/gpu`, `amd.com/gpu`), `cpu` and `memory` as both requests
 * and limits. Extended resources such as GPUs must have request = limit
 * (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/); equal cpu/memory make the pod
 * Guaranteed QoS, which keeps a GPU job from being evicted first under node pressure.
 */
export function containerResources(
  resources: AlgorithmSpec['resources'],
  vendor: AcceleratorVendor = NVIDIA,
): {
  requests: Record<string, string>;
  limits: Record<string, string>;
} {
  const r: Record<string, string> = { [vendor.resource]: String(resources.gpus) };
  if (resources.cpu !== undefined) r.cpu = resources.cpu;
  if (resources.memory !== undefined) r.memory = resources.memory;
  return { requests: { ...r }, limits: { ...r } };
}

/** `env` of a container, or undefined when the spec has none (so the field is left out). */
export function containerEnv(env: AlgorithmSpec['env']): { name: string; value: string }[] | undefined {
  return env && env.length > 0 ? env.map((e) => ({ name: e.name, value: e.value })) : undefined;
}

/** The vendor an algorithm asks GPUs of (`spec.gpu.vendor`; absent: NVIDIA). */
export function algorithmVendor(spec: Pick<AlgorithmSpec, 'gpu'>): AcceleratorVendor {
  return vendorById(spec.gpu?.vendor);
}
