/**
 * The samples of an algorithm's Ready replicas (pure), as the scaling facts read them
 * (`rules/facts.ts`) and as a pool's summed load reads them alone (`decide-in-turn.ts`).
 */
import type { PodInfo } from '../../cluster/index.js';
import { replicaRequest } from '../capacity.js';
import { countedPods } from '../counted-pods.js';
import type { PodSample, ScalingInput } from '../types.js';

/**
 * The samples of the Ready replicas of `input` (`Facts.sampled`, in the same order) and the GPUs
 * per pod (`Facts.gpus`), derived as `scalingFacts` derives them, without the rest of the
 * facts (the clock, the records, the texts): what a pool's summed load reads of each algorithm.
 */
export function sampledFacts(
  input: Pick<ScalingInput, 'algorithm' | 'request' | 'pods' | 'replicas' | 'currentReplicaSet' | 'samples'>,
): { sampled: PodSample[]; gpus: number } {
  const counted = countedPods(input.pods, input.replicas, input.currentReplicaSet ?? null);
  return {
    sampled: readySamples(
      counted.filter((p) => p.ready),
      input.samples,
    ),
    gpus: replicaRequest(input).gpus,
  };
}

/** The samples of the Ready pods (matched by namespace and name), in `ready`'s order; a pod without one is left out. */
export function readySamples(ready: readonly PodInfo[], samples: readonly PodSample[]): PodSample[] {
  // By namespace, then name (the last sample of a pod wins): no key string built per pod and pass.
  const byNamespace = new Map<string, Map<string, PodSample>>();
  for (const x of samples) {
    let byName = byNamespace.get(x.namespace);
    if (byName === undefined) byNamespace.set(x.namespace, (byName = new Map()));
    byName.set(x.pod, x);
  }
  const out: PodSample[] = [];
  for (const p of ready) {
    const x = byNamespace.get(p.namespace)?.get(p.name);
    if (x !== undefined) out.push(x);
  }
  return out;
}
