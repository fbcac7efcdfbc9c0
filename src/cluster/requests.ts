/**
 * What a pod asks of its node, by the rules kube-scheduler's `NodeResourcesFit` filter uses
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/, and
 * "Resource sharing within containers",
 * https://kubernetes.io/docs/concepts/workloads/pods/init-containers/#resource-sharing-within-containers).
 * Pure: the caller parses quantities (`parseQuantity` of `quantity.ts`) and reports bad ones.
 */
import type { V1Container, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { VENDORS } from '../util/index.js';

/** cpu in millicores, memory in bytes: what the scheduler adds up per node. */
export interface CpuMemory {
  /** Millicores (`500m` → 500, `4` → 4000). */
  cpuMillis: number;
  /** Bytes (`16Gi` → 17179869184). */
  memoryBytes: number;
}

/** A node's `status.allocatable` (or what the pods bound to it request) in the scheduler's units. */
export interface NodeResources extends CpuMemory {
  /** Pods: `status.allocatable.pods`, or the number of pods bound there. */
  pods: number;
  /**
   * Every other resource but `nvidia.com/gpu` (kept apart, see `NodeInfo.gpuAllocatable`):
   * `ephemeral-storage` and `hugepages-*` in bytes, extended resources as counts; absent when
   * none (and in snapshots stored before they were kept).
   */
  other?: Record<string, number>;
}

/** Resources a pod's requests are kept apart from `other`: cpu, memory (`CpuMemory`) and whole GPUs of every vendor. */
const OWN_FIELDS = new Set(['cpu', 'memory', 'pods', ...VENDORS.map((v) => v.resource)]);

/** Parses one quantity to the resource's base unit; reports and returns 0 when it is no quantity. */
export type QuantityReader = (text: string, field: string) => number;

/** `resources.requests[name]`, else `resources.limits[name]` (the API server defaults a missing request to the limit). */
function containerAmount(c: V1Container, resource: string, read: QuantityReader, where: string): number {
  const q = c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource];
  if (q === undefined || q === null || q === '') return 0;
  return read(String(q), `${where}container ${c.name}: resources.requests["${resource}"]`);
}

/**
 * The effective request of one resource of a pod spec (a Pod's, or a Deployment's pod template's):
 * sidecar init containers (`restartPolicy: Always`, KEP-753) keep running, so they add to the app
 * containers' sum and to every init container started after them:
 * `max(Σ app + Σ sidecars, max over regular init i of (init_i + sidecars started before i))`,
 * plus `spec.overhead[resource]` (Pod overhead, RuntimeClass). A container's request defaults to
 * its limit. In the resource's base unit (GPUs, cores, bytes).
 */
export function effectiveRequest(
  spec: V1PodSpec | undefined,
  resource: string,
  read: QuantityReader,
  where = '',
): number {
  let sidecars = 0;
  let initPeak = 0;
  for (const c of spec?.initContainers ?? []) {
    const r = containerAmount(c, resource, read, where);
    if (c.restartPolicy === 'Always') {
      sidecars += r;
      initPeak = Math.max(initPeak, sidecars);
    } else {
      initPeak = Math.max(initPeak, sidecars + r);
    }
  }
  let app = 0;
  for (const c of spec?.containers ?? []) app += containerAmount(c, resource, read, where);
  const overhead = spec?.overhead?.[resource];
  const extra =
    overhead === undefined || overhead === null || overhead === ''
      ? 0
      : read(String(overhead), `${where}spec.overhead["${resource}"]`);
  return Math.max(initPeak, app + sidecars) + extra;
}

/**
 * The cpu and memory a pod (or pod template) requests, as the scheduler sums them: cpu rounded to
 * whole millicores (the finest cpu unit Kubernetes keeps), memory rounded up to whole bytes.
 */
export function cpuMemoryRequest(pod: Pick<V1Pod, 'spec'>, read: QuantityReader, where = ''): CpuMemory {
  return {
    cpuMillis: Math.round(effectiveRequest(pod.spec, 'cpu', read, where) * 1000),
    memoryBytes: Math.ceil(effectiveRequest(pod.spec, 'memory', read, where)),
  };
}

/**
 * The effective requests of every resource but cpu, memory and `nvidia.com/gpu` (those have their
 * own fields): `ephemeral-storage`, `hugepages-*`, extended resources, by the same rule as
 * {@link effectiveRequest}, in base units (bytes, counts). Undefined when the pod asks for none, so
 * most pods carry nothing.
 */
export function otherRequests(
  spec: V1PodSpec | undefined,
  read: QuantityReader,
  where = '',
): Record<string, number> | undefined {
  const names = new Set<string>();
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
    for (const r of Object.keys(c.resources?.requests ?? {})) names.add(r);
    for (const r of Object.keys(c.resources?.limits ?? {})) names.add(r);
  }
  for (const r of Object.keys(spec?.overhead ?? {})) names.add(r);
  let out: Record<string, number> | undefined;
  for (const r of [...names].sort()) {
    if (OWN_FIELDS.has(r)) continue;
    const v = effectiveRequest(spec, r, read, where);
    if (v > 0) (out ??= {})[r] = v;
  }
  return out;
}

/**
 * Allocatable of every resource but cpu, memory, pods and `nvidia.com/gpu` (a Node's
 * `status.allocatable`), in base units; undefined when it lists none.
 */
export function otherAllocatable(
  allocatable: Record<string, string> | undefined,
  read: (q: string, resource: string) => number,
): Record<string, number> | undefined {
  let out: Record<string, number> | undefined;
  for (const [r, q] of Object.entries(allocatable ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (OWN_FIELDS.has(r)) continue;
    (out ??= {})[r] = read(q, r);
  }
  return out;
}
