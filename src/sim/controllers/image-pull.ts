/**
 * The simulated kubelet's image pulls: a container image that is not on the node yet takes
 * `imagePullSeconds` to pull before the pod's containers start, one image after another (the
 * kubelet's default `serializeImagePulls: true`); an image on the node (`status.images`, as a
 * real kubelet reports the images it holds) takes none. Once a pod started, its images are on its
 * node. So a node that a pre-pull DaemonSet's pod staged (`manifests/prepull.ts`: init containers
 * that pull the pool's images and exit) starts a replica without the pull.
 *
 * The pull time is fixed when the kubelet first sees the pod bound (the annotation
 * {@link IMAGE_PULL_ANNOTATION}), so a pull another pod finishes meanwhile does not shorten it.
 */
import type { KubeObject } from '../types.js';

/** Pod annotation the simulated kubelet writes: the seconds its images take to pull on its node. */
export const IMAGE_PULL_ANNOTATION = 'sim.gpuops.dev/image-pull-seconds';

interface NodeImage {
  names?: string[];
  sizeBytes?: number;
}

/** The distinct images of a pod's init and app containers, in order. */
export function podImages(pod: KubeObject): string[] {
  const specs = [
    ...((pod.spec?.initContainers as { image?: string }[] | undefined) ?? []),
    ...((pod.spec?.containers as { image?: string }[] | undefined) ?? []),
  ];
  return [...new Set(specs.map((c) => c.image).filter((i): i is string => !!i))];
}

/** The images a node holds (`status.images[].names`). */
export function nodeImages(node: KubeObject): Set<string> {
  const out = new Set<string>();
  for (const i of (node.status?.images as NodeImage[] | undefined) ?? [])
    for (const n of i.names ?? []) out.add(n);
  return out;
}

/**
 * Seconds the pod's images take to pull on `node`: from its annotation when the kubelet wrote one,
 * else `imagePullSeconds` × the images the node does not hold, written to the annotation (the pod
 * is the kubelet's working copy). 0 seconds per image: 0, and no annotation.
 */
export function pullSeconds(pod: KubeObject, node: KubeObject, imagePullSeconds: number): number {
  const noted = Number(pod.metadata.annotations?.[IMAGE_PULL_ANNOTATION]);
  if (Number.isFinite(noted) && pod.metadata.annotations?.[IMAGE_PULL_ANNOTATION] !== undefined) return noted;
  if (imagePullSeconds <= 0) return 0;
  const held = nodeImages(node);
  const seconds = podImages(pod).filter((i) => !held.has(i)).length * imagePullSeconds;
  pod.metadata.annotations = {
    ...(pod.metadata.annotations ?? {}),
    [IMAGE_PULL_ANNOTATION]: String(seconds),
  };
  return seconds;
}

/** `node` with the pod's images added to `status.images` (a copy), or null when it holds them all. */
export function withImages(node: KubeObject, pod: KubeObject): KubeObject | null {
  const held = nodeImages(node);
  const missing = podImages(pod).filter((i) => !held.has(i));
  if (missing.length === 0) return null;
  const copy = structuredClone(node);
  const status = (copy.status ??= {});
  status.images = [
    ...((status.images as NodeImage[] | undefined) ?? []),
    ...missing.map((m) => ({ names: [m], sizeBytes: 0 })),
  ];
  return copy;
}
