import { peakWindow } from './peak-window.js';
import { cooldown } from './cooldown.js';
import { scaleUpOnCapacity } from './above-max.js';
import { stabilise } from './stabilization-window.js';
import { headroomReplicas } from '../headroom-replicas.js';
import { downReplicas } from '../history.js';
import { flapHold, repeatedScaleDown } from './flap-hold.js';
import { partialData } from './partial-data.js';
import { hold, isVerdict, round1, type Facts, type Verdict } from './facts.js';

/** The offered load of the sampled pods (GPUs): Σ utilisation / 100 × GPUs per pod. */
export function sampledLoadGpus(f: Pick<Facts, 'sampled' | 'gpus'>): number {
  return f.sampled.reduce((a, x) => a + x.utilization, 0) * (f.gpus / 100);
}

/** The replicas {@link headroomReplicas} asks for on the facts' sampled load and the policy's β. */
export function headroomTarget(f: Facts): number {
  return headroomReplicas(
    sampledLoadGpus(f),
    f.scaling.headroomFactor,
    f.gpus,
    f.max,
    f.minReplicas,
    f.maxReplicas,
    f.input.poolLoadGpus,
  );
}

/** The replicas the load and headroom need before `minReplicas..maxReplicas`. */
function unbounded(f: Facts): number {
  return headroomReplicas(
    sampledLoadGpus(f),
    f.scaling.headroomFactor,
    f.gpus,
    f.max,
    0,
    Infinity,
    f.input.poolLoadGpus,
  );
}

/**
 * "load 7.2 GPU(s) over 9 of 9 Ready pod(s) + 1×√7.2 headroom needs 13 replica(s) at max 80%":
 * what opens every message; the count is before the replica limits.
 */
export function headroomText(f: Facts): string {
  const l = sampledLoadGpus(f);
  const pool = f.input.poolLoadGpus ?? l;
  const spare =
    pool > l
      ? `its ${round1(l)}/${round1(pool)} share of pool ${f.pool}'s ${f.scaling.headroomFactor}×√${round1(pool)} headroom`
      : `${f.scaling.headroomFactor}×√${round1(l)} headroom`;
  return `load ${round1(l)} GPU(s) ${f.over} + ${spare} needs ${unbounded(f)} replica(s) at max ${f.max}%`;
}

/**
 * The facts a scale-down is sized on. In band (utilisation ≥ `min`) β is raised by
 * `scaling.headroomDownMargin`: the hysteresis band, up when the load needs more than the replicas
 * at β, down only when it needs fewer at β + margin. Below `min` the band holds no count that keeps
 * the pods below `min`: the facts size at β, and the scale-down goes to the target at β + margin
 * but at most the band's edge, never below the target at β (`downReplicas`; without the edge a
 * load under one GPU, 0.25 GPU at β 1 and max 80 %, would stay on 2 replicas at 12.5 % each).
 * The bounds keep β and the margin apart, so the scale-down window re-derives each recorded pass
 * on its own side of `min` (`recommendationOf`, `sourceWindow`). Margin 0: the facts as they are.
 */
export function downFacts(f: Facts): Facts {
  const margin = f.scaling.headroomDownMargin;
  if (margin === 0) return f;
  const beta = f.scaling.headroomFactor + (belowMin(f) ? 0 : margin);
  return withScaling(f, { ...f.scaling, headroomFactor: beta }, { ...f.bounds, headroomDownMargin: margin });
}

/** The utilisation is below the band's `min` (exactly `min` is in band, as in `withinBand`). */
function belowMin(f: Facts): boolean {
  return f.utilization !== null && f.utilization < f.min;
}

/**
 * Decides by headroom (after `noData`, so with a utilisation): one rule with a hysteresis band,
 * so no separate peak rule is needed for a stable load.
 * - up: the target at β (`headroomTarget`) above the replicas → the flap hold (no scale-up within
 *   `headroomFlapHoldSeconds` of a scale-down, `hold WouldFlap`), scale-up cooldown, scale-up
 *   stabilisation, then capacity (free GPUs of the pool, else unused nodes moved in), reason
 *   `HeadroomShort`. Replicas still starting count in `replicas`, so a scale-up is not repeated
 *   while they start (their load is not seen yet);
 * - down: the target at β + `headroomDownMargin` (below `min` at most the band's edge, `downReplicas`) below the replicas → never on
 *   a partial answer (`PartialData`) nor partial data (`InsufficientSamples`, as the HPA never
 *   scales down on missing metrics), then, within the flap hold of a scale-down, one replica at
 *   most (`repeatedScaleDown`: two scale-downs in a row inside one hold reversed on the next
 *   spike), the peak window, cooldown and the scale-down stabilisation window (the highest recommendation of the
 *   window, sized at β + margin, wins), reason `HeadroomSpare`. A scale-down lands where the load
 *   may grow by `margin·√L` before a scale-up is due, and the flap hold refuses the reversal for
 *   the flap window: no scale-up follows a scale-down within it (the no-flap guarantee; the price
 *   is a surge right after a scale-down waiting, docs/policy-reference.md);
 * - else → `hold WithinRange`, or `AtMaxReplicas` / `AtMinReplicas` when the load asks for more /
 *   fewer than the limit the replicas sit at. A target at β + margin exactly the replicas holds.
 */
