import type { PodInfo } from '../cluster/index.js';
import { isoMs } from './iso-ms.js';

/** A replica that is not Ready long past its start-up: left out of capacity and utilisation. */
export interface StuckPod {
  pod: PodInfo;
  /** Seconds since it started (`status.startTime`, or its creation while unbound). */
  ageSeconds: number;
}

/** The not-Ready replicas, split: still starting (capacity on its way) and stuck. */
export interface UnreadySplit {
  starting: PodInfo[];
  stuck: StuckPod[];
}

/**
 * Splits the not-Ready replicas among `counted` (pure): a pod that is not Ready, not `Unschedulable`
 * and not terminating is starting while its age is below `startupSeconds`
 * (`scaling.podStartupSeconds`), and stuck from the bound on — a readiness probe that keeps
 * failing, a CrashLoopBackOff, an image that never pulls. The age runs from `status.startTime`
 * (the kubelet accepted the pod; image pulls and model loading count), or from its creation while
 * it has none (not bound yet). The bound is exclusive, as the HPA's `cpu-initialization-period`
 * (default 5 min) is: the HPA judges a pod as initialising while `startTime + period` is after now
 * (`replica_calculator.go` groupPods; its `initial-readiness-delay`, 30 s, is the shorter grace
 * for a pod's first Ready transition). A time that cannot be read counts as starting (no evidence
 * of being stuck). Unschedulable and terminating pods are neither: they are not on their way.
 */
export function splitUnready(
  counted: readonly PodInfo[],
  nowMs: number,
  startupSeconds: number,
): UnreadySplit {
  const out: UnreadySplit = { starting: [], stuck: [] };
  for (const pod of counted) {
    if (pod.ready || pod.unschedulable || pod.terminating) continue;
    const since = startedMs(pod);
    const ageSeconds = (nowMs - since) / 1000;
    if (Number.isFinite(ageSeconds) && ageSeconds >= startupSeconds) out.stuck.push({ pod, ageSeconds });
    else out.starting.push(pod);
  }
  return out;
}

/** When a pod's start-up began (ms): `status.startTime`, else its creation; NaN when unreadable. */
export function startedMs(pod: Pick<PodInfo, 'startedAt' | 'createdAt'>): number {
  return isoMs(pod.startedAt ?? pod.createdAt);
}

/** Whole seconds as a message shows an age: `45 s`, `12 min`, `3.5 h`. */
function age(seconds: number): string {
  if (seconds < 120) return `${Math.floor(seconds)} s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}

/**
 * What a decision says of stuck replicas (empty when none): `2 replica(s) not Ready past the
 * start-up bound of 300 s, left out of capacity and utilisation: algorithms/x-1 (started 2 h ago), …`
 * (at most 3 named, then "and N more").
 */
export function stuckNote(stuck: readonly StuckPod[], startupSeconds: number): string {
  if (stuck.length === 0) return '';
  const named = stuck
    .slice(0, 3)
    .map((s) => `${s.pod.namespace}/${s.pod.name} (started ${age(s.ageSeconds)} ago)`)
    .join(', ');
  const more = stuck.length > 3 ? ` and ${stuck.length - 3} more` : '';
  return `${stuck.length} replica(s) not Ready past the start-up bound of ${startupSeconds} s, left out of capacity and utilisation: ${named}${more}`;
}
