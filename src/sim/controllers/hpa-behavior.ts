/**
 * The HorizontalPodAutoscaler's scaling behaviour (autoscaling/v2 `spec.behavior`), pure, as
 * kube-controller-manager applies it (pkg/controller/podautoscaler/horizontal.go,
 * `stabilizeRecommendationWithBehaviors` and `convertDesiredReplicasWithBehaviorRate`;
 * https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#default-behavior):
 *
 * 1. Stabilisation: the recommendation is kept between the LOWEST raw recommendation of the
 *    scale-up window and the HIGHEST of the scale-down window (both including this one), starting
 *    from the current replicas. Defaults: scale-up window 0 s, scale-down window 300 s.
 * 2. Rate limits per direction: each policy allows, from the replicas at the start of its period
 *    (current minus what was added, or plus what was removed, within `periodSeconds`), `Pods`: so
 *    many pods more (fewer), `Percent`: so many percent more (fewer; up rounds up, down rounds
 *    down); `selectPolicy: Max` takes the policy allowing the biggest change, `Min` the smallest,
 *    `Disabled` none. Defaults: up `Max` of 4 pods and 100 % per 15 s; down 100 % per 15 s.
 * 3. Then `minReplicas..maxReplicas`.
 */

/** One scaling policy (`spec.behavior.scale{Up,Down}.policies[]`). */
export interface HpaPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodSeconds: number;
}

/** One direction's rules (`spec.behavior.scaleUp` / `scaleDown`). */
export interface HpaRules {
  stabilizationWindowSeconds: number;
  selectPolicy: 'Max' | 'Min' | 'Disabled';
  policies: HpaPolicy[];
}

/** Both directions. */
export interface HpaBehavior {
  scaleUp: HpaRules;
  scaleDown: HpaRules;
}

/** Kubernetes' defaults; the scale-down window is `downWindowSeconds` (300 unless configured). */
export function defaultBehavior(downWindowSeconds = 300): HpaBehavior {
  return {
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: {
      stabilizationWindowSeconds: downWindowSeconds,
      selectPolicy: 'Max',
      policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    },
  };
}

/* eslint-disable @typescript-eslint/no-explicit-any */
function rules(spec: any, dflt: HpaRules): HpaRules {
  if (!spec || typeof spec !== 'object') return dflt;
  const policies = Array.isArray(spec.policies)
    ? spec.policies
        .filter((p: any) => (p?.type === 'Pods' || p?.type === 'Percent') && Number(p.value) >= 0)
        .map((p: any) => ({
          type: p.type,
          value: Number(p.value),
          periodSeconds: Number(p.periodSeconds) || 15,
        }))
    : dflt.policies;
  return {
    stabilizationWindowSeconds:
      typeof spec.stabilizationWindowSeconds === 'number'
        ? spec.stabilizationWindowSeconds
        : dflt.stabilizationWindowSeconds,
    selectPolicy: ['Max', 'Min', 'Disabled'].includes(spec.selectPolicy)
      ? spec.selectPolicy
      : dflt.selectPolicy,
    policies,
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** `spec.behavior` over the defaults (fields left out keep the default, as the API server fills them). */
export function behaviorOf(specBehavior: unknown, downWindowSeconds = 300): HpaBehavior {
  const d = defaultBehavior(downWindowSeconds);
  const b = (specBehavior ?? {}) as { scaleUp?: unknown; scaleDown?: unknown };
  return { scaleUp: rules(b.scaleUp, d.scaleUp), scaleDown: rules(b.scaleDown, d.scaleDown) };
}

/** A raw recommendation or a scale event at a time (ms). */
export interface Timed {
  atMs: number;
  replicas: number;
}

/** Inputs of {@link applyBehavior}. */
export interface BehaviorInput {
  nowMs: number;
  current: number;
  /** The raw recommendation of this evaluation (the replica formula). */
  desired: number;
  minReplicas: number;
  maxReplicas: number;
  /** Earlier raw recommendations (newest last). */
  recommendations: readonly Timed[];
  /** Earlier scale events: `replicas` is the change (+ up, − down). */
  events: readonly Timed[];
  behavior: HpaBehavior;
}

/** The replicas after stabilisation, rate limits and bounds, and why they differ from `desired`. */
export function applyBehavior(i: BehaviorInput): { replicas: number; reason: string | null } {
  const { behavior: b, nowMs } = i;
  const upCut = nowMs - b.scaleUp.stabilizationWindowSeconds * 1000;
  const downCut = nowMs - b.scaleDown.stabilizationWindowSeconds * 1000;
  let up = i.desired;
  let down = i.desired;
  for (const r of i.recommendations) {
    if (r.atMs > upCut) up = Math.min(up, r.replicas);
    if (r.atMs > downCut) down = Math.max(down, r.replicas);
  }
  let rec = i.current;
  if (rec < up) rec = up;
  if (rec > down) rec = down;
  let reason: string | null = rec !== i.desired ? 'ScaleDownStabilized' : null;
  if (rec > i.current) {
    const limit = Math.max(i.current, limitOf(b.scaleUp, 'up', i.current, i.events, nowMs));
    const allowed = Math.min(i.maxReplicas, limit);
    if (rec > allowed) {
      reason = allowed === i.maxReplicas ? 'TooManyReplicas' : 'ScaleUpLimit';
      rec = allowed;
    }
  } else if (rec < i.current) {
    const limit = Math.min(i.current, limitOf(b.scaleDown, 'down', i.current, i.events, nowMs));
    const allowed = Math.max(i.minReplicas, limit);
    if (rec < allowed) {
      reason = allowed === i.minReplicas ? 'TooFewReplicas' : 'ScaleDownLimit';
      rec = allowed;
    }
  }
  return { replicas: Math.min(i.maxReplicas, Math.max(i.minReplicas, rec)), reason };
}

function limitOf(
  r: HpaRules,
  dir: 'up' | 'down',
  current: number,
  events: readonly Timed[],
  nowMs: number,
): number {
  if (r.selectPolicy === 'Disabled' || r.policies.length === 0) return current;
  const proposals = r.policies.map((p) => {
    const since = nowMs - p.periodSeconds * 1000;
    const moved = events
      .filter((e) => e.atMs > since && (dir === 'up' ? e.replicas > 0 : e.replicas < 0))
      .reduce((s, e) => s + Math.abs(e.replicas), 0);
    const start = dir === 'up' ? current - moved : current + moved;
    if (p.type === 'Pods') return dir === 'up' ? start + p.value : start - p.value;
    return dir === 'up' ? Math.ceil(start * (1 + p.value / 100)) : Math.floor(start * (1 - p.value / 100));
  });
  const most = dir === 'up' ? Math.max(...proposals) : Math.min(...proposals);
  const least = dir === 'up' ? Math.min(...proposals) : Math.max(...proposals);
  return r.selectPolicy === 'Max' ? most : least;
}
