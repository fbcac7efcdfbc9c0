/**
 * The human view of `gpuops plan`: tables of pools, placements, scaling, and the files a pass
 * would write. The decision itself is `planDesiredState` (src/controller/desired-state.ts).
 */
import type { Snapshot } from '../cluster/types.js';
import type { PlanOutput } from '../controller/desired-state.js';
import { nodeCapacities } from '../pools/capacity.js';
import { formatSpecError } from '../spec/rules/format.js';

export type { PlanOutput };

/**
 * The human table of `gpuops plan`: node, GPU model, GPUs free/allocatable, current pool →
 * desired pool, reason; then the files, errors and warnings.
 */
export function formatPlanTable(plan: PlanOutput, snapshot: Snapshot): string {
  const capacity = new Map(nodeCapacities(snapshot, plan.pools).map((c) => [c.node, c]));
  const head = ['NODE', 'GPU MODEL', 'GPUS FREE/ALLOC', 'POOL', 'REASON'];
  const rows = plan.pools.map((a) => {
    const c = capacity.get(a.node);
    const node = snapshot.nodes.find((n) => n.name === a.node);
    const pool = a.from === a.to ? (a.to ?? '-') : `${a.from ?? '-'} → ${a.to ?? '-'}`;
    return [
      a.node,
      node?.gpuProduct ?? '-',
      c && c.allocatable > 0 ? `${c.free}/${c.allocatable}` : '-',
      pool,
      `${a.reason}: ${a.message}`,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length)))
      .join('  ');
  const out = [`cluster ${plan.cluster}`, '', line(head), ...rows.map(line), ''];
  if (plan.placements.length > 0) {
    out.push(
      ...table(
        ['ALGORITHM', 'POOL', 'RUN TIME', 'REASON'],
        plan.placements.map((p) => [
          p.algorithm,
          p.pool ?? '-',
          p.runTimeSeconds === null ? '-' : `${p.runTimeSeconds.toFixed(1)} s`,
          `${p.reason}: ${p.message}`,
        ]),
      ),
      '',
    );
  }
  if (plan.scaling.length > 0) {
    out.push(
      ...table(
        ['ALGORITHM', 'REPLICAS', 'UTILISATION', 'DECISION', 'REASON'],
        plan.scaling.map((d) => [
          d.algorithm,
          d.replicas.from === d.replicas.to ? `${d.replicas.from}` : `${d.replicas.from} → ${d.replicas.to}`,
          d.utilization === null ? '-' : `${d.utilization.toFixed(1)} %`,
          d.nodes.length > 0 ? `${d.action} (${d.nodes.join(', ')})` : d.action,
          `${d.reason}: ${d.message}`,
        ]),
      ),
      '',
    );
  }
  out.push(...metricsLines(plan));
  if (plan.files.length === 0) out.push('files: no change');
  else out.push('files:', ...plan.files.map((f) => `  ${f.change.padEnd(6)} ${f.path}`));
  if (plan.errors.length > 0) {
    out.push('', `errors (${plan.errors.length}):`);
    for (const e of plan.errors) out.push(`  ${formatSpecError(e)}`);
  }
  for (const w of plan.warnings ?? []) out.push(`warning: ${w}`);
  return `${out.join('\n')}\n`;
}

/**
 * Why utilisation data is missing, for the text of `plan`: the time the reading was judged at
 * (and the skew to this clock), the source's failure, and dropped series counted by reason
 * (`dropped series: Stale: 3 (oldest 604800 s), UnknownPod: 2`). Empty without a metrics report.
 */
export function metricsLines(plan: PlanOutput): string[] {
  const m = plan.metrics;
  if (!m) return [];
  const out: string[] = [];
  if (m.evaluatedAt !== null) {
    const skew = m.skewSeconds ? ` (${m.skewSeconds > 0 ? '+' : ''}${m.skewSeconds} s from this clock)` : '';
    out.push(`metrics: judged at ${m.evaluatedAt}${skew}`);
  }
  if (m.noData !== null) out.push(`metrics: ${m.noData}`);
  if (m.dropped.length > 0) {
    out.push(
      `dropped series: ${m.dropped
        .map(
          (d) =>
            `${d.reason}: ${d.count}${d.oldestSeconds === undefined ? '' : ` (oldest ${d.oldestSeconds} s)`}`,
        )
        .join(
          ', ',
        )}${m.dropped.some((d) => d.reason === 'Stale') ? `; stale limit ${m.staleLimitSeconds} s` : ''}`,
    );
  }
  for (const w of m.warnings) out.push(`warning: ${w}`);
  if (out.length > 0) out.push('');
  return out;
}

/** Left-aligned columns, two spaces apart; the last column is not padded. */
export function table(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => [...r[i]!].length)));
  const line = (r: string[]) =>
    r
      .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length)))
      .join('  ');
  return [line(head), ...rows.map(line)];
}
