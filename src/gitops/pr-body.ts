/**
 * Pull-request bodies, titles and the desired-state hash. Pure: data in, Markdown out; no clock,
 * so the same evidence always renders the same bytes (a body that changed every pass would update
 * the PR every pass).
 */
import { createHash } from 'node:crypto';
import type { Placement } from '../placement/types.js';
import type { PoolAssignment } from '../pools/types.js';
import type { PodSample, ScalingDecision } from '../scaling/types.js';
import type { BenchmarkRun } from '../store/types.js';
import type { ChangeKind, FileChange, PlannedFile } from './types.js';

/** Prefix of the hidden marker; the full marker is `<!-- gpuops:desired-hash=<hex> -->`. */
export const DESIRED_HASH_MARKER = 'gpuops:desired-hash=';

/**
 * sha256 (hex) of a change set's desired files, independent of their order: every file as
 * `path NUL content NUL` (a deletion as `path NUL \u0001deleted NUL`), sorted by path.
 */
export function desiredHash(files: readonly FileChange[]): string {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    h.update(f.path)
      .update('\0')
      .update(f.content ?? '\u0001deleted')
      .update('\0');
  }
  return h.digest('hex');
}

/** The hidden marker line for a hash. */
export function hashMarker(hash: string): string {
  return `<!-- ${DESIRED_HASH_MARKER}${hash} -->`;
}

/** The desired hash recorded in a PR body, or null when the body carries no marker. */
export function parseDesiredHash(body: string | null | undefined): string | null {
  const m = /<!--\s*gpuops:desired-hash=([0-9a-f]{16,128})\s*-->/.exec(body ?? '');
  return m?.[1] ?? null;
}

/** `body` without any desired-hash marker, trailing whitespace trimmed. */
export function stripHashMarker(body: string): string {
  return body.replace(/\n*<!--\s*gpuops:desired-hash=[0-9a-f]*\s*-->\n*/g, '\n').trimEnd();
}

/** `body` with exactly one marker for `hash` at its end (replacing any earlier marker). */
export function withHashMarker(body: string, hash: string): string {
  return `${stripHashMarker(body)}\n\n${hashMarker(hash)}\n`;
}

/** Benchmark evidence for one placement: the runs behind the median, and the threshold (seconds). */
export interface PlacementEvidence {
  placement: Placement;
  runs: Pick<BenchmarkRun, 'run' | 'status' | 'durationSeconds' | 'node'>[];
  /** `placement.longTaskThresholdSeconds` of the policy. */
  longTaskThresholdSeconds: number;
}

/** Utilisation evidence for one scaling decision (percent) and the bounds it was compared with. */
export interface ScalingEvidence {
  decision: ScalingDecision;
  /** The per-pod ("first") utilisation samples the aggregate came from. */
  pods: PodSample[];
  /** `scaling.utilization.min` / `.max` (percent). */
  min: number;
  max: number;
  minReplicas: number;
  maxReplicas: number;
}

/** Everything a PR body shows. Only the sections with data are rendered. */
export interface PrBodyInput {
  cluster: string;
  kind: ChangeKind;
  subject: string;
  /** Files that differ from the base branch. */
  files: PlannedFile[];
  desiredHash: string;
  placements?: PlacementEvidence[];
  scaling?: ScalingEvidence[];
  /**
   * Pool assignments; those whose pool changes (`from !== to`) are listed as moves, GPU nodes that
   * stay in no pool (`from` and `to` null, reason other than `NoGPU`) as left out with their reason.
   */
  pools?: PoolAssignment[];
}

