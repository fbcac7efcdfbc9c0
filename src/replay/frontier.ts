/**
 * The frontiers of a replay (pure): the HPA at several targets and gpuops at several headroom
 * factors, each over the whole trace with the fast model (`model-engine.ts`), so that "ahead of
 * the HPA" is judged against the HPA at its best, not at one target; and the headroom factor
 * chosen honestly, on the first half of the trace, with both halves and the whole reported.
 */
import type { Policy } from '../definitions/index.js';
import { computeFigures, type EngineFigures } from './figures.js';
import { marginsTried } from './margin-search.js';
import { runModel, type ModelSettings } from './model-engine.js';
import { sliceTrace, type Trace } from './trace.js';

/** One point of a frontier: the engine's parameter (HPA target %, or β) and its figures. */
export interface FrontierPoint {
  parameter: number;
  figures: EngineFigures;
}

/** Both frontiers, sorted by parameter. */
export interface Frontiers {
  hpa: FrontierPoint[];
  gpuops: FrontierPoint[];
}

/**
 * What the frontiers are run with: targets (percent), factors, and gpuops's policy for a β and,
 * when given, a scale-down margin (`scaling.headroomDownMargin`; absent: the policy's own).
 */
export interface FrontierOptions {
  hpaTargets: readonly number[];
  headroomFactors: readonly number[];
  /**
   * The scale-down margins the first-half choice tries with every factor (dimensionless, units of
   * √load), refined between two of them to the least that keeps the limits (`marginsTried`);
   * absent or empty: only the policy's own margin (the frontiers always run at it).
   */
  headroomDownMargins?: readonly number[];
  policyFor: (beta: number, margin?: number) => Policy;
  settings: ModelSettings;
  /**
   * Reversals within this long count as gpuops's flaps (seconds); default 300, the shipped
   * scale-down stabilisation window. A loop whose windows are sized to it passes its own flap
   * window (`loop-windows.ts`).
   */
  flapWindowSeconds?: number;
}

/** The figures of the model of the HPA at `target` (percent) over `trace`. */
export function hpaPoint(trace: Trace, target: number, s: ModelSettings): FrontierPoint {
  const points = runModel(trace, { kind: 'hpa', target }, s);
  const figures = computeFigures(trace, points, {
    engine: `hpa@${target}`,
    max: s.max,
    flapWindowSeconds: 300,
  });
  return { parameter: target, figures };
}

/**
 * The figures of the model of gpuops at headroom factor `beta` over `trace`, at scale-down margin
 * `margin` when given (else the policy's own).
 */
export function gpuopsPoint(trace: Trace, beta: number, o: FrontierOptions, margin?: number): FrontierPoint {
  const policy = margin === undefined ? o.policyFor(beta) : o.policyFor(beta, margin);
  const points = runModel(trace, { kind: 'gpuops', policy }, o.settings);
  const figures = computeFigures(trace, points, {
    engine: margin === undefined ? `gpuops@β${beta}` : `gpuops@β${beta}+${margin}`,
    max: o.settings.max,
    flapWindowSeconds: o.flapWindowSeconds ?? 300,
  });
  return { parameter: beta, figures };
}

/** Both frontiers over `trace`. */
export function frontiers(trace: Trace, o: FrontierOptions): Frontiers {
  return {
    hpa: [...o.hpaTargets].sort((a, b) => a - b).map((t) => hpaPoint(trace, t, o.settings)),
    gpuops: [...o.headroomFactors].sort((a, b) => a - b).map((b) => gpuopsPoint(trace, b, o)),
  };
}

/**
 * The upper envelope of a frontier's points `{ x, y }` (unserved load, utilisation): sorted by x,
 * each kept only when its y is higher than that of every point kept before it (a point below
 * another with no more x is left out; of equal x, the highest y). The rule the HPA frontier is read
 * on ({@link hpaUtilizationAt}) and the causal bound family's (`bound-frontier.ts`).
 */
export function upperEnvelope<P extends { x: number; y: number }>(points: readonly P[]): P[] {
  const sorted = [...points].sort((a, b) => a.x - b.x || b.y - a.y);
  const out: P[] = [];
  for (const p of sorted) if (out.length === 0 || p.y > out[out.length - 1]!.y) out.push(p);
  return out;
}

/**
 * The HPA frontier's utilisation at `unserved` percent: linear between the two HPA points whose
 * unserved load brackets it (the frontier taken as its upper envelope: a point below another with
 * no more unserved load is left out). Below the HPA's lowest unserved load no target got there:
 * the answer is the utilisation of that lowest point, the most the HPA could give at less
 * unserved load (`bound: true`; generous to the HPA, as lowering its target lowers both). Null
 * above the HPA's highest unserved load (nothing bounds it there) or without points.
 */
export function hpaUtilizationAt(
  hpa: readonly FrontierPoint[],
  unserved: number,
): { utilization: number; bound: boolean } | null {
  const envelope = upperEnvelope(
    hpa.map((p) => ({ x: p.figures.unservedPercent, y: p.figures.utilizationPercent })),
  );
  if (envelope.length === 0 || unserved > envelope[envelope.length - 1]!.x) return null;
  if (unserved < envelope[0]!.x) return { utilization: envelope[0]!.y, bound: true };
  for (let i = 0; i + 1 < envelope.length; i++) {
    const a = envelope[i]!;
    const b = envelope[i + 1]!;
    if (unserved <= b.x)
      return { utilization: a.y + ((b.y - a.y) * (unserved - a.x)) / (b.x - a.x), bound: false };
  }
  return { utilization: envelope[envelope.length - 1]!.y, bound: false };
}

