/**
 * What `WorkingCopy.applyAll` writes on which branch (pure): from the remote heads as last
 * fetched and the file contents read there, each change set is final (`unchanged`, `in-base`,
 * `person-commits`) or becomes a planned {@link Write} — its ref, the commit it starts from and
 * the head the push expects. The rules are those of `WorkingCopy.applyAll`.
 */
import { posix } from 'node:path';
import { pathsOutside } from './branch-owner.js';
import type { GitOpsError } from './git-errors.js';
import type {
  ApplyOutcome,
  ChangeSet,
  FileChange,
  ForeignCommit,
  LoggedCommit,
  PlannedFile,
} from '../change-sets/index.js';
import type { TreeChange } from './working-copy-diffs.js';

/** One item of `WorkingCopy.applyAll`: a change set, and whether to start afresh from the base branch. */
export interface ApplyItem {
  changeSet: ChangeSet;
  fresh?: boolean;
}

/** One result of `WorkingCopy.applyAll`: what happened, or why that change set failed. */
export type ApplyResult = ApplyOutcome | GitOpsError;

/** A planned write of one change set, before its commit exists. */
export interface Write {
  index: number;
  cs: ChangeSet;
  ref: string;
  /** Remote head the push expects (null: the branch must not exist). */
  expected: string | null;
  start: string;
  files: PlannedFile[];
  startedAfresh: boolean;
  forced: boolean;
}

/** The items that are final (index, result) and the writes still to commit and push. */
export interface DecidedWrites {
  done: [number, ApplyResult][];
  writes: Write[];
}

/**
 * Throws unless `path` is a normalised repo-relative path (no leading `/`, no `..`, no `.git`,
 * no backslash, newline or NUL). @throws Error naming the path
 */
export function validatePath(path: string): void {
  const norm = posix.normalize(path);
  if (
    path === '' ||
    path.startsWith('/') ||
    path.startsWith('"') ||
    /[\\\n\r\0]/.test(path) ||
    norm !== path ||
    norm.startsWith('../') ||
    norm === '..' ||
    norm.split('/').includes('.git')
  ) {
    throw new Error(`change set file path ${JSON.stringify(path)}: must be a normalised repo-relative path`);
  }
}

/** The commit message of a change set: title, the files, and trailers naming subject and hash. */
export function commitMessage(cs: ChangeSet, files: readonly PlannedFile[]): string {
  return [
    cs.title,
    '',
    ...files.map((f) => `- ${f.change} ${f.path}`),
    '',
    `Gpuops-Subject: ${cs.kind}/${cs.subject}`,
    `Gpuops-Desired-Hash: ${cs.desiredHash}`,
    '',
  ].join('\n');
}

/** An {@link ApplyOutcome} with nothing committed unless `extra` says so. */
export function applyOutcome(
  ref: string,
  status: ApplyOutcome['status'],
  files: PlannedFile[],
  extra: Partial<ApplyOutcome> = {},
): ApplyOutcome {
  return {
    status,
    ref,
    commit: null,
    attempts: 0,
    startedAfresh: false,
    forced: false,
    files,
    personCommits: [],
    ...extra,
  };
}

/** The files of a change set that differ from what `current(path)` holds (undefined: absent). */
export function diff(
  files: readonly FileChange[],
  current: (path: string) => string | null | undefined,
): PlannedFile[] {
  const planned: PlannedFile[] = [];
  for (const f of files) {
    const now = current(f.path) ?? undefined;
    if (f.content === null) {
      if (now !== undefined) planned.push({ path: f.path, change: 'delete' });
    } else if (now === undefined) {
      planned.push({ path: f.path, change: 'create' });
    } else if (now !== f.content) {
      planned.push({ path: f.path, change: 'update' });
    }
  }
  return planned;
}

/**
 * The commits of `tip` that `base` lacks (newest first, in `log` order), and whether `base` is an
 * ancestor of `tip` (some walked commit has it as a parent). `bySha` holds `git log tips ^base`.
 */
export function walkAhead(
  tip: string,
  base: string,
  bySha: Map<string, LoggedCommit>,
  logged: readonly LoggedCommit[],
): { ahead: ForeignCommit[]; containsBase: boolean } {
  const seen = new Set<string>();
  let containsBase = tip === base;
  const stack = [tip];
  while (stack.length > 0) {
    const sha = stack.pop()!;
    const c = bySha.get(sha);
    if (!c || seen.has(sha)) continue;
    seen.add(sha);
    for (const p of c.parents) {
      if (p === base) containsBase = true;
      stack.push(p);
    }
  }
  const ahead = logged
    .filter((c) => seen.has(c.sha))
    .map(({ sha, author, email }) => ({ sha, author, email }));
  return { ahead, containsBase };
}

/**
 * Patch mode: one commit per change set on the base branch, each on the one before (a later
 * change set sees the files of the earlier ones). `current` holds `<base>:<path>` contents.
 */
