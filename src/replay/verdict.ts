/**
 * The replay's verdict (pure): the one table a person deciding between gpuops and an HPA reads
 * first. Each gpuops mode that ran (the real reconcile pass on the simulated cluster) against the
 * HPA at its best target under the same limits (≤ 2 % of pod-time above max, ≤ 0.5 % of the load
 * unserved: the one-service limits β is chosen under): the target of the HPA frontier (the model of
 * the same delays) with the highest utilisation within them, chosen with hindsight on the whole
 * history, which favours the HPA. Each row gives utilisation, GPU-hours, unserved load and pod-time
 * above max on the whole history and on its second half (the half β is not chosen on), and a
 * sentence says who wins, by how much, and where gpuops loses.
 */
import { computeFigures, type AllocationPoint, type EngineFigures } from './figures.js';
import type { FrontierPoint, Limits } from './frontier.js';
import { runModel, type ModelSettings } from './model-engine.js';
import { sliceTrace, type Trace } from './trace.js';

/** One row: an engine's figures on the whole history and on its second half. */
export interface VerdictRow {
  engine: 'hpa' | 'gpuops-patch' | 'gpuops-pr';
  label: string;
  whole: EngineFigures;
  secondHalf: EngineFigures;
  /** Within the limits on the whole history. */
  withinLimits: boolean;
}

/** See the module comment. */
export interface Verdict {
  limits: Limits;
  /** The HPA's best target (percent); `hpaFallback`: none kept the limits, the one with the least unserved load stands in. */
  hpaTarget: number;
  hpaFallback: boolean;
  rows: VerdictRow[];
  sentence: string;
}

const within = (f: EngineFigures, l: Limits) =>
  f.aboveMaxPercent <= l.aboveMaxPercent && f.unservedPercent <= l.unservedPercent;

/** The HPA target of the highest utilisation within `limits`; else the one of the least unserved load. */
export function bestHpaTarget(
  hpa: readonly FrontierPoint[],
  limits: Limits,
): { target: number; fallback: boolean } {
  const ok = hpa.filter((p) => within(p.figures, limits));
  if (ok.length > 0) {
    const best = [...ok].sort((a, b) => b.figures.utilizationPercent - a.figures.utilizationPercent)[0]!;
    return { target: best.parameter, fallback: false };
  }
  const least = [...hpa].sort((a, b) => a.figures.unservedPercent - b.figures.unservedPercent)[0];
  return { target: least?.parameter ?? 0, fallback: true };
}

/**
 * The figures of `points` (an engine's allocation over the whole trace) on the trace's second half:
 * the state in force at the half, then every later point, in the half's own time.
 */
export function secondHalfFigures(
  trace: Trace,
  points: readonly AllocationPoint[],
  engine: string,
  max: number,
): EngineFigures {
  const t0 = trace.instants[0]!.t;
  const span = trace.instants[trace.instants.length - 1]!.t - t0;
  const half = Math.max(1, Math.floor(span / 2));
  const second = sliceTrace(trace, half, Infinity);
  const shift = second.instants[0]!.t - t0;
  const before = [...points].reverse().find((p) => p.t <= shift);
  const shifted = [
    ...(before ? [{ ...before, t: 0 }] : []),
    ...points.filter((p) => p.t > shift).map((p) => ({ ...p, t: p.t - shift })),
  ];
  return computeFigures(second, shifted, { engine, max, flapWindowSeconds: 300 });
}

const pct = (v: number, d = 1) => `${v.toFixed(d)} %`;

