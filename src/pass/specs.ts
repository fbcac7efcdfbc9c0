/**
 * The two places specs are read from: the working copy at the base branch head (`reconcile`,
 * `run`, the demo, the replay) and a local folder (`gpuops plan --repo DIR`). Both give the same
 * `SpecsRead`; the rest of the pass does not know which one it got.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadRepo } from '../definitions/load.js';
import { parseRepo, type RepoFiles } from '../definitions/rules/repo.js';
import type { SpecFile } from '../definitions/rules/yaml-documents.js';
import type { LoadedRepo, Policy } from '../definitions/types.js';
import type { PassCaches } from '../plan/caches.js';
import type { SpecsSource } from './world.js';

const YAML_FILE = /\.ya?ml$/;

/** What {@link workingCopySpecs} needs of the working copy (`gitops/working-copy.ts`). */
export interface SpecsTree {
  /** Fetches the remote and resets to the base branch head. */
  sync(): Promise<unknown>;
  /** Files under a repo-relative folder (`algorithms/`) at the base branch head: path → text. */
  readTree(prefix: string): Promise<Map<string, string>>;
}

/**
 * Specs from the working copy: one fetch (`sync`), then `algorithms/`, `policies/` (top level
 * only) and `clusters/<cluster>/` at the base branch head. An unchanged repo is not parsed again
 * (`caches.specs`).
 * @throws GitOpsError when the fetch or a tree read fails
 */
export function workingCopySpecs(tree: SpecsTree): SpecsSource {
  return {
    async read(cluster, defaults, caches) {
      await tree.sync();
      const [algorithms, policies, base] = await Promise.all([
        tree.readTree('algorithms/'),
        tree.readTree('policies/'),
        tree.readTree(`clusters/${cluster}/`),
      ]);
      return { repo: parseSpecs(defaults, algorithms, policies, caches), base };
    },
  };
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
 * the folder does not exist yet.
 */
export async function readClusterFiles(repo: string, cluster: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
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
 * last pass's repo (`caches.specs`), so an unchanged repo is not validated again.
 */
function parseSpecs(
  defaults: Policy,
  algorithms: Map<string, string>,
  policies: Map<string, string>,
  caches: PassCaches,
): LoadedRepo {
  const toFiles = (m: Map<string, string>, topOnly: boolean) =>
    [...m]
      .filter(([p]) => YAML_FILE.test(p) && (!topOnly || p.split('/').length === 2))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, text]) => ({ path: p, text }));
  const files = { algorithms: toFiles(algorithms, false), policies: toFiles(policies, true) };
  const last = caches.specs;
  if (last && last.defaults === defaults && sameFiles(last.files, files)) return last.repo;
  const repo = parseRepo(defaults, files);
  caches.specs = { defaults, files, repo };
  return repo;
}

function sameFiles(a: RepoFiles, b: RepoFiles): boolean {
  const same = (x: readonly SpecFile[], y: readonly SpecFile[]) =>
    x.length === y.length && x.every((f, i) => f.path === y[i]!.path && f.text === y[i]!.text);
  return same(a.algorithms, b.algorithms) && same(a.policies, b.policies);
}
