/**
 * `gpuops validate --nodes FILE` / `--kubeconfig FILE`: the GPU products of a cluster, and the
 * specs that name a product none of its nodes carries, as located errors.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { productPresenceErrors, compareSpecErrors } from '../definitions/index.js';
import type { LoadedRepo } from '../definitions/index.js';
import type { NodeInput } from '../cluster/index.js';

/** Where `validate` reads the cluster's nodes from, when it does at all. */
export interface NodesSource {
  /** A `kubectl get nodes -o json` (or `-o yaml`) dump. */
  nodes?: string;
  /** The live cluster: a kubeconfig file (listing only, never a write). */
  kubeconfig?: string;
}

/**
 * The `nvidia.com/gpu.product` values (GPU Feature Discovery) the cluster's nodes carry, every
 * node counted whatever its state (a cordoned or NotReady node still says the product exists), or
 * null when neither flag is given. The dump is read and each node parsed as `gpuops plan` does
 * (`readObjectList`, `buildSnapshot`); the live cluster is listed as `gpuops plan` without dumps
 * lists it. Modules load only when a flag is given: plain `validate` pays for no cluster code.
 * A dump with no Nodes is refused (unlike `plan`, which takes an empty cluster): it would make
 * every named product absent, and is what kubectl on the wrong context writes.
 * @throws Error naming the file when the dump cannot be read, is no NodeList or holds no Nodes;
 *   the cluster's error when it cannot be listed
 */
export async function clusterProducts(source: NodesSource, now: Date): Promise<Set<string> | null> {
  if (!source.nodes && !source.kubeconfig) return null;
  const { clusterInput, readObjectList } = await import('../compose/index.js');
  const { buildSnapshot } = await import('../cluster/index.js');
  const live = async () => {
    try {
      return await (await clusterInput({ kubeconfig: source.kubeconfig })).snapshot(now, {});
    } catch (err) {
      const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error) : (err as Error);
      throw new Error(
        `cannot list the cluster's nodes: ${cause.message}; without cluster access give a dump instead: --nodes FILE (kubectl get nodes -o json > nodes.json)`,
        { cause: err },
      );
    }
  };
  const dumped = async (file: string) => {
    const nodes = await readObjectList<NodeInput>(file, 'Node');
    // Every product would then be "absent": say what is wrong instead (a kubectl on the wrong context).
    if (nodes.length === 0)
      throw new Error(`${file}: the dump holds no Nodes (is kubectl pointed at the right cluster?)`);
    return buildSnapshot(nodes, [], now);
  };
  const snapshot = source.nodes ? await dumped(source.nodes) : await live();
  return new Set(snapshot.nodes.map((n) => n.gpuProduct).filter((p): p is string => p !== null));
}

/**
 * `repo` with one located error per product a valid algorithm names that `present` lacks
 * (`productPresenceErrors`), errors sorted by file, line and column; such an algorithm no longer
 * counts as valid. The other specs are untouched: one bad spec never stops the others.
 * @param root the repo root the algorithms' `source.file` paths are relative to (the files are
 *   read again, inside the root, to locate the list item)
 */
export async function withProductErrors<R extends Pick<LoadedRepo, 'errors' | 'algorithms'>>(
  root: string,
  repo: R,
  present: ReadonlySet<string>,
): Promise<R> {
  const named = repo.algorithms.filter((a) => (a.spec.gpu?.product ?? []).some((p) => !present.has(p)));
  if (named.length === 0) return repo;
  const paths = [...new Set(named.map((a) => a.source.file))];
  const files = await Promise.all(
    paths.map(async (p) => ({ path: p, text: await readFile(path.join(root, p), 'utf8') })),
  );
  const errors = productPresenceErrors(files, named, present);
  const bad = new Set(named.map((a) => a.name));
  return {
    ...repo,
    errors: [...repo.errors, ...errors].sort(compareSpecErrors),
    algorithms: repo.algorithms.filter((a) => !bad.has(a.name)),
  };
}
