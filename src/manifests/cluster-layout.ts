/**
 * The layout of `clusters/<cluster>/` that Argo CD and Flux read: plain manifest files in
 * folders, and no kustomization file anywhere (pure).
 *
 * Why no kustomization: a root `kustomization.yaml` listing every algorithm folder is one file
 * that every placement pull request rewrites, so merging two gpuops pull requests in a row
 * conflicts. Without it, nothing lists the folders:
 * - Argo CD reads the folder as a directory application with `source.directory.recurse: true`:
 *   every `.yaml`/`.yml`/`.json` file below the path is a manifest (repo-server `findManifests`).
 *   A nested `kustomization.yaml` would be read as an object of kind `Kustomization` and fail the
 *   sync, so there must be none at any depth.
 * - Flux's kustomize-controller generates a kustomization when the path has none: it includes
 *   every Kubernetes manifest below the path, recursively (fluxcd/pkg `kustomize` generator).
 * Both therefore apply the same set of objects: every manifest under `clusters/<cluster>/`.
 */
import { posix } from 'node:path';

/** The file names kustomize accepts for a kustomization (kustomize `konfig.RecognizedKustomizationFileNames`). */
export const KUSTOMIZATION_FILE_NAMES: readonly string[] = [
  'kustomization.yaml',
  'kustomization.yml',
  'Kustomization',
];

/** Folder that Argo CD's Application and Flux's Kustomization point at. */
export function clusterDir(cluster: string): string {
  return `clusters/${cluster}`;
}

/** Whether `path` (repo-relative, `/`-separated) names a kustomization file. */
export function isKustomizationFile(path: string): boolean {
  return KUSTOMIZATION_FILE_NAMES.includes(posix.basename(path));
}

/**
 * The kustomization files of the old layout (a root `clusters/<cluster>/kustomization.yaml`
 * listing `nodes` and `algorithms/<name>`, plus one per folder) that must go, as deletions.
 * gpuops deletes them once, all in the pools pull request, so that Argo CD never sees a
 * half-migrated folder (directory mode fails on any kustomization file left over).
 * @param paths repo-relative paths present on the base branch (any cluster; others are ignored)
 * @returns `{ path, content: null }` per file, sorted by path
 */
export function legacyKustomizationDeletions(
  cluster: string,
  paths: Iterable<string>,
): { path: string; content: null }[] {
  const prefix = `${clusterDir(cluster)}/`;
  const out = new Set<string>();
  for (const p of paths) if (p.startsWith(prefix) && isKustomizationFile(p)) out.add(p);
  return [...out].sort().map((path) => ({ path, content: null }));
}
