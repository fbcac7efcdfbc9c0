/**
 * Edge helpers of `plan` and `snapshot`: read `kubectl get -o json` dumps, the live cluster, and
 * the files gpuops owns in a GitOps repo.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { buildSnapshot } from '../cluster/snapshot.js';
import type { NodeInput, PodInput, ReplicaSetInput } from '../cluster/snapshot.js';
import type { Snapshot } from '../cluster/types.js';
import { UsageError } from '../config/settings.js';

/**
 * Reads a `kubectl get … -o json` (or `-o yaml`) dump: a List with `items`, or a plain array.
 * Items must be of `kind`, or of one of `alsoKinds` (`kubectl get pods,replicasets -A -o json`
 * mixes them in one List); an item without `kind` is taken for `kind`.
 * @throws Error naming the file when it cannot be read or holds no list
 */
export async function readObjectList<T>(
  file: string,
  kind: 'Node' | 'Pod',
  alsoKinds: readonly string[] = [],
): Promise<T[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`${file}: cannot read: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = parse(text);
    } catch (err) {
      throw new Error(`${file}: neither JSON nor YAML: ${(err as Error).message}`);
    }
  }
  const items = Array.isArray(value) ? value : (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) {
    throw new Error(
      `${file}: expected a ${kind}List (kubectl get ${kind.toLowerCase()}s -o json) with items`,
    );
  }
  const known = new Set([kind, ...alsoKinds]);
  const wrong = items.findIndex((i) => (i as { kind?: string })?.kind !== undefined && !known.has(i.kind));
  if (wrong !== -1)
    throw new Error(`${file}: items[${wrong}]: expected kind ${kind}, got ${items[wrong].kind}`);
  return items as T[];
}

/** Where a snapshot comes from: dump files, or the live cluster. */
export interface SnapshotSource {
  nodesFile?: string;
  podsFile?: string;
  kubeconfig?: string;
  poolLabel: string;
  now: Date;
}

/**
 * Builds the snapshot from dump files when both are given, else from the live cluster.
 * @throws Error naming the file for a bad dump; for the live cluster, the cluster's error (no
 *   kubeconfig, unreachable, forbidden) followed by how to give dumps instead (`--nodes`/`--pods`)
 */
export async function takeSnapshot(source: SnapshotSource): Promise<Snapshot> {
  if (source.nodesFile && source.podsFile) {
    const [nodes, podsAndSets] = await Promise.all([
      readObjectList<NodeInput>(source.nodesFile, 'Node'),
      readObjectList<PodInput | ReplicaSetInput>(source.podsFile, 'Pod', ['ReplicaSet']),
    ]);
    const isSet = (o: PodInput | ReplicaSetInput): o is ReplicaSetInput => o.kind === 'ReplicaSet';
    const replicaSets = podsAndSets.filter(isSet);
    const pods = podsAndSets.filter((o): o is PodInput => !isSet(o));
    // A pods dump without ReplicaSets says nothing about them: the snapshot then carries none.
    return buildSnapshot(
      nodes,
      pods,
      source.now,
      { poolLabel: source.poolLabel },
      replicaSets.length > 0 ? replicaSets : undefined,
    );
  }
  // Loaded here, not at the top: `plan` on dump files never pays for the Kubernetes client.
  const { createKubeClient } = await import('../cluster/kube-client.js');
  const { loadKubeConfig } = await import('../cluster/kubeconfig.js');
  const { readSnapshot } = await import('../cluster/read-snapshot.js');
  try {
    const client = createKubeClient(loadKubeConfig(source.kubeconfig));
    return await readSnapshot(client, source.now, { poolLabel: source.poolLabel });
  } catch (err) {
    if (err instanceof UsageError) throw err; // a --kubeconfig that names no file: exit 2 as it is
    throw new Error(`${(err as Error).message}\n${OFFLINE_HINT}`, { cause: err });
  }
}

/** What to do without cluster access: the commands that read a snapshot also take dumps. */
export const OFFLINE_HINT =
  'without cluster access, give dumps instead: --nodes FILE --pods FILE (kubectl get nodes -o json > nodes.json; kubectl get pods,replicasets -A -o json > pods.json)';

/**
 * Every file under `<repo>/clusters/<cluster>/` (repo-relative `/` paths → content); empty when
 * the folder does not exist yet.
 */
export async function readClusterFiles(repo: string, cluster: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const base = path.join(repo, 'clusters', cluster);
  let entries: string[];
  try {
    entries = (await readdir(base, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
  }
  await Promise.all(
    entries.map(async (file) => {
      out[path.relative(repo, file).split(path.sep).join('/')] = await readFile(file, 'utf8');
    }),
  );
  return out;
}
