/**
 * What a benchmark pod is, in one place (pure): the pass (which test nodes run a benchmark now),
 * the status page and the fleet record (benchmarks in progress) and the utilisation watchlist
 * (pods that serve) all ask the same question.
 */
import type { PodInfo } from './types.js';

/**
 * A pod of a benchmark Job: labelled `app.kubernetes.io/managed-by: gpuops` and controlled by a
 * Job. gpuops runs no other Job, and its Deployments' pods are controlled by ReplicaSets.
 */
export function isBenchmarkPod(p: Pick<PodInfo, 'managed' | 'owner'>): boolean {
  return p.managed && p.owner?.kind === 'Job';
}

/**
 * A benchmark pod whose run is in progress: Pending or Running and not being deleted. A
 * Succeeded or Failed pod (its Job is kept until `ttlSecondsAfterFinished`) and a terminating one
 * hold no run, so they keep no test node in the test pool and are not shown as running.
 */
export function benchmarkInProgress(
  p: Pick<PodInfo, 'managed' | 'owner' | 'phase' | 'terminating'>,
): boolean {
  return isBenchmarkPod(p) && !p.terminating && (p.phase === 'Pending' || p.phase === 'Running');
}

/**
 * The nodes where a benchmark run is in progress ({@link benchmarkInProgress}, bound to a node),
 * in pod order, one entry per pod: the test nodes a pass must not release from the test pool.
 */
export function nodesRunningBenchmarks(pods: readonly PodInfo[]): string[] {
  return pods.filter((p) => benchmarkInProgress(p) && p.nodeName !== null).map((p) => p.nodeName!);
}