/** A Markdown table cell: pipes escaped, newlines folded, empty shown as `—`. */
function cell(v: string | number | null): string {
  if (v === null || v === '') return '—';
  return String(v).replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function num(v: number | null): string {
  return v === null || !Number.isFinite(v) ? '—' : v.toFixed(1);
}

function table(header: string[], rows: (string | number | null)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.map(cell).join(' | ')} |`);
  return lines.join('\n');
}

function moves(pools: readonly PoolAssignment[] | undefined): PoolAssignment[] {
  return [...(pools ?? [])]
    .filter((p) => p.from !== p.to)
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}

/** `a`, `a and b`, `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** `move a into test, b and c into unused`: every moved node named, grouped by destination. */
function movesPhrase(m: readonly PoolAssignment[]): string {
  const byPool = new Map<string, string[]>();
  for (const p of m) {
    const to = p.to ?? 'no pool';
    byPool.set(to, [...(byPool.get(to) ?? []), p.node]);
  }
  return `move ${[...byPool].map(([to, nodes]) => `${list(nodes)} into ${to}`).join(', ')}`;
}

/**
 * A short, stable title that says what the change does and names every node it moves (it is
 * also the commit title): `gpuops(<cluster>): place resnet50-infer on short-task`,
 * `gpuops(prod): move gpu-a100-01 into test`, `gpuops(prod): move gpu-h100-01 into long-task so
 * the Pending replica of bert-train can start`.
 */
export function prTitle(input: Omit<PrBodyInput, 'desiredHash' | 'files'>): string {
  const prefix = `gpuops(${input.cluster}):`;
  if (input.kind === 'pools') {
    const m = moves(input.pools);
    return m.length > 0 ? `${prefix} ${movesPhrase(m)}` : `${prefix} update GPU node pools`;
  }
  if (input.kind === 'placement') {
    const p = input.placements?.[0]?.placement;
    return p?.pool
      ? `${prefix} place ${input.subject} on ${p.pool}`
      : `${prefix} update placement of ${input.subject}`;
  }
  const d = input.scaling?.[0]?.decision;
  const scale =
    d && d.replicas.from !== d.replicas.to
      ? `scale ${input.subject} from ${d.replicas.from} to ${d.replicas.to} replicas`
      : null;
  if (d && d.nodes.length > 0) {
    const pool = moves(input.pools).find((p) => d.nodes.includes(p.node))?.to;
    const move = `move ${list([...d.nodes].sort())} into ${pool ?? `the pool of ${input.subject}`}`;
    if (scale) return `${prefix} ${move} and ${scale}`;
    return `${prefix} ${move} so the Pending replica${d.nodes.length > 1 ? 's' : ''} of ${input.subject} can start`;
  }
  if (scale) return `${prefix} ${scale}`;
  return `${prefix} update scaling of ${input.subject}`;
}

/**
 * The replica change a scale pull request's title (from {@link prTitle}) proposes, or null when
 * the title names none (a node move only, a title a person edited).
 */
export function titleReplicas(title: string, subject: string): { from: number; to: number } | null {
  const m = / scale (\S+) from (\d+) to (\d+) replicas$/.exec(title);
  if (!m || m[1] !== subject) return null;
  return { from: Number(m[2]), to: Number(m[3]) };
}

function placementSection(ev: PlacementEvidence): string {
  const p = ev.placement;
  const out = [
    `### Placement of \`${p.algorithm}\``,
    '',
    `Runs longer than **${num(ev.longTaskThresholdSeconds)} s** (median) go to \`long-task\`, the others to \`short-task\`.`,
    '',
    table(
      ['algorithm', 'pool', 'median run time (s)', 'threshold (s)', 'reason'],
      [[p.algorithm, p.pool, num(p.runTimeSeconds), num(ev.longTaskThresholdSeconds), p.reason]],
    ),
    '',
    p.message,
  ];
  if (ev.runs.length > 0) {
    out.push(
      '',
      'Measured benchmark runs:',
      '',
      table(
        ['run', 'status', 'run time (s)', 'node'],
        [...ev.runs]
          .sort((a, b) => a.run - b.run)
          .map((r) => [r.run, r.status, num(r.durationSeconds), r.node]),
      ),
    );
  }
  return out.join('\n');
}

function scalingSection(ev: ScalingEvidence): string {
  const d = ev.decision;
  const pods = [...ev.pods].sort((a, b) =>
    `${a.namespace}/${a.pod}` < `${b.namespace}/${b.pod}`
      ? -1
      : `${a.namespace}/${a.pod}` > `${b.namespace}/${b.pod}`
        ? 1
        : 0,
  );
  const out = [
    `### Scaling of \`${d.algorithm}\``,
    '',
    table(
      ['aggregate utilisation (%)', 'min (%)', 'max (%)', 'replicas', 'decision', 'reason'],
      [
        [
          num(d.utilization),
          num(ev.min),
          num(ev.max),
          `${d.replicas.from} → ${d.replicas.to} (limits ${ev.minReplicas}..${ev.maxReplicas})`,
          d.action,
          d.reason,
        ],
      ],
    ),
    '',
    d.message,
  ];
  // Said once: the decision's message usually names the moved nodes already (no node: none to say).
  if (!d.nodes.every((n) => d.message.includes(n)))
    out.push('', `Unused nodes moved into the pool: ${d.nodes.map((n) => `\`${n}\``).join(', ')}.`);
  if (pods.length > 0) {
    out.push(
      '',
      'Per-pod GPU utilisation:',
      '',
      table(
        ['namespace', 'pod', 'GPU utilisation (%)', 'GPUs'],
        pods.map((s) => [s.namespace, s.pod, num(s.utilization), s.gpus.length]),
      ),
    );
  }
  return out.join('\n');
}

function poolsSection(pools: readonly PoolAssignment[]): string {
  const m = moves(pools);
  const out = [
    '### Node pools',
    '',
    m.length === 0
      ? 'No node changes pool.'
      : table(
          ['node', 'from', 'to', 'reason', 'why'],
          m.map((p) => [p.node, p.from ?? 'none', p.to ?? 'none', p.reason, p.message]),
        ),
  ];
  const test = m.filter((p) => p.to === 'test').map((p) => `\`${p.node}\``);
  if (test.length > 0) {
    // Why this node: the rule of `assignPools`, not its message again (the table has that).
    out.push(
      '',
      `${list(test)} ${test.length === 1 ? 'becomes the test node' : 'become test nodes'}: test nodes are taken, in name order, from the GPU nodes that are Ready, schedulable, in no pool or \`unused\`, and run no workload gpuops does not manage (\`pools.test.size\` of them, or one per GPU product with \`pools.test.perGPUProduct\`).`,
    );
  }
  // GPU nodes in no pool, and why: the reader sees every GPU node accounted for.
  const left = [...pools]
    .filter((p) => p.to === null && p.from === null && p.reason !== 'NoGPU')
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  if (left.length > 0) {
    out.push(
      '',
      `GPU nodes left out of every pool (${left.length}):`,
      '',
      table(
        ['node', 'reason', 'why'],
        left.map((p) => [p.node, p.reason, p.message]),
      ),
    );
  }
  return out.join('\n');
}

