/**
 * Whether a replica fits on a node, as kube-scheduler's `NodeResourcesFit` filter and its pod
 * count judge it (pure): every resource the pod requests must fit in what the node has left —
 * `nvidia.com/gpu`, cpu, memory — and one more pod must fit under `status.allocatable.pods`
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/,
 * https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-requests-are-scheduled).
 * A free GPU on a node with no cpu left is no room for a replica.
 */
import type { V1PodSpec } from '@kubernetes/client-node';
import {
  cpuMemoryRequest,
  effectiveRequest,
  otherRequests,
  type CpuMemory,
  type NodeResources,
} from '../cluster/requests.js';
import { parseQuantity } from '../cluster/quantity.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { NVIDIA, VENDORS, vendorById } from '../util/index.js';

/**
 * What one replica asks of its node: whole GPUs (≥ 1), cpu in millicores, memory in bytes, and
 * every other resource it requests (`ephemeral-storage`, `hugepages-*` in bytes, extended
 * resources as counts; absent: none).
 */
export interface PodRequest extends CpuMemory {
  gpus: number;
  /** The vendor GPU resource the GPUs are (`nvidia.com/gpu`, `amd.com/gpu`); absent: `nvidia.com/gpu`. */
  gpuResource?: string;
  other?: Record<string, number>;
}

/** What a node has left for new pods: whole GPUs, and cpu/memory/pod slots (each may be < 0 when over-committed). */
export interface NodeRoom {
  freeGpus: number;
  /** The vendor GPU resource its GPUs are advertised as; absent: `nvidia.com/gpu`. */
  gpuResource?: string;
  /** `status.allocatable` cpu, memory, pods minus what the pods bound there and not finished request. */
  free: NodeResources;
}

/**
 * The request of one replica of `algorithm` as gpuops renders it (`spec.resources`: gpus, and the
 * cpu / memory quantities parsed by client-node's `quantityToScalar`, `parseQuantity`), when the
 * Deployment's own pod template is not at hand. cpu is rounded to whole millicores, memory up to
 * whole bytes, as `cpuMemoryRequest` does for a pod.
 * @throws QuantityError when `cpu` or `memory` is no quantity (the Algorithm schema rejects such a spec first)
 */
export function specRequest(algorithm: Pick<ResolvedAlgorithm, 'spec'>): PodRequest {
  const r = algorithm.spec.resources;
  const vendor = vendorById(algorithm.spec.gpu?.vendor);
  return {
    gpus: Math.max(1, r.gpus),
    ...(vendor === NVIDIA ? {} : { gpuResource: vendor.resource }),
    cpuMillis: r.cpu ? Math.round(parseQuantity(r.cpu) * 1000) : 0,
    memoryBytes: r.memory ? Math.ceil(parseQuantity(r.memory)) : 0,
  };
}

/**
 * How many replicas of `request` fit on a node with `room` left: the smallest of free GPUs ÷ gpus,
 * free cpu ÷ cpu, free memory ÷ memory (a resource the pod does not request never limits it, as
 * the filter skips it) and free pod slots; never below 0. Exactly enough is a fit. GPUs of
 * another vendor's resource are none of the pod's (an `amd.com/gpu` pod on an NVIDIA node:
 * `Insufficient amd.com/gpu`), so 0 fit there.
 */
export function replicasThatFit(room: NodeRoom, request: PodRequest): number {
  let n = Math.floor(freeGpusFor(room, request) / Math.max(1, request.gpus));
  if (request.cpuMillis > 0) n = Math.min(n, Math.floor(room.free.cpuMillis / request.cpuMillis));
  if (request.memoryBytes > 0) n = Math.min(n, Math.floor(room.free.memoryBytes / request.memoryBytes));
  for (const [r, v] of Object.entries(request.other ?? {}))
    if (v > 0) n = Math.min(n, Math.floor(otherFree(room, r) / v));
  n = Math.min(n, room.free.pods);
  return Math.max(0, n);
}

/** The node's free GPUs of the pod's GPU resource: 0 when its GPUs are another vendor's. */
function freeGpusFor(room: NodeRoom, request: PodRequest): number {
  const nodeHas = room.gpuResource ?? NVIDIA.resource;
  return nodeHas === (request.gpuResource ?? NVIDIA.resource) ? room.freeGpus : 0;
}

/**
 * What a node has left of one resource of `other`: a node that reports room but not this
 * resource has none of it (the filter's rule); a record without any room (`UNKNOWN_ROOM`) is
 * unbounded.
 */
function otherFree(room: NodeRoom, resource: string): number {
  if (room.free.pods === Infinity) return Infinity;
  return room.free.other?.[resource] ?? 0;
}

