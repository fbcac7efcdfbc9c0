/**
 * The two places specs are read from: the working copy at the base branch head (`reconcile`,
 * `run`, the demo, the replay) and a local folder (`gpuops plan --repo DIR`). Both give the same
 * `SpecsRead`; the rest of the pass does not know which one it got.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  outsideRoot,
  loadRepo,
  budgetSpecFiles,
  specFolderOf,
  type ListedFile,
  parseRepo,
  type RepoFiles,
} from '../definitions/index.js';
import type { SpecFile, LoadedRepo, Policy } from '../definitions/index.js';
import {
  notRead,
  separateUnreadable,
  withUnreadable,
  type Gitlink,
  type UnreadableSpec,
} from '../working-copy/index.js';
import type { ReconcilerMemory } from '../plan/index.js';
import { misplacedCandidates, misplacedOf, withMisplaced, type ListedBlob } from './misplaced-specs.js';
import type { SpecsSource } from './world.js';

/** What {@link workingCopySpecs} needs of the working copy (`working-copy/working-copy.ts`). */
export interface SpecsTree {
  /** Fetches the remote and resets to the base branch head. */
  sync(): Promise<unknown>;
  /** Files under a repo-relative folder (`clusters/prod/`) at the base branch head: path → text. */
  readTree(prefix: string): Promise<Map<string, string>>;
  /**
   * The files of the base branch head that `choose` picks from the listing (path and the size git
   * reports); only the picked blobs are read.
   */
  readSelected(
    choose: (entries: readonly ListedBlob[]) => readonly ListedFile[],
  ): Promise<Map<string, string>>;
  /** Submodules (gitlinks) under the same folder: they have no content in this repository. */
  gitlinks(prefix: string): Promise<Gitlink[]>;
}

/**
 * Specs from the working copy: one fetch (`sync`), then the spec files of `algorithms/` and
 * `policies/` chosen by name and by the size git reports, under the same rule and byte budget as
 * the disk loader (`definitions/spec-files.ts`: no dot-folder, a file too large or past the budget
 * is that file's error and is never read), and `clusters/<cluster>/` at the base branch head.
 * Submodules, LFS pointers and files not read are errors that keep every algorithm
 * (`working-copy/unreadable-specs.ts`). An unchanged repo is not parsed again (`memory.specs`).
 * gpuops specs in YAML files the loaders skip are warnings (`misplaced-specs.ts`,
 * `memory.misplaced`: a blob looked at before is not read again).
 * @throws GitOpsError when the fetch or a tree read fails
 */
export function workingCopySpecs(tree: SpecsTree): SpecsSource {
  return {
    async read(cluster, defaults, memory) {
      await tree.sync();
      const skipped: Record<'algorithms' | 'policies', UnreadableSpec[]> = { algorithms: [], policies: [] };
      let others: ListedBlob[] = [];
      const [specTree, base, algorithmLinks, policyLinks] = await Promise.all([
        tree.readSelected((entries) => {
          const candidates = misplacedCandidates(entries, memory);
          others = candidates.all;
          return [...chooseSpecFiles(entries, skipped), ...candidates.read];
        }),
        tree.readTree(`clusters/${cluster}/`),
        tree.gitlinks('algorithms/'),
        tree.gitlinks('policies/'),
      ]);
      const inFolder = (folder: string) => new Map([...specTree].filter(([p]) => specFolderOf(p) === folder));
      // Submodules and LFS pointers are reported, never taken for deleted specs (unreadable-specs.ts).
      const algorithms = separateUnreadable(inFolder('algorithms'), algorithmLinks);
      const policies = separateUnreadable(inFolder('policies'), policyLinks);
      const parsed = parseSpecs(defaults, algorithms.files, policies.files, memory);
      const repo = withUnreadable(
        parsed,
        [...algorithms.unreadable, ...skipped.algorithms],
        [...policies.unreadable, ...skipped.policies],
      );
      return { repo: withMisplaced(repo, misplacedOf(others, specTree, memory)), base };
    },
  };
}

/**
 * The spec files of a tree's listing to read, per folder under the shared budget
 * (`budgetSpecFiles`); those not read go into `skipped`, each with its reason.
 */
function chooseSpecFiles(
  entries: readonly ListedFile[],
  skipped: Record<'algorithms' | 'policies', UnreadableSpec[]>,
): ListedFile[] {
  const chosen: ListedFile[] = [];
  for (const folder of ['algorithms', 'policies'] as const) {
    const files = entries.filter((e) => specFolderOf(e.path) === folder);
    const { read, errors } = budgetSpecFiles(files);
    const keep = new Set(read);
    chosen.push(...files.filter((f) => keep.has(f.path)));
    skipped[folder] = errors.map((e) => notRead(e.file, e.message));
  }
  return chosen;
}

/**
 * Specs from a local folder (`loadRepo`: symbolic links and oversized files are reported, not
 * read) and the files under `<dir>/clusters/<cluster>/`.
 * @throws Error when `dir` is not a directory or a file under `clusters/` cannot be read
 */
export function directorySpecs(dir: string): SpecsSource {
  return {
    async read(cluster, defaults) {
      const [repo, base] = await Promise.all([loadRepo(dir, defaults), readClusterFiles(dir, cluster)]);
      return { repo, base };
    },
  };
}

/**
 * Every file under `<repo>/clusters/<cluster>/` (repo-relative `/` paths → content); empty when
 * the folder does not exist yet. Linked files and folders inside are not followed.
 * @throws Error `clusters/<cluster>/: a symbolic link …` when `clusters/` or the cluster's folder
 *   is a link or leaves the repo root ({@link outsideRoot}), before anything is read
 */
export async function readClusterFiles(repo: string, cluster: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const refused = outsideRoot(repo, `clusters/${cluster}`);
  if (refused) throw new Error(`${refused.path}/: ${refused.message}`);
  const base = path.join(repo, 'clusters', cluster);
  let entries: string[];
  try {
    entries = (await readdir(base, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  const texts = await Promise.all(entries.map((file) => readFile(file, 'utf8')));
  entries.forEach((file, i) => out.set(path.relative(repo, file).split(path.sep).join('/'), texts[i]!));
  return out;
}

/**
 * Parses the specs (`parseRepo`, pure); the same defaults and files as the last pass give the
 * last pass's repo (`memory.specs`), so an unchanged repo is not validated again.
 */
function parseSpecs(
  defaults: Policy,
  algorithms: Map<string, string>,
  policies: Map<string, string>,
  memory: Pick<ReconcilerMemory, 'specs'>,
): LoadedRepo {
  // The files are spec files already (chosen by `specFolderOf`, the disk loader's rule).
  const toFiles = (m: Map<string, string>) =>
    [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, text]) => ({ path: p, text }));
  const files = { algorithms: toFiles(algorithms), policies: toFiles(policies) };
  const last = memory.specs;
  if (last && last.defaults === defaults && sameFiles(last.files, files)) return last.repo;
  const repo = parseRepo(defaults, files);
  memory.specs = { defaults, files, repo };
  return repo;
}

function sameFiles(a: RepoFiles, b: RepoFiles): boolean {
  const same = (x: readonly SpecFile[], y: readonly SpecFile[]) =>
    x.length === y.length && x.every((f, i) => f.path === y[i]!.path && f.text === y[i]!.text);
  return same(a.algorithms, b.algorithms) && same(a.policies, b.policies);
}
