/**
 * Pure rules that tell, from one pod of a benchmark Job, whether it was disrupted (a result of
 * the cluster, not of the benchmark) or could not start (an image or configuration error).
 */
import type { ContainerView, PodView } from '../cluster/index.js';
import { BENCHMARK_CONTAINER } from '../manifests/index.js';

/**
 * Why a failed pod is a disruption, or null when it is a real failure. A disruption is:
 * - the pod condition `DisruptionTarget=True` (set by the Eviction API, preemption, the taint
 *   manager and pod GC for a lost node; https://kubernetes.io/docs/concepts/workloads/pods/disruptions/#pod-disruption-conditions);
 * - pod `status.reason: Evicted` (the kubelet's node-pressure eviction on older clusters);
 * - the benchmark container terminated with exit code 137 (SIGKILL) and a reason other than
 *   `OOMKilled`: killed from outside, as a preempted or drained pod is.
 * `OOMKilled` is the benchmark's own failure (it needs more memory) and never a disruption.
 */
export function podDisruption(pod: PodView): string | null {
  const c = pod.conditions.find((x) => x.type === 'DisruptionTarget' && x.status === 'True');
  if (c) return `DisruptionTarget ${c.reason ?? ''}${c.message ? `: ${c.message}` : ''}`.trim();
  if (pod.reason === 'Evicted') return `Evicted${pod.message ? `: ${pod.message}` : ''}`;
  const b = benchmarkContainer(pod);
  if (b?.state === 'terminated' && b.exitCode === 137 && b.reason !== 'OOMKilled') {
    return `killed (exit code 137, ${b.reason ?? 'no reason'}; not OOMKilled)`;
  }
  return null;
}

/** The benchmark container's status in a pod, if the kubelet reported it. */
export function benchmarkContainer(pod: PodView): ContainerView | undefined {
  return pod.containers.find((c) => c.name === BENCHMARK_CONTAINER) ?? pod.containers[0];
}

/**
 * Waiting reasons of a container that cannot start without a change around it (kubelet
 * `images.ErrImagePull` & co. and `kuberuntime` `CreateContainerConfigError` & co.).
 * `ContainerCreating` and `PodInitializing` are normal progress and not listed.
 */
const START_ERRORS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'RegistryUnavailable',
  'InvalidImageName',
  'ImageInspectError',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PreStartHookError',
]);

/**
 * Start errors that only a change of the spec can fix: the image reference itself is malformed
 * (`InvalidImageName`). Every other start error has a cause a person can fix outside the spec
 * (a registry outage, a missing pull or config Secret), so the run is tried again later.
 */
const FINAL_START_ERRORS = new Set(['InvalidImageName']);

/** A container stuck before its start: the waiting reason, its message, and whether it is final. */
export interface StartError {
  reason: string;
  message: string | null;
  image: string | null;
  /** True when a new attempt at the same spec cannot succeed (see {@link FINAL_START_ERRORS}). */
  final: boolean;
}

/** The start error of a pod's benchmark container, or null when it is not waiting in one. */
export function startError(pod: PodView): StartError | null {
  const c = benchmarkContainer(pod);
  if (!c || c.state !== 'waiting' || !c.reason || !START_ERRORS.has(c.reason)) return null;
  return { reason: c.reason, message: c.message, image: c.image, final: FINAL_START_ERRORS.has(c.reason) };
}
