/**
 * The decision of `gpuops plan`, as data: repo + snapshot (+ later: benchmarks, metrics) →
 * the plan JSON of DESIGN.md and the files gpuops would write. No I/O here: the command reads
 * the repo, the dumps or the live cluster, and passes them in.
 */
import type { Snapshot } from '../cluster/types.js';
import type { FileChange, PlannedFile } from '../gitops/types.js';
import { renderClusterKustomization } from '../manifests/cluster-kustomization.js';
import { renderNodeFiles } from '../manifests/nodes.js';
import type { Placement } from '../placement/types.js';
import { assignPools } from '../pools/assign.js';
import { nodeCapacities } from '../pools/capacity.js';
import type { PoolAssignment } from '../pools/types.js';
import type { ScalingDecision } from '../scaling/types.js';
import { formatSpecError } from '../spec/rules/format.js';
import type { LoadedRepo, SpecError } from '../spec/types.js';

/** `gpuops plan --output json` (DESIGN.md "Command-line contract"); fields may be added, these stay. */
export interface PlanOutput {
  cluster: string;
  errors: SpecError[];
  pools: PoolAssignment[];
  placements: Placement[];
  scaling: ScalingDecision[];
  files: PlannedFile[];
  /** Snapshot problems (objects that could not be read in full); absent when none. */
  warnings?: string[];
}

/** Everything a plan decides on. */
export interface PlanInput {
  cluster: string;
  repo: Pick<LoadedRepo, 'policy' | 'errors' | 'algorithms'>;
  snapshot: Snapshot;
  /** Files under `clusters/<cluster>/` in the repo now: repo-relative path → content. */
  existing: Record<string, string>;
  /** Nodes running a benchmark now (test nodes that must not be released). */
  runningBenchmarks?: string[];
  /**
   * Files other steps want under `clusters/<cluster>/algorithms/` (content `null`: delete). The
   * cluster kustomization lists every `algorithms/<name>/` folder that has a kustomization.yaml
   * after these apply.
   */
  algorithmFiles?: FileChange[];
}

/** The plan and the files it would write (content `null`: delete), sorted by path. */
export interface Plan {
  output: PlanOutput;
  changes: FileChange[];
}

/**
 * Builds the plan (pure; deterministic). `pools` has one entry per snapshot node; `files` lists
 * only real differences against `existing`: node manifests and the kustomizations, created,
 * updated, or deleted (node files of nodes that need none any more). `placements` and `scaling`
 * stay empty until their steps are wired in here.
 */
export function buildPlan(input: PlanInput): Plan {
  const { cluster, repo, snapshot, existing } = input;
  const policy = repo.policy.spec;
  const pools = assignPools(snapshot, repo.policy, { runningBenchmarks: input.runningBenchmarks ?? [] });

  const desired = new Map<string, string | null>();
  for (const f of renderNodeFiles({ cluster, assignments: pools, nodes: snapshot.nodes, policy })) {
    desired.set(f.path, f.content);
  }
  const nodesPrefix = `clusters/${cluster}/nodes/`;
  for (const path of Object.keys(existing)) {
    if (path.startsWith(nodesPrefix) && !desired.has(path)) desired.set(path, null);
  }
  for (const f of input.algorithmFiles ?? []) desired.set(f.path, f.content);
  const root = renderClusterKustomization(cluster, algorithmFolders(cluster, existing, desired));
  desired.set(root.path, root.content);

  const changes: FileChange[] = [];
  const files: PlannedFile[] = [];
  for (const path of [...desired.keys()].sort()) {
    const content = desired.get(path)!;
    const before = existing[path];
    if (content === null) {
      if (before === undefined) continue;
      files.push({ path, change: 'delete' });
    } else if (before === undefined) {
      files.push({ path, change: 'create' });
    } else if (before !== content) {
      files.push({ path, change: 'update' });
    } else {
      continue;
    }
    changes.push({ path, content });
  }

  const output: PlanOutput = { cluster, errors: repo.errors, pools, placements: [], scaling: [], files };
  if (snapshot.warnings && snapshot.warnings.length > 0) output.warnings = snapshot.warnings;
  return { output, changes };
}

/** Algorithm folders that hold a kustomization.yaml once `desired` is applied over `existing`. */
function algorithmFolders(
  cluster: string,
  existing: Record<string, string>,
  desired: Map<string, string | null>,
): string[] {
  const re = new RegExp(`^clusters/${escapeRegExp(cluster)}/algorithms/([^/]+)/kustomization\\.yaml$`);
  const names = new Set<string>();
  for (const path of new Set([...Object.keys(existing), ...desired.keys()])) {
    const m = re.exec(path);
    if (!m) continue;
    const after = desired.has(path) ? desired.get(path) : existing[path];
    if (after !== null && after !== undefined) names.add(m[1]!);
  }
  return [...names];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
  if (plan.files.length === 0) out.push('files: no change');
  else out.push('files:', ...plan.files.map((f) => `  ${f.change.padEnd(6)} ${f.path}`));
  if (plan.errors.length > 0) {
    out.push('', `errors (${plan.errors.length}):`);
    for (const e of plan.errors) out.push(`  ${formatSpecError(e)}`);
  }
  for (const w of plan.warnings ?? []) out.push(`warning: ${w}`);
  return `${out.join('\n')}\n`;
}
