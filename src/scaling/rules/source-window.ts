import { downReplicas } from '../history.js';
import { hold, round1, type Facts, type Target, type Verdict } from './facts.js';

/**
 * Scale-down stabilisation judged from the source's own history (Prometheus's samples over the
 * window, read in the same query), when every sampled pod carries it; null sends the judgement to
 * the recorded passes (`recordedWindow`: direct dcgm-exporter scraping, one-instant answers) or,
 * with `scaleDown.stabilizationWindowSeconds` 0, nowhere. As the HPA's scale-down stabilisation
 * (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#stabilization-window,
 * default 300 s) takes the highest recommendation of the window, the window's highest utilisation
 * must be below `min`: the mean of each pod's highest sample, never lower than the highest mean,
 * so the judgement errs towards holding; exactly `min` is in band (`hold StabilizationWindow`).
 * The evidence must reach back the whole window: coverage of exactly the window counts (a
 * `query_range` starting at `end − window` has its first point on the boundary), one second less
 * or an unknown start holds. `why` opens the message. With `headroom` sizing the window's highest
 * load (Σ each pod's highest sample × GPUs per pod / 100) is sized as the rule sizes (see
 * `headroomWindow`).
 */
export function sourceWindow(f: Facts, t: Target, why: string): Verdict | Target | null {
  const seconds = f.scaling.scaleDown.stabilizationWindowSeconds;
  if (seconds <= 0 || !f.sampled.every((x) => x.window)) return null;
  const covered = f.sampled.map((x) => x.window!.coveredSeconds);
  if (covered.some((c) => c === null || c < seconds)) {
    const known = covered.filter((c): c is number => c !== null);
    const least =
      known.length < covered.length ? 'less than the window' : `${Math.floor(Math.min(...known))}s`;
    return hold(
      f,
      'StabilizationWindow',
      `${why}; the source's samples reach back ${least} of the ${seconds}s scale-down stabilisation window; waits until they cover it`,
    );
  }
  if (f.scaling.sizing === 'headroom') return headroomWindow(f, t, why, seconds);
  const highest = f.sampled.reduce((a, x) => a + x.window!.max, 0) / f.sampled.length;
  if (highest >= f.min) {
    return hold(
      f,
      'StabilizationWindow',
      `${why}; the highest utilisation in the last ${seconds}s is ${round1(highest)}% ≥ min ${f.min}% (scale-down stabilisation window)`,
    );
  }
  return {
    ...t,
    because: `, and below it for the whole ${seconds}s stabilisation window (highest ${round1(highest)}% in the source's samples)`,
  };
}

/**
 * Headroom sizing's scale-down window: the replicas the window's highest load needs
 * (`downReplicas` of Σ each pod's highest sample), the HPA's "highest recommendation of the
 * window": at β + `headroomDownMargin` when the mean of the pods' highest samples is at or above
 * `min`, below it at most the band's edge (`downReplicas`, as a scale-down is sized now). At or above the current count → `hold StabilizationWindow`; else the target rises to
 * it when the window asks for more than `t.to` (the note says so).
 */
function headroomWindow(f: Facts, t: Target, why: string, seconds: number): Verdict | Target {
  const highest = f.sampled.reduce((a, x) => a + x.window!.max, 0);
  const load = (highest * f.gpus) / 100;
  const need = downReplicas(load, highest / f.sampled.length, f.bounds);
  const peak = `the highest load in the last ${seconds}s (${round1(load)} GPU(s) in the source's samples) needs ${need}`;
  if (need >= f.from)
    return hold(f, 'StabilizationWindow', `${why}; ${peak} (scale-down stabilisation window)`);
  return need > t.to ? { ...t, to: need, note: ` (not ${t.to}: ${peak})` } : t;
}
