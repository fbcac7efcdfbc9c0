/**
 * Spec paths gpuops cannot read (pure). A spec that cannot be read is never a deleted spec: each
 * such path becomes a located error with no algorithm name, and an error without a name keeps every
 * algorithm's generated files (`plan/invalid-specs.ts`), so no pass proposes deleting a
 * running Deployment because its spec sat where gpuops could not see it. A spec is gone only when
 * Git no longer has its file.
 *
 * - A git submodule (a gitlink, tree mode 160000) under `algorithms/` or `policies/`: its files
 *   live in another repository. Argo CD checks submodules out by default
 *   (`ARGOCD_GIT_MODULES_ENABLED`, default true); Flux only with `GitRepository`
 *   `spec.recurseSubmodules: true` (default false). gpuops does not read them (yet): it says so.
 * - A Git LFS pointer (git-lfs spec v1: a first line `version https://git-lfs.github.com/spec/v1`,
 *   then `oid sha256:…` and `size N`): the file's content is elsewhere (Argo CD reads it only with
 *   the repository's `enableLfs`; Flux's source-controller does not fetch LFS objects).
 * - A file over the per-file cap or past the folder's byte budget, by the size git reports: never
 *   read (a 600 MiB blob must not end every pass), reported as that file's error.
 * A file that fails to parse is already an unnamed error (`definitions/`); a blob that cannot be
 * read fails the pass (`WorkingCopy.readTree` throws, naming the path), which writes nothing.
 */
import type { LoadedRepo, SpecError } from '../definitions/index.js';

/** One spec path gpuops cannot read, and why. */
export interface UnreadableSpec {
  path: string;
  /** `not-read`: over the per-file cap or the folder's byte budget (`definitions/spec-files.ts`). */
  kind: 'submodule' | 'lfs-pointer' | 'not-read';
  message: string;
}

/** A spec file gpuops did not read by the size git reported (too large, or past the budget). */
export function notRead(path: string, why: string): UnreadableSpec {
  return { path, kind: 'not-read', message: `${why}; ${KEEP}` };
}

/** A submodule of the tree (see `WorkingCopy.gitlinks`). */
export interface Gitlink {
  path: string;
  commit: string;
}

/** The pointer's first line (git-lfs `docs/spec.md`; `hawser` is its name before 2014). */
const LFS_POINTER = /^version https:\/\/(?:git-lfs|hawser)\.github\.com\/spec\/v1\r?\n/;

/** Whether a file's text is a Git LFS pointer rather than the file. */
export function isLfsPointer(text: string): boolean {
  return LFS_POINTER.test(text);
}

const KEEP = 'no algorithm is removed while it is there';

/**
 * Splits what `readTree` and `gitlinks` returned for a spec folder into the files gpuops can parse
 * and the paths it cannot read (submodules, LFS pointers), sorted by path.
 */
export function separateUnreadable(
  files: ReadonlyMap<string, string>,
  gitlinks: readonly Gitlink[],
): { files: Map<string, string>; unreadable: UnreadableSpec[] } {
  const readable = new Map<string, string>();
  const unreadable: UnreadableSpec[] = gitlinks.map((g) => ({
    path: g.path,
    kind: 'submodule',
    message:
      `${g.path} is a git submodule (commit ${g.commit.slice(0, 12)}): gpuops does not read submodules, so ${KEEP}; ` +
      'keep the specs in this repository (Argo CD renders submodules by default, Flux only with spec.recurseSubmodules)',
  }));
  for (const [path, text] of files) {
    if (!isLfsPointer(text)) {
      readable.set(path, text);
      continue;
    }
    const oid = /^oid (\S+)$/m.exec(text)?.[1] ?? 'unknown oid';
    unreadable.push({
      path,
      kind: 'lfs-pointer',
      message: `${path} is a Git LFS pointer (${oid}), not the spec: gpuops does not fetch LFS objects, so ${KEEP}; store spec files in Git itself`,
    });
  }
  unreadable.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: readable, unreadable };
}

/** The located errors of unreadable paths (line 1, the whole file), as `plan` and `validate` list errors. */
export function unreadableErrors(unreadable: readonly UnreadableSpec[]): SpecError[] {
  return unreadable.map((u) => ({ file: u.path, line: 1, column: 1, field: '', message: u.message }));
}

/**
 * The repo with the unreadable paths as errors. An unreadable path under `algorithms/` names no
 * algorithm (`names` → `[]`): any algorithm may be in it, so every algorithm keeps its generated
 * files (`keptForInvalidSpecs`). `repo` (memoised by the caller) is not changed.
 */
export function withUnreadable(
  repo: LoadedRepo,
  algorithms: readonly UnreadableSpec[],
  policies: readonly UnreadableSpec[],
): LoadedRepo {
  if (algorithms.length === 0 && policies.length === 0) return repo;
  return {
    ...repo,
    errors: [...repo.errors, ...unreadableErrors(algorithms), ...unreadableErrors(policies)],
    names: new Map([...(repo.names ?? []), ...algorithms.map((u) => [u.path, []] as const)]),
  };
}
