/**
 * An algorithm's observed start-up (pure): how long its replicas took from creation to Ready, as
 * the cluster recorded it (`metadata.creationTimestamp` → the Ready condition's
 * `lastTransitionTime`). It covers the image pull (none on a pre-staged node), the container's
 * start and the model's load, so it is what a scale-up waits for: the windows sized to the loop
 * read it (`loop-windows.ts`).
 */
import type { PodInfo } from '../cluster/index.js';
import { GPUOPS } from '../util/index.js';

/**
 * Which quantile of the start-ups stands for the algorithm: the 90th, nearest rank. A scale-up
 * waits for all of its pods, so a high one; not the highest, so that one pod delayed by a node's
 * cold cache does not set the windows of every pass after it.
 */
export const STARTUP_QUANTILE = 0.9;

/**
 * The start-up (seconds) of each pod that is Ready with a stated Ready time and a creation time
 * not after it; pods without them (not Ready, a hand-written dump) give none. Nor does a claimed
 * standby (label `gpuops.dev/claimed-from`, docs/standby.md): it was created and turned Ready as a
 * standby, long before the claim, so created → Ready is its age as a standby, not what a
 * scale-up waits for, and the pod records no claim time to time it from. Any pod carrying the
 * label is left out, the claim's uid unchecked: a start-up not read leaves the windows as they
 * were, one read wrongly would hold the loop's windows at the policy's.
 */
export function podStartups(pods: readonly PodInfo[]): number[] {
  const out: number[] = [];
  for (const p of pods) {
    if (!p.ready || !p.readyAt || p.labels[GPUOPS.claimedFrom] !== undefined) continue;
    const created = Date.parse(p.createdAt);
    const ready = Date.parse(p.readyAt);
    if (Number.isNaN(created) || Number.isNaN(ready) || ready < created) continue;
    out.push((ready - created) / 1000);
  }
  return out;
}

/**
 * The {@link STARTUP_QUANTILE} of `seconds` (nearest rank: the ⌈0.9·n⌉-th smallest), rounded up
 * to whole seconds; null when there is none (not observed: the policy's windows stand).
 */
export function observedStartup(seconds: readonly number[]): number | null {
  if (seconds.length === 0) return null;
  const sorted = [...seconds].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(STARTUP_QUANTILE * sorted.length));
  return Math.ceil(sorted[rank - 1]!);
}
