/**
 * Building and grouping change sets. Pure: data in, data out.
 */
import { branchName } from './branch-name.js';
import { createdObjects } from './created-objects.js';
import { fitText } from './host-limits.js';
import {
  desiredHash,
  fitPrBody,
  FULL_TEXT_AT,
  stripHashMarker,
  withHashMarker,
  type PlacementEvidence,
  type ScalingEvidence,
} from './pr-body.js';
import type { StandbyEvidence } from './pr-evidence.js';
import { prTitle } from './pr-title.js';
import { removedMetadata } from './removed-metadata.js';
import { removedObjects } from './removed-objects.js';
import type { PoolAssignment } from '../pools/index.js';
import type { ChangeKind, ChangeSet, FileChange, PlannedFile } from './types.js';

/** What one subject wants in Git, with the evidence for its PR body. */
export interface ChangeSetInput {
  cluster: string;
  kind: ChangeKind;
  /** `pools`, or the algorithm name. */
  subject: string;
  /** The subject's desired files (full content; `null` deletes). */
  files: FileChange[];
  /** Files at the base branch head (from `WorkingCopy.readTree`), to list what changes. */
  current?: ReadonlyMap<string, string>;
  placements?: PlacementEvidence[];
  scaling?: ScalingEvidence[];
  pools?: PoolAssignment[];
  /** The standby set's sizing (kind `standby`). */
  standby?: StandbyEvidence;
  labels?: string[];
  /**
   * Running pods of each Deployment by `namespace/name` (from the snapshot), for the replicas a
   * removal takes down; absent: the counts are unknown and not shown.
   */
  running?: ReadonlyMap<string, number>;
  /**
   * A reconciler's memo of parsed one-document texts (null when `parse` fails), for the check of
   * what a rewritten file drops (`removedMetadata`); absent: parsed each time.
   */
  parseOne?: (text: string) => unknown;
}

/** Files of `files` that differ from `current` (create, update, delete), sorted by path. */
export function planFiles(files: readonly FileChange[], current: ReadonlyMap<string, string>): PlannedFile[] {
  const out: PlannedFile[] = [];
  for (const f of files) {
    const now = current.get(f.path);
    if (f.content === null) {
      if (now !== undefined) out.push({ path: f.path, change: 'delete' });
    } else if (now === undefined) out.push({ path: f.path, change: 'create' });
    else if (now !== f.content) out.push({ path: f.path, change: 'update' });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * A complete change set: stable branch, title (≤ 256 characters, naming the live objects it
 * deletes and the Namespaces and bindings it creates), Markdown body with evidence and hash marker (≤ 65,536 characters; the
 * whole body in `fullBody` when it was cut), and the desired hash of its files. Returns null
 * when `current` is given and no file differs.
 */
export function buildChangeSet(input: ChangeSetInput): ChangeSet | null {
  const planned = input.current
    ? planFiles(input.files, input.current)
    : input.files.map(
        (f) => ({ path: f.path, change: f.content === null ? 'delete' : 'update' }) as PlannedFile,
      );
  if (input.current && planned.length === 0) return null;
  const hash = desiredHash(input.files);
  const evidence = {
    cluster: input.cluster,
    kind: input.kind,
    subject: input.subject,
    placements: input.placements,
    scaling: input.scaling,
    pools: input.pools,
    ...(input.standby ? { standby: input.standby } : {}),
    creates: createdObjects(input.files, input.current),
    removes: removedObjects(input.files, input.current, input.running),
    removedMetadata: removedMetadata(input.files, input.current, input.parseOne),
  };
  const { body, full } = fitPrBody({ ...evidence, files: planned, desiredHash: hash });
  return {
    kind: input.kind,
    subject: input.subject,
    branch: branchName(input.cluster, input.kind, input.subject),
    title: prTitle(evidence),
    body,
    ...(full !== null ? { fullBody: full } : {}),
    files: [...input.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    desiredHash: hash,
    ...(input.labels ? { labels: input.labels } : {}),
  };
}

/** Two change sets for one branch that want different content at the same path. */
export interface ChangeSetConflict {
  branch: string;
  kind: ChangeKind;
  subject: string;
  paths: string[];
  message: string;
}

const KIND_ORDER: Record<ChangeKind, number> = { pools: 0, placement: 1, scale: 2, standby: 3 };

/**
 * One pull request per subject: change sets that share a branch are merged into one (files
 * joined, bodies joined, hash recomputed). Sorted pools → placement → scale → standby, then by subject, so
 * limits defer the same subjects every pass. Conflicting content at one path makes that subject a
 * conflict (no PR); the others go on.
 */
export function groupChangeSets(changeSets: readonly ChangeSet[]): {
  changeSets: ChangeSet[];
  conflicts: ChangeSetConflict[];
} {
  const byBranch = new Map<string, ChangeSet[]>();
  for (const cs of changeSets) byBranch.set(cs.branch, [...(byBranch.get(cs.branch) ?? []), cs]);
  const out: ChangeSet[] = [];
  const conflicts: ChangeSetConflict[] = [];
  for (const [branch, group] of byBranch) {
    const first = group[0]!;
    if (group.length === 1) {
      out.push(first);
      continue;
    }
    const files = new Map<string, string | null>();
    const clashes = new Set<string>();
    for (const cs of group) {
      for (const f of cs.files) {
        if (files.has(f.path) && files.get(f.path) !== f.content) clashes.add(f.path);
        files.set(f.path, f.content);
      }
    }
    if (clashes.size > 0) {
      const paths = [...clashes].sort();
      conflicts.push({
        branch,
        kind: first.kind,
        subject: first.subject,
        paths,
        message: `${group.length} change sets for ${branch} want different content at ${paths.join(', ')}`,
      });
      continue;
    }
    const merged = [...files]
      .map(([path, content]) => ({ path, content }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    const hash = desiredHash(merged);
    const labels = [...new Set(group.flatMap((cs) => cs.labels ?? []))];
    const join = (bodies: string[]) => withHashMarker(bodies.map(stripHashMarker).join('\n\n---\n\n'), hash);
    const full = join(group.map((cs) => cs.fullBody ?? cs.body));
    const body = fitText(join(group.map((cs) => cs.body)), FULL_TEXT_AT);
    const { fullBody: _cut, ...rest } = first;
    out.push({
      ...rest,
      files: merged,
      desiredHash: hash,
      body,
      ...(full !== body ? { fullBody: full } : {}),
      ...(labels.length > 0 ? { labels } : {}),
    });
  }
  out.sort(
    (a, b) =>
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0),
  );
  return { changeSets: out, conflicts };
}
