/**
 * Pull-request titles (also the commit titles). Pure. A title always fits GitHub's limit of 256
 * characters (`POST /pulls` answers 422 "title is too long (maximum is 256 characters)" above it,
 * googleapis/repo-automation-bots#1895): the pools title says counts ("move 12 nodes: 1 into test,
 * 11 into unused"), never names (twelve EKS node names are 570 characters); the names are in the
 * body. A title that removes live objects says so first (`remove Deployment algorithms/x (3 running
 * replicas) and Service algorithms/x`); one that creates a Namespace or a binding says so next, by
 * name where it fits.
 */
import type { PoolAssignment } from '../pools/index.js';
import type { CreatedObject } from './created-objects.js';
import { fitTitle, GITHUB_TITLE_MAX } from './host-limits.js';
import type { PlacementEvidence, ScalingEvidence, StandbyEvidence } from './pr-evidence.js';
import { count, list, plural, poolMoves } from './pr-text.js';
import { describeRemoved, type RemovedObject } from './removed-objects.js';
import type { ChangeKind } from './types.js';
import { gitReplicas } from '../scaling/index.js';
import { byString } from '../util/index.js';

/** What a title is made from: the change set's subject and its evidence. */
export interface TitleInput {
  cluster: string;
  kind: ChangeKind;
  subject: string;
  placements?: PlacementEvidence[];
  scaling?: ScalingEvidence[];
  pools?: PoolAssignment[];
  /** The standby set's sizing (kind `standby`). */
  standby?: StandbyEvidence;
  /** Namespaces and bindings the change set creates or changes (`createdObjects`). */
  creates?: readonly CreatedObject[];
  /** Live objects the change set deletes (`removedObjects`). */
  removes?: readonly RemovedObject[];
}

const POOL_ORDER = ['test', 'unused', 'long-task', 'short-task', 'no pool'];

/** `move 1 node into test`, `move 12 nodes: 1 into test, 11 into unused` (pools in a fixed order). */
function countedMoves(m: readonly PoolAssignment[]): string {
  const byPool = new Map<string, number>();
  for (const p of m) byPool.set(p.to ?? 'no pool', (byPool.get(p.to ?? 'no pool') ?? 0) + 1);
  const groups = [...byPool].sort(([a], [b]) => POOL_ORDER.indexOf(a) - POOL_ORDER.indexOf(b));
  const nodes = plural(m.length, 'node');
  if (groups.length === 1) return `move ${nodes} into ${groups[0]![0]}`;
  return `move ${nodes}: ${groups.map(([to, n]) => `${count(n)} into ${to}`).join(', ')}`;
}

/** The objects of one verb, by name (`Namespace a with RoleBinding b`) or by count. */
function grantItems(objects: readonly CreatedObject[], named: boolean): string[] {
  if (!named) {
    const kinds = new Map<string, number>();
    for (const o of objects) kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
    return [...kinds].map(([kind, n]) => plural(n, kind));
  }
  const namespaces = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.name));
  const items: string[] = [];
  for (const o of objects) {
    if (o.kind === 'Namespace') {
      const bindings = objects.filter((b) => b.kind === 'RoleBinding' && b.namespace === o.name);
      const names = bindings.map((b) => b.name);
      items.push(
        bindings.length === 0
          ? `Namespace ${o.name}`
          : `Namespace ${o.name} with RoleBinding${names.length > 1 ? 's' : ''} ${list(names)}`,
      );
    } else if (o.kind === 'ClusterRoleBinding') items.push(`ClusterRoleBinding ${o.name}`);
    else if (!namespaces.has(o.namespace ?? '')) items.push(`RoleBinding ${o.name} in ${o.namespace}`);
  }
  return items;
}

/** `create … ; change …` clauses, or none. */
function grantClauses(creates: readonly CreatedObject[], named: boolean): string[] {
  const out: string[] = [];
  const made = creates.filter((o) => o.action === 'create');
  const changed = creates.filter((o) => o.action === 'change');
  if (made.length > 0) out.push(`create ${list(grantItems(made, named))}`);
  if (changed.length > 0) out.push(`change ${list(grantItems(changed, named))}`);
  return out;
}

/**
 * `remove Deployment algorithms/x (3 running replicas) and Service algorithms/x`, or by count
 * (`remove 12 live objects: 4 Deployments (9 running replicas), 8 Services`); null when none.
 */
function removalClause(removes: readonly RemovedObject[], named: boolean): string | null {
  if (removes.length === 0) return null;
  if (named) return `remove ${list(removes.map((o) => describeRemoved(o)))}`;
  const kinds = new Map<string, RemovedObject[]>();
  for (const o of removes) kinds.set(o.kind, [...(kinds.get(o.kind) ?? []), o]);
  const groups = [...kinds].map(([kind, os]) => {
    const counted = os.filter((o) => o.runningReplicas !== null);
    const running = counted.reduce((s, o) => s + o.runningReplicas!, 0);
    const replicas = counted.length > 0 ? ` (${plural(running, 'running replica')})` : '';
    return `${plural(os.length, kind)}${replicas}`;
  });
  return `remove ${plural(removes.length, 'live object')}: ${groups.join(', ')}`;
}

