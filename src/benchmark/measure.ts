import type { ContainerView } from '../cluster/index.js';

/** A measured run time and where it came from. */
export interface Measurement {
  /** Seconds. */
  seconds: number;
  source: 'termination-message' | 'container-timestamps';
}

/**
 * Reads `{"durationSeconds": N}` from a termination message (the whole message, or else its last
 * line that is such an object — `FallbackToLogsOnError` may put a log tail there). Returns null
 * when there is none or N is not a finite number ≥ 0.
 */
export function durationFromMessage(message: string | null): number | null {
  if (!message) return null;
  const candidates = [message.trim(), ...message.trim().split('\n').reverse()];
  for (const text of candidates) {
    if (!text.startsWith('{')) continue;
    try {
      const v = (JSON.parse(text) as { durationSeconds?: unknown }).durationSeconds;
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
    } catch {
      // not JSON: try the next candidate
    }
  }
  return null;
}

/**
 * The run time of a terminated benchmark container: the termination message's `durationSeconds`
 * when present (the program timed itself), else `finishedAt − startedAt` of the container, so
 * scheduling and image pull are not counted (Kubernetes timestamps have whole-second resolution).
 * Returns null when neither is usable.
 */
export function measureContainer(c: ContainerView): Measurement | null {
  const fromMessage = durationFromMessage(c.message);
  if (fromMessage !== null) return { seconds: fromMessage, source: 'termination-message' };
  if (c.startedAt && c.finishedAt && c.finishedAt.getTime() >= c.startedAt.getTime()) {
    return {
      seconds: (c.finishedAt.getTime() - c.startedAt.getTime()) / 1000,
      source: 'container-timestamps',
    };
  }
  return null;
}