/**
 * The Markdown body of a pull request: what changes and why, the evidence tables (placements:
 * measured runs, median, threshold; scaling: per-pod utilisation, aggregate, min/max, decision,
 * reason; pools: node, from → to, reason) and the hidden desired-hash marker at the end.
 */
export function renderPrBody(input: PrBodyInput): string {
  const parts: string[] = [`## ${prTitle(input)}`, ''];
  const what =
    input.kind === 'pools'
      ? `gpuops sorts the GPU nodes of cluster \`${input.cluster}\` into pools (label \`gpuops.dev/pool\`).`
      : input.kind === 'placement'
        ? `gpuops places \`${input.subject}\` on the pool its measured run time calls for.`
        : `gpuops scales \`${input.subject}\` by its GPU utilisation.`;
  parts.push(what, '');
  for (const ev of input.placements ?? []) parts.push(placementSection(ev), '');
  for (const ev of input.scaling ?? []) parts.push(scalingSection(ev), '');
  if (input.kind === 'pools' || (input.pools?.length ?? 0) > 0)
    parts.push(poolsSection(input.pools ?? []), '');
  parts.push(
    '### Files',
    '',
    input.files.length === 0
      ? 'No file differs from the base branch.'
      : table(
          ['file', 'change'],
          [...input.files].sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => [`\`${f.path}\``, f.change]),
        ),
    '',
    '---',
    '<sub>Opened by gpuops. The files under `clusters/` are generated: change the specs in `algorithms/` or `policies/` instead. Closing this pull request without merging keeps gpuops from reopening it until the desired state changes.</sub>',
  );
  return withHashMarker(parts.join('\n'), input.desiredHash);
}
