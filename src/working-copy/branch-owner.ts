/**
 * Whose work a gpuops branch holds (pure). A commit on gpuops's branch is gpuops's when gpuops
 * pushed it (its id is in the ledger, `commit-ledger.ts`) or built on it (an ancestor of such a
 * commit: gpuops checked the branch before each push); a commit that the base branch contains by
 * content (every file it changes is in the base as it left it: a squash merge, a rewritten or
 * rewound base, GitHub's "Update branch" merge) is nobody's work to keep. Any other commit is a
 * person's — whatever author e-mail it carries. What a branch carries is read from its diff, never
 * from what gpuops meant to write: every file the pull request's diff touches is listed.
 */
import type { BranchFile, ChangeSet, LoggedCommit } from '../change-sets/index.js';
import type { TreeChange } from './working-copy-diffs.js';
import type { TreeEntry } from './working-copy-objects.js';

/**
 * The commits of `logged` (`git log <heads> ^base`, with parents) that gpuops pushed (`recorded`)
 * or that are ancestors of one it pushed, walking parents within `logged`.
 */
export function recordedClosure(logged: readonly LoggedCommit[], recorded: ReadonlySet<string>): Set<string> {
  const bySha = new Map(logged.map((c) => [c.sha, c]));
  const known = new Set<string>();
  const stack = logged.filter((c) => recorded.has(c.sha)).map((c) => c.sha);
  while (stack.length > 0) {
    const sha = stack.pop()!;
    if (known.has(sha)) continue;
    const c = bySha.get(sha);
    if (!c) continue;
    known.add(sha);
    stack.push(...c.parents);
  }
  return known;
}

/**
 * Whether the base branch holds everything a commit changes (`changes`: its diff from its first
 * parent): each file it writes is in `base` with the same blob, each file it deletes is absent.
 * A commit that changes nothing is contained.
 */
export function containedInBase(
  changes: readonly TreeChange[],
  base: ReadonlyMap<string, TreeEntry>,
): boolean {
  return changes.every((c) => (c.blob === null ? !base.has(c.path) : base.get(c.path)?.blob === c.blob));
}

/**
 * Every file of a branch's diff (`diff`: base, or the merge base, to the branch head), sorted by
 * path, each marked `gpuops` when the change set writes that path with the content the head holds
 * (`headText(path)`: the file at the head, undefined when absent), else `person`.
 */
export function branchFileList(
  diff: readonly TreeChange[],
  cs: Pick<ChangeSet, 'files'>,
  headText: (path: string) => string | undefined,
): BranchFile[] {
  const desired = new Map(cs.files.map((f) => [f.path, f.content]));
  return [...diff]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((c) => {
      const want = desired.get(c.path);
      const ours =
        want !== undefined &&
        (c.change === 'delete' ? want === null : want !== null && headText(c.path) === want);
      return { path: c.path, change: c.change, writtenBy: ours ? 'gpuops' : 'person' };
    });
}

/** Paths of a branch's diff that its change set does not write at all (gpuops's own stale files, or a person's). */
export function pathsOutside(diff: readonly TreeChange[], cs: Pick<ChangeSet, 'files'>): string[] {
  const paths = new Set(cs.files.map((f) => f.path));
  return diff.filter((c) => !paths.has(c.path)).map((c) => c.path);
}