/** `keep 3 standby pods of set llm on short-task`, `resize standby set llm on short-task from 2 to 3 pods`; null for a removal. */
function standbyClause(input: TitleInput): string | null {
  const e = input.standby;
  if (!e) return (input.removes?.length ?? 0) > 0 ? null : `update standby set ${input.subject}`;
  const { from, to } = e.replicas;
  return from === null || from === to
    ? `keep ${plural(to, 'standby pod')} of set ${e.set} on ${e.pool}`
    : `resize standby set ${e.set} on ${e.pool} from ${from} to ${plural(to, 'pod')}`;
}

/** The kind's own clause: node names where `named`, counts otherwise; null when the grants or removals say all. */
function mainClause(input: TitleInput, named: boolean, hasGrants: boolean): string | null {
  if (input.kind === 'pools') {
    const m = poolMoves(input.pools);
    if (m.length > 0) return countedMoves(m);
    return hasGrants ? null : 'update GPU node pools';
  }
  if (input.kind === 'placement') {
    const p = input.placements?.[0]?.placement;
    // A deleted spec's folder: the removal clause is the whole change.
    if (!p && (input.removes?.length ?? 0) > 0) return null;
    return p?.pool ? `place ${input.subject} on ${p.pool}` : `update placement of ${input.subject}`;
  }
  if (input.kind === 'standby') return standbyClause(input);
  const d = input.scaling?.[0]?.decision;
  // The Deployment's replicas in Git, what the merge changes; claimed standby pods carry the rest.
  const git = d ? gitReplicas(d) : null;
  const total =
    d && git && (git.from !== d.replicas.from || git.to !== d.replicas.to)
      ? ` (${d.replicas.from} → ${d.replicas.to} with claimed standby pods)`
      : '';
  const scale =
    d && git && git.from !== git.to
      ? `scale ${input.subject} from ${git.from} to ${git.to} replicas${total}`
      : null;
  if (d && d.nodes.length > 0) {
    const pool = poolMoves(input.pools).find((p) => d.nodes.includes(p.node))?.to;
    const nodes = named ? list([...d.nodes].sort(byString)) : plural(d.nodes.length, 'node');
    const move = `move ${nodes} into ${pool ?? `the pool of ${input.subject}`}`;
    if (scale) return `${move} and ${scale}`;
    return `${move} so the Pending replica${d.nodes.length > 1 ? 's' : ''} of ${input.subject} can start`;
  }
  return scale ?? `update scaling of ${input.subject}`;
}

/**
 * A short, stable title of at most {@link GITHUB_TITLE_MAX} characters that says what the change
 * does: `gpuops(prod): place resnet50-infer on short-task`, `gpuops(prod): move 12 nodes: 1 into
 * test, 11 into unused`, `gpuops(prod): create Namespace algorithms with RoleBinding
 * gpuops-benchmark; move 1 node into test`, `gpuops(prod): move gpu-h100-01 into long-task so the
 * Pending replica of bert-train can start`, `gpuops(prod): remove Deployment algorithms/bert (3
 * running replicas) and Service algorithms/bert`. Names (of removed and created objects, then of
 * the nodes a scale change moves) give way to counts when the title would be longer than the limit; a title still
 * too long (never with DNS-1123 names) is cut with `…`.
 */
export function prTitle(input: TitleInput, max = GITHUB_TITLE_MAX): string {
  const prefix = `gpuops(${input.cluster}):`;
  const creates = input.creates ?? [];
  let last = '';
  for (const namedGrants of [true, false]) {
    for (const namedNodes of [true, false]) {
      const removal = removalClause(input.removes ?? [], namedGrants);
      const clauses = [...(removal ? [removal] : []), ...grantClauses(creates, namedGrants)];
      const main = mainClause(input, namedNodes, clauses.length > (removal ? 1 : 0));
      if (main !== null) clauses.push(main);
      last = `${prefix} ${clauses.join('; ')}`;
      if (last.length <= max) return last;
    }
  }
  return fitTitle(last, max);
}

/**
 * The replica change a scale pull request's title (from {@link prTitle}) proposes, or null when
 * the title names none (a node move only, a title a person edited).
 */
export function titleReplicas(title: string, subject: string): { from: number; to: number } | null {
  const m = / scale (\S+) from (\d+) to (\d+) replicas(?: \(\d+ → \d+ with claimed standby pods\))?$/.exec(
    title,
  );
  if (!m || m[1] !== subject) return null;
  return { from: Number(m[2]), to: Number(m[3]) };
}