/** How far gpuops's frontier lies above the HPA's at equal unserved load. */
export interface FrontierGap {
  /** The smallest lead (utilisation points) over the compared gpuops points; null: none compared. */
  minLead: number | null;
  /** Each gpuops point in the range with an HPA value to compare: β, unserved %, both utilisations. */
  compared: { beta: number; unserved: number; gpuops: number; hpa: number; lead: number; bound: boolean }[];
}

/**
 * gpuops's lead over the HPA at equal unserved load, over the gpuops points whose unserved load is
 * within `lo..hi` percent (both ends included; the range is 0.05–0.5 %) and not above the
 * HPA frontier's highest unserved load (see {@link hpaUtilizationAt}).
 */
export function frontierGap(f: Frontiers, lo = 0.05, hi = 0.5): FrontierGap {
  const compared: FrontierGap['compared'] = [];
  for (const p of f.gpuops) {
    const x = p.figures.unservedPercent;
    if (x < lo || x > hi) continue;
    const at = hpaUtilizationAt(f.hpa, x);
    if (at === null) continue;
    const hpa = Math.round(at.utilization * 100) / 100;
    const lead = Math.round((p.figures.utilizationPercent - hpa) * 100) / 100;
    compared.push({
      beta: p.parameter,
      unserved: x,
      gpuops: p.figures.utilizationPercent,
      hpa,
      lead,
      bound: at.bound,
    });
  }
  return { minLead: compared.length ? Math.min(...compared.map((c) => c.lead)) : null, compared };
}

/** The one-service limits a headroom factor is chosen under (percent). */
export interface Limits {
  aboveMaxPercent: number;
  unservedPercent: number;
}

/** The one-service limits β (and the scale-down margin) are chosen under (the targets, percent). */
export const ONE_SERVICE_LIMITS = { aboveMaxPercent: 2, unservedPercent: 0.5 } as const;

/** The β (and margin) chosen on the first half, and its figures on each half and the whole. */
export interface FirstHalfChoice {
  beta: number;
  /** The scale-down margin chosen with β; null when none was swept (the policy's own stood). */
  margin: number | null;
  /** No factor kept the limits on the first half: `beta` is the largest tried, not a choice. */
  fallback: boolean;
  limits: Limits;
  firstHalf: EngineFigures;
  secondHalf: EngineFigures;
  whole: EngineFigures;
}

/**
 * The honest choice of β, and of the scale-down margin when `o.headroomDownMargins` lists some
 * (with every factor: the listed margins and the least margin within the limits between two of
 * them, to 0.05, `margin-search.ts`):
 * the pair of the highest utilisation on the FIRST half of the trace within the limits (fewest
 * flaps, then the larger β, then the larger margin, on a tie: the more cautious), reported on the
 * second half and the whole; when no pair keeps the limits, the largest of each (the most
 * cautious), with `fallback` true so the text and the report say that none kept them.
 * @throws Error when `factors` is empty
 */
export function chooseOnFirstHalf(trace: Trace, o: FrontierOptions, limits: Limits): FirstHalfChoice {
  if (o.headroomFactors.length === 0) throw new Error('chooseOnFirstHalf: no headroom factors');
  const t0 = trace.instants[0]!.t;
  const span = trace.instants[trace.instants.length - 1]!.t - t0;
  const half = Math.max(1, Math.floor(span / 2));
  const first = sliceTrace(trace, 0, half);
  const second = sliceTrace(trace, half, Infinity);
  const keeps = (f: EngineFigures) =>
    f.aboveMaxPercent <= limits.aboveMaxPercent && f.unservedPercent <= limits.unservedPercent;
  const listed = o.headroomDownMargins ?? [];
  type Tried = { beta: number; margin: number | undefined; figures: EngineFigures };
  const tried = o.headroomFactors.flatMap((b): Tried[] =>
    listed.length === 0
      ? [{ beta: b, margin: undefined, figures: gpuopsPoint(first, b, o).figures }]
      : marginsTried(listed, (m) => gpuopsPoint(first, b, o, m).figures, keeps).map((r) => ({
          beta: b,
          margin: r.margin,
          figures: r.result,
        })),
  );
  const within = tried.filter((p) => keeps(p.figures));
  const cautious = (a: (typeof tried)[number], b: (typeof tried)[number]) =>
    b.beta - a.beta || (b.margin ?? 0) - (a.margin ?? 0);
  const best = within.length
    ? within.sort(
        (a, b) =>
          b.figures.utilizationPercent - a.figures.utilizationPercent ||
          a.figures.flaps - b.figures.flaps ||
          cautious(a, b),
      )[0]!
    : tried.sort(cautious)[0]!;
  return {
    beta: best.beta,
    margin: best.margin ?? null,
    fallback: within.length === 0,
    limits,
    firstHalf: best.figures,
    secondHalf: gpuopsPoint(second, best.beta, o, best.margin).figures,
    whole: gpuopsPoint(trace, best.beta, o, best.margin).figures,
  };
}
