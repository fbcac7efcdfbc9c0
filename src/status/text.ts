/** The status page as plain text for a terminal (pure): the same sections as the HTML. */
import { escapeControl } from '../util/index.js';
import { pullRequestRef } from '../change-sets/index.js';
import { plural } from './health.js';
import { NO_CACHE } from './cache-health.js';
import type { StatusAlgorithm, StatusView } from './model.js';
import { statusTimes } from './times.js';

function columns(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

function seconds(s: number | null): string {
  return s === null ? '—' : `${Math.round(s * 10) / 10} s`;
}

/** Why an algorithm has no run time: not benchmarked yet, or its placement's reason and message. */
export function notPlaced(a: Pick<StatusAlgorithm, 'placementReason' | 'placementMessage'>): string {
  if (a.placementReason === 'BenchmarkPending' || a.placementReason === 'Unknown')
    return 'not benchmarked yet';
  return `${a.placementReason}: ${a.placementMessage}`;
}

/** The pools and the GPU nodes in no pool. */
function poolLines(v: StatusView): string[] {
  const out: string[] = [];
  out.push('POOLS');
  if (v.snapshotAt === null)
    out.push('  no snapshot stored yet: gpuops has not completed a pass against this database');
  else
    for (const p of v.pools) {
      out.push(
        `  ${p.pool}: ${plural(p.nodes.length, 'node')}, ${p.freeGpus}/${plural(p.allocatableGpus, 'GPU')} free`,
      );
      if (p.nodes.length > 0)
        out.push(
          ...columns(
            p.nodes.map((n) => [
              `    ${n.name}`,
              n.gpuProduct ?? '—',
              `${n.freeGpus}/${n.allocatableGpus} free`,
              [n.condition, n.labelPending ? `label not applied yet (cluster: ${n.labelPending})` : null]
                .filter(Boolean)
                .join('; '),
            ]),
          ),
        );
    }
  out.push('', 'GPU NODES IN NO POOL');
  if (v.leftOut.length === 0) out.push('  every GPU node is in a pool');
  else out.push(...columns(v.leftOut.map((n) => [`  ${n.name}`, n.gpuProduct ?? '—', n.reason, n.message])));
  if (v.nodesWithoutGpu > 0) out.push(`  (${plural(v.nodesWithoutGpu, 'node')} without GPUs not listed)`);
  return out;
}

/** One line per algorithm (utilisation as the last bucket's mean), and its scaling reason. */
function algorithmLines(v: StatusView): string[] {
  const out: string[] = [];
  out.push('ALGORITHMS');
  if (v.algorithms.length === 0) out.push('  no algorithms recorded yet');
  for (const a of v.algorithms) {
    const last = a.chart.points[a.chart.points.length - 1];
    const util = last ? `${last.mean} % (${last.min}–${last.max})` : 'no samples in 24 h';
    const vs =
      a.runTimeSeconds === null
        ? notPlaced(a)
        : `run ${seconds(a.runTimeSeconds)} ${a.side === 'above' ? '>' : '≤'} ${seconds(a.thresholdSeconds)}`;
    out.push(
      `  ${a.name}: pool ${a.pool ?? '—'}, ${vs}, replicas ${a.replicas ?? '—'} (${a.minReplicas ?? '—'}..${a.maxReplicas ?? '—'}), utilisation ${util}, band ${a.chart.bandMin ?? '—'}–${a.chart.bandMax ?? '—'} %, ${plural(a.chart.markers.length, 'change')} in 24 h`,
    );
    if (a.held) out.push(`    ${a.held.reason}: ${a.held.message}`);
    if (a.scalingReason) out.push(`    ${a.scalingReason}: ${a.scalingMessage ?? ''}`);
  }
  return out;
}

/**
 * Renders the view; utilisation as the last bucket's mean (min–max) instead of a chart. Each
 * line's control characters are escaped ({@link escapeControl}): what the database holds never
 * drives the terminal.
 */
export function renderStatusText(v: StatusView): string {
  const out: string[] = [];
  const times = statusTimes(v);
  out.push(`gpuops status · cluster ${v.cluster} · ${times.read}`);
  out.push(times.records);
  if (times.clock) out.push(times.clock);
  const symbol = v.health.level === 'ok' ? '✔' : v.health.level === 'warning' ? '⚠' : '✖';
  out.push(`${symbol} ${v.health.line}`, '');
  out.push(...poolLines(v), '', ...algorithmLines(v));
  out.push('', 'BENCHMARKS IN FLIGHT');
  if (v.benchmarks.length === 0) out.push('  none');
  else
    out.push(
      ...columns(v.benchmarks.map((b) => [`  ${b.algorithm}`, b.pod, b.node ?? '—', b.phase, b.startedAt])),
    );
  out.push('', 'OPEN PULL REQUESTS');
  if (v.openPullRequests.length === 0) out.push('  none');
  else
    out.push(
      ...columns(
        v.openPullRequests.map((p) => [
          `  ${p.number === null ? p.branch : pullRequestRef(p)}`,
          p.kind,
          p.subject,
          p.url ?? '',
          p.title,
        ]),
      ),
    );
  out.push('', 'LAST DECISIONS');
  if (v.decisions.length === 0) out.push('  none recorded yet');
  else out.push(...columns(v.decisions.map((d) => [`  ${d.at}`, d.subject, d.action, d.reason, d.message])));
  out.push('', 'CLUSTER CACHE');
  if (v.cache === null) out.push(`  ${NO_CACHE}`);
  else if (v.cache.length === 0) out.push('  the controller keeps no cluster cache');
  else
    out.push(
      ...columns(
        v.cache.map((r) => [
          `  ${r.resource}`,
          r.synced ? 'synced' : 'NOT SYNCED',
          r.connected ? 'watch connected' : 'watch disconnected',
          `last relist ${r.lastRelistAt ?? 'never'}`,
          `${r.objects} objects`,
          `${r.eventsPerSecond} events/s`,
          r.reason ?? '',
        ]),
      ),
    );
  return `${out.map(escapeControl).join('\n')}\n`;
}
