/**
 * Misplaced gpuops specs in the working copy (`reconcile`, `run`): an Algorithm or Policy in a
 * YAML file the loaders do not read (`definitions/misplaced-specs.ts`) would otherwise be
 * ignored without a word by the controller. The YAML files outside the spec folders are picked
 * from the listing git gives (no dot-folder, at most `MAX_FILE_BYTES`, at most `MAX_LOOKED_AT`);
 * a file whose blob was looked at before is not read again (`memory.misplaced`), so the usual
 * pass over an unchanged repo reads nothing more. Their warnings join `repo.warnings` (the plan's
 * `warnings`, printed by `reconcile --once`) and are logged once per file content.
 */
import type { Logger } from 'pino';
import {
  compareSpecErrors,
  formatSpecError,
  type ListedFile,
  type LoadedRepo,
  lookedAtForMisplaced,
  MAX_LOOKED_AT,
  misplacedSpecWarnings,
  MAX_FILE_BYTES,
} from '../definitions/index.js';
import type { ReconcilerMemory } from '../plan/index.js';

/** A listing entry of the working copy: path, size, and git's blob id when the tree gives one. */
export type ListedBlob = ListedFile & { blob?: string };

type Memory = Pick<ReconcilerMemory, 'misplaced'>;

/**
 * The files of `entries` to look at for misplaced specs, sorted by path, at most `MAX_LOOKED_AT`;
 * `read`: those whose blob `memory` has not looked at (only these are read).
 */
export function misplacedCandidates(
  entries: readonly ListedBlob[],
  memory: Memory,
): { all: ListedBlob[]; read: ListedBlob[] } {
  const all = entries
    .filter((e) => e.size <= MAX_FILE_BYTES && lookedAtForMisplaced(e.path))
    .sort((a, b) => (a.path < b.path ? -1 : 1))
    .slice(0, MAX_LOOKED_AT);
  const seen = memory.misplaced;
  const read = all.filter((e) => e.blob === undefined || seen?.get(e.path)?.key !== e.blob);
  return { all, read };
}

/**
 * The misplaced-spec warnings of `all` (from {@link misplacedCandidates}), with `texts` holding
 * the files read this pass; `memory.misplaced` is updated (files gone are forgotten, a changed
 * file's warnings are logged again). Sorted by file, line, column.
 */
export function misplacedOf(
  all: readonly ListedBlob[],
  texts: ReadonlyMap<string, string>,
  memory: Memory,
): ReturnType<typeof misplacedSpecWarnings> {
  const last = memory.misplaced ?? new Map();
  const next: NonNullable<Memory['misplaced']> = new Map();
  for (const e of all) {
    const text = texts.get(e.path);
    const before = last.get(e.path);
    if (text === undefined) {
      if (before) next.set(e.path, before);
      continue;
    }
    const key = e.blob ?? text;
    if (before && before.key === key) next.set(e.path, before);
    else next.set(e.path, { key, warnings: misplacedSpecWarnings(e.path, text), logged: false });
  }
  memory.misplaced = next;
  return [...next.values()].flatMap((s) => s.warnings).sort(compareSpecErrors);
}

/** `repo` with `misplaced` among its warnings (sorted), or `repo` itself when there are none. */
export function withMisplaced(repo: LoadedRepo, misplaced: LoadedRepo['errors']): LoadedRepo {
  if (misplaced.length === 0) return repo;
  return { ...repo, warnings: [...(repo.warnings ?? []), ...misplaced].sort(compareSpecErrors) };
}

/**
 * Logs (warn) each misplaced spec of `memory.misplaced` not logged yet: once per file content, not
 * every pass of `gpuops run`.
 */
export function warnAboutMisplaced(log: Logger, memory: Memory): void {
  for (const [file, seen] of memory.misplaced ?? []) {
    if (seen.logged) continue;
    seen.logged = true;
    for (const w of seen.warnings)
      log.warn({ file, line: w.line, field: w.field }, `gpuops spec ignored: ${formatSpecError(w)}`);
  }
}
