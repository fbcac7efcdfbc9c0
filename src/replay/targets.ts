/**
 * The replay's targets (docs/replay.md), and a verdict on each against a replay's figures (pure).
 * Every verdict names the engine, the figure, the target and whether it is met, so the table, the
 * terminal and the report print each figure beside its target and flag an engine that breaks one.
 */
import type { EngineFigures } from './figures.js';
import type { FrontierGap } from './frontier.js';

/** One figure judged against one target. */
export interface TargetVerdict {
  engine: string;
  /** What is measured: `utilisation`, `pod-time above max`, `unserved`, `flaps`, `frontier lead`, `wall time`. */
  measure: string;
  /** The figure with its unit (`45.8 %`), or `n/a` when it could not be measured. */
  figure: string;
  /** The target (`≥ 50 %`). */
  target: string;
  ok: boolean;
}

/** One figure to judge: what, its value (null: not measured), the comparison, the limit, unit, decimals. */
export type Check = [
  measure: string,
  value: number | null,
  op: '≥' | '≤' | '=',
  limit: number,
  unit: string,
  digits: number,
];

const FIGURE_CHECKS: Record<string, (f: EngineFigures) => Check[]> = {
  // The loop's targets at today's delays (the causal bound allows about 46.4 %, `causal-bound.ts`).
  'gpuops-patch': (f) => [
    ['utilisation', f.utilizationPercent, '≥', 46, '%', 1],
    ['pod-time above max', f.aboveMaxPercent, '≤', 2, '%', 2],
    ['unserved', f.unservedPercent, '≤', 0.5, '%', 3],
    ['flaps', f.flaps, '≤', 4, '', 0],
  ],
  'gpuops-pr': (f) => [
    ['utilisation', f.utilizationPercent, '≥', 38, '%', 1],
    ['unserved', f.unservedPercent, '≤', 2, '%', 3],
  ],
  // The HPA has no target of its own; it is held to the service's limits so a run that breaks
  // them is flagged.
  hpa: (f) => [
    ['pod-time above max', f.aboveMaxPercent, '≤', 2, '%', 2],
    ['unserved', f.unservedPercent, '≤', 0.5, '%', 3],
  ],
};

/** The verdict of one check for `engine`. */
export function judge(engine: string, [measure, value, op, limit, unit, digits]: Check): TargetVerdict {
  const u = unit ? ` ${unit}` : '';
  const ok = value !== null && (op === '≥' ? value >= limit : op === '≤' ? value <= limit : value === limit);
  return {
    engine,
    measure,
    figure: value === null ? 'n/a' : `${value.toFixed(digits)}${u}`,
    target: `${op} ${limit}${u}`,
    ok,
  };
}

/**
 * The verdicts of a one-service replay: per engine with targets (`gpuops-patch`, `gpuops-pr`, and
 * the service's limits for `hpa`), the frontier lead of gpuops over the HPA at equal unserved load
 * (≥ 3 points over 0.05–0.5 %; n/a and missed when no point could be compared) and, when given,
 * the wall time of the whole replay (≤ 300 s).
 */
export function verdicts(
  engines: readonly EngineFigures[],
  gap: FrontierGap | null,
  wallSeconds?: number,
): TargetVerdict[] {
  const out: TargetVerdict[] = [];
  for (const f of engines) for (const c of FIGURE_CHECKS[f.engine]?.(f) ?? []) out.push(judge(f.engine, c));
  if (gap !== null)
    out.push(judge('gpuops-patch', ['frontier lead over the HPA', gap.minLead, '≥', 3, 'points', 1]));
  if (wallSeconds !== undefined) out.push(judge('replay', ['wall time', wallSeconds, '≤', 300, 's', 0]));
  return out;
}

/** One line per verdict: `ok   gpuops-patch  utilisation 45.8 % (target ≥ 50 %)`, `MISS` when missed. */
export function formatVerdicts(vs: readonly TargetVerdict[]): string {
  const w = Math.max(0, ...vs.map((v) => v.engine.length));
  return vs
    .map(
      (v) =>
        `${v.ok ? 'ok  ' : 'MISS'}  ${v.engine.padEnd(w)}  ${v.measure} ${v.figure} (target ${v.target})\n`,
    )
    .join('');
}