/**
 * Why one replica does not fit, in kube-scheduler's words (`Too many pods`, `Insufficient cpu`,
 * `Insufficient memory`, `Insufficient nvidia.com/gpu`, in the order the filter checks them), or
 * `[]` when it fits.
 */
export function insufficient(room: NodeRoom, request: PodRequest): string[] {
  const out: string[] = [];
  if (room.free.pods < 1) out.push('Too many pods');
  if (request.cpuMillis > 0 && room.free.cpuMillis < request.cpuMillis) out.push('Insufficient cpu');
  if (request.memoryBytes > 0 && room.free.memoryBytes < request.memoryBytes) out.push('Insufficient memory');
  for (const [r, v] of Object.entries(request.other ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))
    if (v > 0 && otherFree(room, r) < v) out.push(`Insufficient ${r}`);
  if (freeGpusFor(room, request) < Math.max(1, request.gpus))
    out.push(`Insufficient ${request.gpuResource ?? NVIDIA.resource}`);
  return out;
}

/** `count` replicas of `request` taken from `room`: a new room (the argument is not changed). */
export function takeRoom<T extends NodeRoom>(room: T, request: PodRequest, count: number): T {
  const free: NodeRoom['free'] = {
    cpuMillis: room.free.cpuMillis - count * request.cpuMillis,
    memoryBytes: room.free.memoryBytes - count * request.memoryBytes,
    pods: room.free.pods - count,
  };
  if (room.free.other !== undefined || request.other !== undefined) {
    const other = { ...room.free.other };
    for (const [r, v] of Object.entries(request.other ?? {})) other[r] = (other[r] ?? 0) - count * v;
    free.other = other;
  }
  return { ...room, freeGpus: Math.max(0, room.freeGpus - count * request.gpus), free };
}

/**
 * The request of one replica from a pod template's `spec` (a Deployment's in Git, parsed YAML):
 * the effective requests of every resource by the init-container and sidecar rule
 * (`effectiveRequest`), GPUs at least 1; null when it names no container (a template gpuops did
 * not render; the spec's `resources` then stand in). A quantity that cannot be read counts 0.
 */
export function templateRequest(spec: unknown): PodRequest | null {
  const podSpec = spec as V1PodSpec | undefined;
  if (!Array.isArray(podSpec?.containers) || podSpec.containers.length === 0) return null;
  const { cpuMillis, memoryBytes } = cpuMemoryRequest({ spec: podSpec }, readQuantity);
  const other = otherRequests(podSpec, readQuantity);
  const gpu = templateGpus(podSpec);
  return {
    gpus: Math.max(1, gpu.gpus),
    ...(gpu.resource === NVIDIA.resource ? {} : { gpuResource: gpu.resource }),
    cpuMillis,
    memoryBytes,
    ...(other ? { other } : {}),
  };
}

/** A quantity of a parsed template; one that cannot be read counts 0 (validation reports it). */
function readQuantity(q: string): number {
  try {
    return parseQuantity(q);
  } catch {
    return 0;
  }
}

/** The GPUs a template asks and of which vendor's resource (the first it asks; none: NVIDIA's, 0). */
function templateGpus(spec: V1PodSpec | undefined): { gpus: number; resource: string } {
  for (const v of VENDORS) {
    const gpus = Array.isArray(spec?.containers)
      ? Math.ceil(effectiveRequest(spec, v.resource, readQuantity))
      : 0;
    if (gpus > 0) return { gpus, resource: v.resource };
  }
  return { gpus: 0, resource: NVIDIA.resource };
}

/** A request as messages show it: `1 GPU, 4 cpu, 16Gi` (cpu in cores, memory in Gi/Mi, only what it asks). */
export function describeRequest(request: PodRequest): string {
  const parts = [`${request.gpus} GPU${request.gpus === 1 ? '' : 's'}`];
  if (request.cpuMillis > 0)
    parts.push(`${request.cpuMillis % 1000 === 0 ? request.cpuMillis / 1000 : `${request.cpuMillis}m`} cpu`);
  if (request.memoryBytes > 0) parts.push(bytes(request.memoryBytes));
  for (const [r, v] of Object.entries(request.other ?? {}))
    parts.push(`${r.endsWith('storage') || r.startsWith('hugepages-') ? bytes(v) : v} ${r}`);
  return parts.join(', ');
}

function bytes(b: number): string {
  if (b % 2 ** 30 === 0) return `${b / 2 ** 30}Gi`;
  if (b % 2 ** 20 === 0) return `${b / 2 ** 20}Mi`;
  return `${b} bytes`;
}

/** Whole GPUs a pod template's `spec` requests, of any vendor (effective request; 0: none, or no template gpuops rendered). */
export function effectiveGpus(spec: unknown): number {
  return templateGpus(spec as V1PodSpec | undefined).gpus;
}
