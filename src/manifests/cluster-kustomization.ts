import { kustomization, type RenderedFile } from './nodes.js';
import { renderYaml } from './yaml.js';

/** Path of the cluster's root kustomization that Argo CD / Flux point at. */
export function clusterKustomizationPath(cluster: string): string {
  return `clusters/${cluster}/kustomization.yaml`;
}

/**
 * Renders `clusters/<cluster>/kustomization.yaml` (pure, byte-stable): its `resources` are the
 * `nodes` folder first, then `algorithms/<name>` for every algorithm with manifests, sorted by name
 * and without duplicates, so the same set of algorithms always gives the same bytes.
 *
 * @param algorithms names of the algorithms that have a folder under `clusters/<cluster>/algorithms/`
 */
export function renderClusterKustomization(cluster: string, algorithms: readonly string[]): RenderedFile {
  const names = [...new Set(algorithms)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    path: clusterKustomizationPath(cluster),
    content: renderYaml(kustomization(['nodes', ...names.map((n) => `algorithms/${n}`)])),
  };
}
