/**
 * The standby section's terminal text and verdicts (pure): per loop, the baseline (the HPA per
 * service on one autoscaled pool) and gpuops with the shared warm standby set at each pair of the
 * grid, then the targets, each figure beside its target:
 * - the standby fleet: pod-level utilisation ≥ 58 %, every service ≤ 2 % pod-time above max and
 *   ≤ 0.5 % unserved (the pair of the grid with the highest utilisation within the limits);
 * - pool node-hours ≥ 15 % below the baseline's at no more unserved load (the pair of the fewest
 *   node-hours whose unserved load is at most the baseline's).
 * Both pairs are chosen on the trace itself, and the text says so.
 */
import type { FleetFigures } from './fleet-model.js';
import { STANDBY_LIMITS, worstService, type StandbyLoopRun } from './standby-run.js';
import { formatVerdicts, type TargetVerdict } from './targets.js';

/** The pod-level utilisation the standby fleet is to reach (percent). */
export const STANDBY_UTILISATION_TARGET = 58;
/** How far below the baseline's pool node-hours the standby fleet's are to be (percent). */
export const STANDBY_NODE_HOURS_TARGET = 15;

const pct = (x: number, d: number) => `${x.toFixed(d)} %`;

/** The verdicts of one loop's run (see the module comment). */
export function standbyVerdicts(r: StandbyLoopRun): TargetVerdict[] {
  const out: TargetVerdict[] = [];
  const engine = (f: FleetFigures | null) => `${r.loop.name}: ${f?.engine ?? 'standby (no pair)'}`;
  const c = r.chosen;
  const w = c ? worstService(c) : null;
  const u = c?.utilizationPercent ?? -Infinity;
  out.push({
    engine: engine(c),
    measure: c
      ? 'pod-level utilisation within the limits (β pair chosen on this trace)'
      : `pod-level utilisation (no pair of the grid keeps every service within ≤ ${STANDBY_LIMITS.aboveMaxPercent} % above max and ≤ ${STANDBY_LIMITS.unservedPercent} % unserved)`,
    figure: c ? pct(u, 1) : 'n/a',
    target: `≥ ${STANDBY_UTILISATION_TARGET} %`,
    ok: u >= STANDBY_UTILISATION_TARGET,
  });
  if (c && w) {
    out.push({
      engine: engine(c),
      measure: 'worst service: pod-time above max',
      figure: pct(w.aboveMaxPercent, 2),
      target: `≤ ${STANDBY_LIMITS.aboveMaxPercent} %`,
      ok: w.aboveMaxPercent <= STANDBY_LIMITS.aboveMaxPercent,
    });
    out.push({
      engine: engine(c),
      measure: 'worst service: unserved',
      figure: pct(w.unservedPercent, 3),
      target: `≤ ${STANDBY_LIMITS.unservedPercent} %`,
      ok: w.unservedPercent <= STANDBY_LIMITS.unservedPercent,
    });
  }
  const base = r.baseline.nodes!.poolNodeHours;
  const k = r.cheapest;
  const cut = k && base > 0 ? Math.round(1e6 * (1 - k.nodes!.poolNodeHours / base)) / 1e4 : -Infinity;
  out.push({
    engine: engine(k),
    measure: k
      ? `pool node-hours below the HPA on one autoscaled pool at no more unserved (${k.nodes!.poolNodeHours.toFixed(1)} vs ${base.toFixed(1)}, unserved ${pct(k.unservedPercent, 3)} vs ${pct(r.baseline.unservedPercent, 3)}; chosen on this trace)`
      : `pool node-hours below the HPA on one autoscaled pool (no pair serves as much as its ${pct(r.baseline.unservedPercent, 3)} unserved)`,
    figure: k ? pct(cut, 1) : 'n/a',
    target: `≥ ${STANDBY_NODE_HOURS_TARGET} %`,
    ok: cut >= STANDBY_NODE_HOURS_TARGET,
  });
  return out;
}

const pad = (s: string, n: number) => s.padStart(n);

/** One row: pod-level figures, the worst service, the nodes, and the standby set's share. */
function row(f: FleetFigures, w: number): string {
  const worst = worstService(f);
  const n = f.nodes!;
  const sb =
    'standby' in f
      ? (f as { standby: { gpuHours: number; claims: number; backfills: number } }).standby
      : null;
  const standby = sb
    ? `  standby GPU-h ${sb.gpuHours.toFixed(0)} claims ${sb.claims} backfills ${sb.backfills}`
    : '';
  return `  ${f.engine.padEnd(w)} util ${pad(f.utilizationPercent.toFixed(1), 5)} %  >max ${pad(f.aboveMaxPercent.toFixed(2), 5)} % (worst ${worst.aboveMaxPercent.toFixed(2)})  unserved ${f.unservedPercent.toFixed(3)} % (worst ${worst.unservedPercent.toFixed(3)})  flaps ${f.flaps}  pool node-h ${pad(n.poolNodeHours.toFixed(1), 6)} peak ${n.peakPoolNodes} moves ${n.nodeMoves} returned ${n.nodesReturned}${standby}\n`;
}

/** The standby section: each loop's rows and verdicts. */
export function formatStandby(runs: readonly StandbyLoopRun[], split: string): string {
  return runs
    .map((r) => {
      const rows = [r.baseline, ...r.grid];
      const w = Math.max(...rows.map((x) => x.engine.length));
      return (
        `shared warm standby (${split}), ${r.loop.name}, claims in ${r.claimSeconds} s; standby β a/b: services' β a, the standby set's β b:\n` +
        rows.map((x) => row(x, w)).join('') +
        `standby targets, ${r.loop.name}:\n${formatVerdicts(standbyVerdicts(r))}`
      );
    })
    .join('');
}
