/**
 * Which GPUs of a node each pod holds, as the NVIDIA device plugin would hand them out: a pod
 * keeps the indices recorded in its annotation {@link GPU_INDICES_ANNOTATION} (the simulated
 * kubelet writes it when it starts the pod); pods without one (e.g. from a cluster dump) get the
 * lowest free indices, in creation order then namespace/name. Deterministic for equal input.
 */
import type { KubeObject } from '../types.js';
import { byCreation, holdsResources, podGpus } from '../controllers/pods.js';

/** Pod annotation with the GPU indices the simulated device plugin gave it, e.g. `"0,1"`. */
export const GPU_INDICES_ANNOTATION = 'sim.gpuops.dev/gpu-indices';

/** Parses the annotation; undefined when absent or malformed. */
export function recordedIndices(pod: KubeObject): number[] | undefined {
  const text = pod.metadata.annotations?.[GPU_INDICES_ANNOTATION];
  if (typeof text !== 'string' || !/^\d+(,\d+)*$/.test(text)) return undefined;
  return text.split(',').map(Number);
}

/**
 * GPU index → pod for one node with `gpuCount` GPUs. `pods` may hold any pods; only live pods
 * bound to `nodeName` with a GPU request count. A pod that asks for more GPUs than remain gets
 * what is left (an overcommitted dump), never an index twice.
 */
export function assignGpus(
  nodeName: string,
  gpuCount: number,
  pods: readonly KubeObject[],
): Map<number, KubeObject> {
  const holders = pods
    .filter((p) => p.spec?.nodeName === nodeName && holdsResources(p) && podGpus(p) > 0)
    .sort(byCreation);
  const out = new Map<number, KubeObject>();
  const unplaced: KubeObject[] = [];
  for (const pod of holders) {
    const want = podGpus(pod);
    const rec = recordedIndices(pod);
    if (rec && rec.length === want && rec.every((i) => i < gpuCount && !out.has(i)))
      for (const i of rec) out.set(i, pod);
    else unplaced.push(pod);
  }
  for (const pod of unplaced) {
    let want = podGpus(pod);
    for (let i = 0; i < gpuCount && want > 0; i++) {
      if (out.has(i)) continue;
      out.set(i, pod);
      want--;
    }
  }
  return out;
}

/** Lowest `count` indices of a node not held by any of `pods` (for a pod about to start). */
export function freeIndices(
  nodeName: string,
  gpuCount: number,
  pods: readonly KubeObject[],
  count: number,
): number[] {
  const taken = assignGpus(nodeName, gpuCount, pods);
  const out: number[] = [];
  for (let i = 0; i < gpuCount && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}