/** How `m` compares with the HPA row `h`, as a clause (see the module comment). */
function compare(m: VerdictRow, h: VerdictRow, limits: Limits): string {
  const dUtil = m.whole.utilizationPercent - h.whole.utilizationPercent;
  const dHours = h.whole.allocatedGpuHours - m.whole.allocatedGpuHours;
  const losses: string[] = [];
  if (m.whole.unservedPercent > h.whole.unservedPercent)
    losses.push(
      `more unserved load (${pct(m.whole.unservedPercent, 2)} against ${pct(h.whole.unservedPercent, 2)})`,
    );
  if (m.whole.aboveMaxPercent > h.whole.aboveMaxPercent)
    losses.push(
      `more pod-time above max (${pct(m.whole.aboveMaxPercent, 2)} against ${pct(h.whole.aboveMaxPercent, 2)})`,
    );
  if (m.secondHalf.utilizationPercent < h.secondHalf.utilizationPercent)
    losses.push(
      `lower utilisation on the second half (${pct(m.secondHalf.utilizationPercent)} against ${pct(h.secondHalf.utilizationPercent)})`,
    );
  const gain = `${pct(m.whole.utilizationPercent)} utilisation against ${pct(h.whole.utilizationPercent)} (${dUtil >= 0 ? '+' : '−'}${Math.abs(dUtil).toFixed(1)} points) with ${Math.abs(dHours).toFixed(1)} GPU-hours ${dHours >= 0 ? 'fewer' : 'more'}`;
  if (!m.withinLimits) {
    const broke = [
      m.whole.unservedPercent > limits.unservedPercent
        ? `leaves ${pct(m.whole.unservedPercent, 2)} of the load unserved (limit ${pct(limits.unservedPercent, 1)})`
        : null,
      m.whole.aboveMaxPercent > limits.aboveMaxPercent
        ? `spends ${pct(m.whole.aboveMaxPercent, 2)} of pod-time above max (limit ${pct(limits.aboveMaxPercent, 0)})`
        : null,
    ].filter((x): x is string => x !== null);
    return `${m.label} loses: it ${broke.join(' and ')}, ${dUtil > 0 ? 'though it reaches' : 'and reaches'} ${gain}`;
  }
  if (dUtil <= 0) return `${m.label} loses: ${gain}${losses.length ? `; also ${losses.join(', ')}` : ''}`;
  return `${m.label} wins: ${gain}${losses.length ? `; it loses on ${losses.join(', ')}` : '; it loses on nothing measured here'}`;
}

/**
 * The verdict (see the module comment) of the simulated gpuops engines' runs against the HPA
 * frontier of `hpa` (the model's points, figures on the whole trace).
 */
export function replayVerdict(input: {
  trace: Trace;
  hpa: readonly FrontierPoint[];
  gpuops: readonly {
    engine: 'gpuops-patch' | 'gpuops-pr';
    figures: EngineFigures;
    points: readonly AllocationPoint[];
  }[];
  settings: ModelSettings;
  limits: Limits;
}): Verdict {
  const { trace, limits, settings } = input;
  const best = bestHpaTarget(input.hpa, limits);
  const hpaPoints = runModel(trace, { kind: 'hpa', target: best.target }, settings);
  const hpaWhole = computeFigures(trace, hpaPoints, {
    engine: 'hpa',
    max: settings.max,
    flapWindowSeconds: 300,
  });
  const hpa: VerdictRow = {
    engine: 'hpa',
    label: `the HPA at its best target, ${best.target} %`,
    whole: hpaWhole,
    secondHalf: secondHalfFigures(trace, hpaPoints, 'hpa', settings.max),
    withinLimits: within(hpaWhole, limits),
  };
  const modes: VerdictRow[] = input.gpuops.map((g) => ({
    engine: g.engine,
    label: g.engine === 'gpuops-patch' ? 'gpuops patch mode' : 'gpuops pull-request mode',
    whole: g.figures,
    secondHalf: secondHalfFigures(trace, g.points, g.engine, settings.max),
    withinLimits: within(g.figures, limits),
  }));
  const clauses = modes.map((m) => compare(m, hpa, limits));
  const fallback = best.fallback
    ? ` No HPA target kept the limits; ${best.target} % (the least unserved) stands in.`
    : '';
  return {
    limits,
    hpaTarget: best.target,
    hpaFallback: best.fallback,
    rows: [hpa, ...modes],
    sentence: clauses.length
      ? `${clauses.map((c) => `${c}.`).join(' ')}${fallback}`
      : `No gpuops mode ran.${fallback}`,
  };
}

/** The verdict as terminal text: a heading, the table, the sentence. */
export function formatVerdict(v: Verdict): string {
  const head = `verdict: gpuops against the HPA at its best target (same limits: ≤ ${v.limits.aboveMaxPercent} % of pod-time above max, ≤ ${v.limits.unservedPercent} % unserved); whole history / second half\n`;
  const col = (a: number, b: number, d: number) => `${a.toFixed(d)} / ${b.toFixed(d)}`.padStart(15);
  let out = head;
  out += `  ${''.padEnd(40)} ${'utilisation %'.padStart(15)} ${'GPU-hours'.padStart(15)} ${'unserved %'.padStart(15)} ${'above max %'.padStart(15)}\n`;
  for (const r of v.rows) {
    const label = `${r.label}${r.engine === 'hpa' ? ' (model)' : ''}${r.withinLimits ? '' : ' ✗ limits'}`;
    out += `  ${label.padEnd(40)} ${col(r.whole.utilizationPercent, r.secondHalf.utilizationPercent, 1)} ${col(r.whole.allocatedGpuHours, r.secondHalf.allocatedGpuHours, 1)} ${col(r.whole.unservedPercent, r.secondHalf.unservedPercent, 2)} ${col(r.whole.aboveMaxPercent, r.secondHalf.aboveMaxPercent, 2)}\n`;
  }
  return `${out}${v.sentence}\n\n`;
}
