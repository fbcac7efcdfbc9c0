/**
 * The HPA of the model (pure): the simulated HorizontalPodAutoscaler's recommendation
 * (`recommendReplicas`) and Kubernetes' default scaling behaviour (`applyBehavior`, scale-down
 * stabilisation 300 s), decided every 15 s tick as the simulator's HPA controller does.
 */
import { applyBehavior, defaultBehavior, recommendReplicas } from '../sim/index.js';

const START = Date.parse('2026-01-01T00:00:00Z');

/**
 * An HPA at `target` percent with `1..maxReplicas` replicas: `decide(t, replicas, ready, u)` at
 * `t` seconds, with `ready` Ready pods at `u` percent each (≥ 1 Ready pod), gives the replicas
 * it sets, and keeps the recommendations and events of the last 300 s.
 */
export function modelHpa(
  target: number,
  maxReplicas: number,
): (t: number, replicas: number, ready: number, u: number) => number {
  let recommendations: { atMs: number; replicas: number }[] = [];
  let events: { atMs: number; replicas: number }[] = [];
  const behavior = defaultBehavior(300);
  return (t, replicas, ready, u) => {
    const nowMs = START + t * 1000;
    const raw = Math.min(maxReplicas, Math.max(1, recommendReplicas(replicas, ready, u, target)));
    const applied = applyBehavior({
      nowMs,
      current: replicas,
      desired: raw,
      minReplicas: 1,
      maxReplicas,
      recommendations,
      events,
      behavior,
    });
    recommendations.push({ atMs: nowMs, replicas: raw });
    if (applied.replicas !== replicas) events.push({ atMs: nowMs, replicas: applied.replicas - replicas });
    const cut = nowMs - 300_000;
    recommendations = recommendations.filter((r) => r.atMs > cut);
    events = events.filter((e) => e.atMs > cut);
    return applied.replicas;
  };
}