export function headroom(f: Facts): Verdict {
  const up = headroomTarget(f);
  const why = headroomText(f);
  if (up > f.from) {
    const held = flapHold(f, why) ?? cooldown(f, 'up', why);
    if (held) return held;
    const stable = stabilise(f, 'up', { to: up }, why);
    return isVerdict(stable) ? stable : scaleUpOnCapacity(f, stable.to, why, 'HeadroomShort');
  }
  const d = downFacts(f);
  const to = downReplicas(sampledLoadGpus(f), f.utilization!, d.bounds, f.input.poolLoadGpus);
  if (to >= f.from) {
    const raw = unbounded(f);
    if (raw > f.from)
      return hold(f, 'AtMaxReplicas', `${why}, but replicas ${f.from} are at maxReplicas ${f.maxReplicas}`);
    if (unbounded(d) < f.from && to === f.from)
      return hold(f, 'AtMinReplicas', `${why}, but replicas ${f.from} are at minReplicas ${f.minReplicas}`);
    return hold(f, 'WithinRange', `${why}; replicas stay at ${f.from}`);
  }
  const whyDown =
    d === f
      ? why
      : belowMin(f)
        ? `${why}; utilisation ${f.u} is below min ${f.min}%, so ${to > headroomTarget(d) ? `the margin stops at the band's edge, ${to} replica(s) at ≥ min` : 'no margin'}`
        : `${why}; at the scale-down margin ${headroomText(d).replace(/^.* \+ /, '')}`;
  const partial = partialData(f, whyDown, 'scale down');
  if (partial) return partial;
  if (!f.complete) {
    return hold(
      f,
      'InsufficientSamples',
      `${whyDown}, but only ${f.sampled.length} of ${f.ready.length} Ready pod(s) have a sample${f.droppedNote}; never scale down on partial data (the HPA never scales down on missing metrics)`,
    );
  }
  const guarded = repeatedScaleDown(f, to);
  const bounded = peakWindow(d, guarded, whyDown);
  if (isVerdict(bounded)) return bounded;
  const stable = cooldown(d, 'down', whyDown) ?? stabilise(d, 'down', bounded, whyDown);
  if (isVerdict(stable)) return stable;
  return {
    action: 'scale-down',
    to: stable.to,
    reason: 'HeadroomSpare',
    message: `${whyDown}${stable.because ?? ''}; scaling ${f.from} → ${stable.to}${stable.note ?? ''}`,
  };
}

/**
 * Every field of {@link Facts}, each of which {@link withScaling} copies: the `satisfies` makes tsc
 * refuse the list until a new field of `Facts` (optional ones too) is named here, and
 * `facts-parts.test.ts` sets every field named here and checks that `withScaling` keeps each, so a
 * field cannot be added to `Facts` and be dropped by a scale-down's facts unseen.
 */
export const FACTS_FIELDS = {
  input: true,
  scaling: true,
  windows: true,
  name: true,
  pool: true,
  from: true,
  min: true,
  max: true,
  minReplicas: true,
  maxReplicas: true,
  step: true,
  gpus: true,
  request: true,
  nowMs: true,
  clock: true,
  bounds: true,
  records: true,
  counted: true,
  ready: true,
  starting: true,
  stuck: true,
  sampled: true,
  utilization: true,
  complete: true,
  u: true,
  over: true,
  outstanding: true,
  poolSlots: true,
  droppedNote: true,
} as const satisfies Record<keyof Facts, true>;

/**
 * `f` with `scaling` and `bounds` in place of its own (the same as `{ ...f, scaling, bounds }`),
 * field by field so V8 copies it fast, and with the pool's room still counted on first read (by
 * `f`, once for both): a spread would call the getter and count it at once. A field added to
 * `Facts` is listed in {@link FACTS_FIELDS} (tsc) and copied here (`facts-parts.test.ts`).
 */
export function withScaling(f: Facts, scaling: Facts['scaling'], bounds: Facts['bounds']): Facts {
  return {
    scaling,
    windows: f.windows,
    name: f.name,
    pool: f.pool,
    from: f.from,
    min: f.min,
    max: f.max,
    minReplicas: f.minReplicas,
    maxReplicas: f.maxReplicas,
    step: f.step,
    gpus: f.gpus,
    request: f.request,
    bounds,
    counted: f.counted,
    ready: f.ready,
    outstanding: f.outstanding,
    input: f.input,
    nowMs: f.nowMs,
    clock: f.clock,
    records: f.records,
    starting: f.starting,
    stuck: f.stuck,
    sampled: f.sampled,
    utilization: f.utilization,
    complete: f.complete,
    u: f.u,
    over: f.over,
    get poolSlots() {
      return f.poolSlots;
    },
    droppedNote: f.droppedNote,
  };
}
