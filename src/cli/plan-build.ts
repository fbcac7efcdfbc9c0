/**
 * The human view of `gpuops plan`: tables of pools, placements, scaling, and the files a pass
 * would write. The decision itself is `planDesiredState` (src/plan/desired-state.ts).
 */
import { describeProducts } from '../placement/index.js';
import type { Snapshot } from '../cluster/index.js';
import type { PlanOutput } from '../plan/index.js';
import { nodeCapacities } from '../pools/index.js';
import type { PoolAssignment } from '../pools/index.js';
import { formatSpecError } from '../definitions/index.js';
import { escapeControl } from '../util/index.js';

export type { PlanOutput };

/** A node as `plan` shows it: its pool decision, GPU product, and whole GPUs free/allocatable. */
export type PlanNode = PoolAssignment & {
  /** `nvidia.com/gpu.product` (GPU Feature Discovery), `null` when the node has none. */
  gpuProduct: string | null;
  /**
   * Whole GPUs: `allocatable` (physical GPUs for a shared node), `free` a new pod can get (0 when
   * NotReady or cordoned); `null` for a node with no allocatable GPU.
   */
  gpus: { free: number; allocatable: number } | null;
};

/** The sections of a plan that can be empty. */
export type PlanSection = 'pools' | 'placements' | 'scaling' | 'files' | 'errors';

/**
 * `gpuops plan --output json`: the plan (docs/design.md, "Command-line contract", unchanged) with
 * what the text shows beside it: each node's GPU product and free/allocatable GPUs, the nodes left
 * out of every pool with their reasons, and why each empty section is empty.
 */
export type PlanReport = Omit<PlanOutput, 'pools'> & {
  pools: PlanNode[];
  /** The nodes that get no pool (`to: null`), with the reason: the same entries as in `pools`. */
  leftOut: { node: string; reason: string; message: string }[];
  /** For each empty section, why it is empty (the sentence the text prints). */
  empty: Partial<Record<PlanSection, string>>;
};

/** Why each empty section of `plan` is empty, in words a person acts on. */
export function emptySections(plan: PlanOutput): Partial<Record<PlanSection, string>> {
  const empty: Partial<Record<PlanSection, string>> = {};
  const specErrors = plan.errors.filter((e) => e.file.startsWith('algorithms/')).length;
  if (plan.pools.length === 0) empty.pools = 'the snapshot has no nodes';
  if (plan.placements.length === 0) {
    empty.placements =
      specErrors > 0
        ? `no valid Algorithm spec; ${specErrors} ${specErrors === 1 ? 'error' : 'errors'} in algorithms/, listed under errors`
        : 'no Algorithm spec in algorithms/';
  }
  if (plan.scaling.length === 0) {
    const waiting = plan.placements.filter((p) => p.pool === null).length;
    empty.scaling =
      plan.placements.length === 0
        ? 'no algorithm to scale'
        : waiting > 0
          ? `no algorithm is placed yet, ${waiting} waiting for a benchmark; scaling starts once its Deployment is in Git`
          : `no algorithm has a Deployment in clusters/${plan.cluster}/algorithms/ yet`;
  }
  if (plan.files.length === 0) empty.files = 'no change: Git already holds the desired state';
  if (plan.errors.length === 0) empty.errors = 'every spec is valid';
  return empty;
}

/** The plan with what its text shows (see {@link PlanReport}). */
export function planReport(plan: PlanOutput, snapshot: Snapshot): PlanReport {
  const capacity = new Map(nodeCapacities(snapshot, plan.pools).map((c) => [c.node, c]));
  const pools = plan.pools.map((a): PlanNode => {
    const c = capacity.get(a.node);
    return {
      ...a,
      gpuProduct: c?.gpuProduct ?? null,
      gpus: c && c.allocatable > 0 ? { free: c.free, allocatable: c.allocatable } : null,
    };
  });
  const leftOut = plan.pools
    .filter((a) => a.to === null)
    .map((a) => ({ node: a.node, reason: a.reason, message: a.message }));
  return { ...plan, pools, leftOut, empty: emptySections(plan) };
}

/**
 * The human table of `gpuops plan`: node, GPU model, GPUs free/allocatable, current pool →
 * desired pool, reason; then placements, scaling, metrics, files, errors and warnings. Every
 * section is printed; an empty one says why it is empty.
 */
export function formatPlanTable(plan: PlanOutput, snapshot: Snapshot): string {
  const report = planReport(plan, snapshot);
  const { empty } = report;
  const none = (section: PlanSection) => `${section}: none (${empty[section]})`;
  const out = [`cluster ${plan.cluster}`, ''];
  if (empty.pools) out.push(none('pools'), '');
  else {
    const leftOut = report.leftOut.length;
    out.push(
      ...table(
        ['NODE', 'GPU MODEL', 'GPUS FREE/ALLOC', 'POOL', 'REASON'],
        report.pools.map((a) => [
          a.node,
          a.gpuProduct ?? '-',
          a.gpus ? `${a.gpus.free}/${a.gpus.allocatable}` : '-',
          a.from === a.to ? (a.to ?? '-') : `${a.from ?? '-'} → ${a.to ?? '-'}`,
          `${a.reason}: ${a.message}`,
        ]),
      ),
      `${report.pools.length} ${report.pools.length === 1 ? 'node' : 'nodes'}, ${leftOut} left out of every pool`,
      '',
    );
  }
  if (empty.placements) out.push(none('placements'), '');
  else {
    out.push(
      ...table(
        ['ALGORITHM', 'POOL', 'RUN TIME', 'GPU PRODUCT', 'REASON'],
        plan.placements.map((p) => [
          p.algorithm,
          p.pool ?? '-',
          p.runTimeSeconds === null ? '-' : `${p.runTimeSeconds.toFixed(1)} s`,
          p.gpu ? describeProducts(p.gpu) : 'any',
          `${p.reason}: ${p.message}`,
        ]),
      ),
      '',
    );
  }
  for (const r of plan.rollouts ?? []) out.push(`rollout ${r.algorithm}: ${r.reason}: ${r.message}`, '');
  if (empty.scaling) out.push(none('scaling'), '');
  else {
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
  if (empty.files) out.push(`files: ${empty.files}`);
  else out.push('files:', ...plan.files.map((f) => `  ${f.change.padEnd(6)} ${f.path}`));
  out.push('');
  if (empty.errors) out.push(none('errors'));
  else {
    out.push(`errors (${plan.errors.length}):`);
    for (const e of plan.errors) out.push(`  ${formatSpecError(e)}`);
  }
  for (const w of plan.warnings ?? []) out.push(`warning: ${w}`);
  return `${out.map(escapeControl).join('\n')}\n`;
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
