import type { NodeInfo, Snapshot } from '../cluster/index.js';
import { gpuSharing } from '../cluster/snapshot.js';
import { freeWholeGpus } from '../pools/index.js';
import { describeRequest, insufficient, replicasThatFit, specRequest, type PodRequest } from './fit.js';
import type { NodeCapacity, ScalingInput } from './types.js';
import { NVIDIA, vendorById } from '../util/index.js';

/**
 * What every GPU node of a snapshot offers new pods (pure). Free GPUs = `allocatable` − GPUs
 * requested by ANY live pod bound to the node (managed or not; Pending-unbound, Succeeded and
 * Failed pods hold none), never below 0; free cpu, memory, pods and every other resource
 * (`ephemeral-storage`, extended resources) = `status.allocatable` − what those pods request
 * (`NodeInfo.requested`),  as kube-scheduler's NodeResourcesFit counts them (unbounded on a
 * record that reports none of them, see `UNKNOWN_ROOM`). A
 * node that is not Ready, is cordoned or carries an unreachable/not-ready taint (`schedulable:
 * false`) offers 0 GPUs: the scheduler would not place a pod there. Sorted by name.
 * `schedulable` is the pools' one rule of "taints that mean no new pods" (`noNewPodsTaints`), so
 * a node the Cluster Autoscaler or Karpenter is removing is never an unused node to move.
 */
export function nodeCapacity(snapshot: Pick<Snapshot, 'nodes' | 'pods'>): NodeCapacity[] {
  const requested = new Map<string, number>();
  for (const p of snapshot.pods) {
    if (p.nodeName === null || p.phase === 'Succeeded' || p.phase === 'Failed') continue;
    requested.set(p.nodeName, (requested.get(p.nodeName) ?? 0) + p.gpuRequest);
  }
  return snapshot.nodes
    .filter((n) => n.gpuAllocatable > 0 || n.gpuCapacity > 0)
    .map((n) => {
      const used = Math.max(n.gpuRequested, requested.get(n.name) ?? 0);
      const offers = n.ready && n.schedulable && !n.cordoned;
      return {
        node: n.name,
        pool: n.pool,
        gpuProduct: n.gpuProduct,
        // Another vendor's GPUs are advertised under its own resource (NVIDIA's: the default).
        ...(n.vendor && n.vendor !== NVIDIA.id ? { gpuResource: vendorById(n.vendor).resource } : {}),
        allocatableGpus: gpuSharing(n)?.physicalGpus ?? n.gpuAllocatable,
        // Shared (time-sliced / MPS) GPUs count per physical GPU: the pools' one rule.
        freeGpus: offers ? freeWholeGpus(n, used) : 0,
        free: reportsRoom(n)
          ? {
              cpuMillis: n.allocatable.cpuMillis - n.requested.cpuMillis,
              memoryBytes: n.allocatable.memoryBytes - n.requested.memoryBytes,
              pods: n.allocatable.pods - n.requested.pods,
              ...otherLeft(n),
            }
          : UNKNOWN_ROOM,
      };
    })
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/**
 * Room of a node whose record has no allocatable cpu, memory or pods at all: not a kubelet's
 * Node (which always reports them) but a hand-made record or a snapshot stored before they were
 * kept; only its GPUs limit it.
 */
const UNKNOWN_ROOM = { cpuMillis: Infinity, memoryBytes: Infinity, pods: Infinity };

/**
 * What is left of the node's other resources (`ephemeral-storage`, extended resources): its
 * allocatable minus what the pods bound there request; `{}` when it lists none and no pod asks.
 */
function otherLeft(n: NodeInfo): { other?: Record<string, number> } {
  const alloc = n.allocatable.other;
  const used = n.requested.other;
  if (alloc === undefined && used === undefined) return {};
  const other: Record<string, number> = { ...alloc };
  for (const [r, v] of Object.entries(used ?? {})) other[r] = (other[r] ?? 0) - v;
  return { other };
}

function reportsRoom(n: NodeInfo): boolean {
  return n.allocatable.cpuMillis > 0 || n.allocatable.memoryBytes > 0 || n.allocatable.pods > 0;
}

/** Replicas of `request` that fit on these nodes, each wholly on one node (`replicasThatFit`). */
export function podSlots(nodes: readonly NodeCapacity[], request: PodRequest): number {
  let slots = 0;
  for (const n of nodes) slots += replicasThatFit(n, request);
  return slots;
}

/** What one replica of the input's algorithm requests: `input.request`, else the spec's (`specRequest`). */
export function replicaRequest(input: Pick<ScalingInput, 'algorithm' | 'request'>): PodRequest {
  return input.request ?? specRequest(input.algorithm);
}

/**
 * The nodes whose free GPUs would take a replica but that take none (`why`: their cpu, memory or
 * pod slots by default; a placer's refusals, such as `node(s) didn't match pod anti-affinity
 * rules`), in the scheduler's words: ` (each 1 GPU, 4 cpu, 16Gi; gpu-s1: Insufficient cpu)`, the first three by name and "… and N
 * more"; `''` when no node is short of anything but GPUs (the message then needs no note).
 */
export function notGpuBoundNote(
  nodes: readonly NodeCapacity[],
  request: PodRequest,
  why: (node: NodeCapacity) => string[] = (n) => insufficient(n, request),
): string {
  const short = nodes
    .filter((n) => n.freeGpus >= request.gpus)
    .map((n) => [n.node, why(n)] as const)
    .filter(([, reasons]) => reasons.length > 0)
    .map(([node, reasons]) => `${node}: ${reasons.join(', ')}`)
    .sort();
  if (short.length === 0) return '';
  const more = short.length > 3 ? `; … and ${short.length - 3} more` : '';
  return ` (each ${describeRequest(request)}; ${short.slice(0, 3).join('; ')}${more})`;
}