export function patchWrites(
  items: readonly ApplyItem[],
  pending: readonly number[],
  o: { base: string; baseBranch: string; current: ReadonlyMap<string, string> },
): DecidedWrites {
  const done: [number, ApplyResult][] = [];
  const writes: Write[] = [];
  const overlay = new Map<string, string | null>();
  for (const i of pending) {
    const cs = items[i]!.changeSet;
    const files = diff(cs.files, (p) => (overlay.has(p) ? overlay.get(p)! : o.current.get(`${o.base}:${p}`)));
    if (files.length === 0) {
      done.push([i, applyOutcome(o.baseBranch, 'unchanged', files)]);
      continue;
    }
    for (const f of cs.files) overlay.set(f.path, f.content);
    writes.push({
      index: i,
      cs,
      ref: o.baseBranch,
      expected: o.base,
      start: o.base,
      files,
      startedAfresh: false,
      forced: false,
    });
  }
  return { done, writes };
}

/**
 * Pull-request mode, per change set on its own branch: a commit gpuops does not know (`known`:
 * pushed by gpuops or built on, or contained in the base by content — `branch-owner.ts`) →
 * `person-commits`; no branch, `fresh`, or nothing ahead of the base → written on the base head
 * (`in-base` when the base holds the files); a branch whose diff from the base (`diffs`, by head)
 * touches a path the change set does not write (gpuops's own stale file), or that stands on
 * commits gpuops did not push (`pushed`) and the base no longer has (a rewritten or rewound base)
 * → rebuilt on the base head, forced; the branch already holds the files → `unchanged`; a branch
 * that contains the base → a commit on it; else (behind the base) rebuilt on the base head,
 * forced. `contents` holds `<sha>:<path>` of the base and the remote heads; `logged` is
 * `git log <heads> ^base`.
 */
export function branchWrites(
  items: readonly ApplyItem[],
  pending: readonly number[],
  o: {
    base: string;
    heads: ReadonlyMap<string, string>;
    logged: readonly LoggedCommit[];
    contents: ReadonlyMap<string, string>;
    known: ReadonlySet<string>;
    pushed: ReadonlySet<string>;
    diffs: ReadonlyMap<string, readonly TreeChange[]>;
  },
): DecidedWrites {
  const { base } = o;
  const done: [number, ApplyResult][] = [];
  const writes: Write[] = [];
  const bySha = new Map(o.logged.map((c) => [c.sha, c]));
  const diffAt = (ref: string, cs: ChangeSet) => diff(cs.files, (p) => o.contents.get(`${ref}:${p}`));
  for (const i of pending) {
    const { changeSet: cs, fresh } = items[i]!;
    const ref = cs.branch;
    const remote = o.heads.get(cs.branch) ?? null;
    /** The change set written on the base branch head: `in-base` when base already holds it. */
    const fromBase = (
      how: { startedAfresh: boolean; forced: boolean },
      inBase: Partial<ApplyOutcome> = {},
    ) => {
      const files = diffAt(base, cs);
      if (files.length === 0) done.push([i, applyOutcome(ref, 'in-base', files, inBase)]);
      else writes.push({ index: i, cs, ref, expected: remote, start: base, files, ...how });
    };
    if (remote === null) {
      fromBase({ startedAfresh: false, forced: false });
      continue;
    }
    const { ahead, containsBase } = walkAhead(remote, base, bySha, o.logged);
    const foreign = ahead.filter((c) => !o.known.has(c.sha));
    if (foreign.length > 0) {
      done.push([i, applyOutcome(ref, 'person-commits', [], { personCommits: foreign })]);
      continue;
    }
    if (fresh || ahead.length === 0) {
      // Left behind by a merged or closed PR: start afresh from the base branch head.
      fromBase({ startedAfresh: true, forced: ahead.length > 0 }, { startedAfresh: true });
      continue;
    }
    const onBranch = diffAt(remote, cs);
    // Every commit is gpuops's: a path the change set no longer writes is its own stale change.
    const stale = containsBase ? pathsOutside(o.diffs.get(remote) ?? [], cs) : [];
    // Commits gpuops built on that the base no longer has: the base was rewritten or rewound.
    const rewritten = !containsBase && ahead.some((c) => !o.pushed.has(c.sha));
    if (stale.length > 0 || rewritten) {
      fromBase({ startedAfresh: true, forced: true });
    } else if (onBranch.length === 0) {
      done.push([i, applyOutcome(ref, 'unchanged', onBranch)]);
    } else if (containsBase) {
      writes.push({
        index: i,
        cs,
        ref,
        expected: remote,
        start: remote,
        files: onBranch,
        startedAfresh: false,
        forced: false,
      });
    } else {
      // Behind the base branch (or on a base that was rewritten): rebuild on its head.
      fromBase({ startedAfresh: true, forced: true });
    }
  }
  return { done, writes };
}
