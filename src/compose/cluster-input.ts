/**
 * Edge helpers of `plan` and `snapshot`: the cluster read from `kubectl get -o json` dumps or
 * the live cluster.
 */
import { readFile } from 'node:fs/promises';
import {
  buildSnapshot,
  type NodeInput,
  type PodInput,
  type ReplicaSetInput,
  reduceAutoscaler,
} from '../cluster/index.js';
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import type { ClusterSource, HpaStatus, JobApi, Snapshot } from '../cluster/index.js';
import { UsageError } from '../config/index.js';
import { parseDumpText } from './dump-text.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

/**
 * Reads a `kubectl get … -o json` (or `-o yaml`) dump: a List with `items`, a plain array, or one
 * object of `kind` or of one of `alsoKinds` (`kubectl get node gpu-01 -o json`), read as a list of
 * it. Items must be of `kind`, or of one of `alsoKinds` (`kubectl get pods,replicasets -A -o json`
 * mixes them in one List); an item without `kind` is taken for `kind`.
 * An empty list is returned as it is (`plan` takes a cluster with no nodes).
 * @throws Error naming the file when it cannot be read, is not valid JSON or YAML (located, one
 *   line: {@link parseDumpText}), holds no list, or an item the API server would never list
 *   ({@link itemsProblem}, naming the item where the file has it: `items[2].metadata.name` in a
 *   List, `[2].metadata.name` in a plain array, `metadata.name` for one object)
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
  const value = parseDumpText(file, text);
  const known = new Set([kind, ...alsoKinds]);
  const single = isMapping(value) && typeof value['kind'] === 'string' && known.has(value['kind']);
  const items = Array.isArray(value)
    ? value
    : single
      ? [value]
      : (value as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) {
    const got = isMapping(value) && typeof value['kind'] === 'string' ? `; got a ${value['kind']}` : '';
    throw new Error(
      `${file}: expected a ${kind}List (kubectl get ${kind.toLowerCase()}s -o json) with items, or one ${kind}${got}`,
    );
  }
  // Each item's place as the file has it: `items[i]` in a List, `[i]` in a bare list, and the
  // object's own fields for one object (a path naming `items` would point at nothing in the file).
  const at: ItemPlace = single ? () => '' : Array.isArray(value) ? (i) => `[${i}]` : (i) => `items[${i}]`;
  const wrong = items.findIndex((i) => (i as { kind?: string })?.kind !== undefined && !known.has(i.kind));
  if (wrong !== -1) throw new Error(`${file}: ${at(wrong)}: expected kind ${kind}, got ${items[wrong].kind}`);
  const problem = itemsProblem(items, kind, at);
  if (problem) throw new Error(`${file}: ${problem}`);
  return items as T[];
}

/** An item's place in a dump file, by its index (`items[3]`, `[3]`, or `''` for one object). */
type ItemPlace = (i: number) => string;

const isMapping = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const shown = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'a list' : JSON.stringify(v));

/**
 * The first item of a dump that the API server would never list: not an object, no
 * `metadata.name`, or labels or annotations that are not a mapping of strings (Kubernetes'
 * `map[string]string`). A dump cut down or edited by hand can hold any of them; the pass would
 * otherwise fail deep inside with a TypeError, or show a nameless node. Undefined when every item
 * is sound. (Two items of one name are taken as they are: the shared cluster-mixed fixture repeats
 * a pod, and `gpuops sim` only warns of it.)
 */
function itemsProblem(items: readonly unknown[], kind: string, at: ItemPlace): string | undefined {
  for (const [i, item] of items.entries()) {
    if (!isMapping(item)) return `${at(i)}: expected a ${kind} object, got ${shown(item)}`;
    // `metadata.…` after the item's place, or alone for one object.
    const field = (path: string) => (at(i) === '' ? path : `${at(i)}.${path}`);
    const meta = isMapping(item['metadata']) ? item['metadata'] : {};
    const name = meta['name'];
    if (typeof name !== 'string' || name === '')
      return `${field('metadata.name')}: a ${typeof item['kind'] === 'string' ? item['kind'] : kind} has a name; none here`;
    for (const key of ['labels', 'annotations']) {
      const map = meta[key];
      if (map === undefined || map === null) continue;
      if (!isMapping(map)) return `${field(`metadata.${key}`)}: a mapping of strings, got ${shown(map)}`;
      const bad = Object.entries(map).find(([, v]) => typeof v !== 'string');
      if (bad)
        return `${field(`metadata.${key}.${bad[0]}`)}: a ${key.slice(0, -1)} value is a string, got ${shown(bad[1])}`;
    }
  }
  return undefined;
}

/** Where the cluster is read from: dump files, or the live cluster. */
export interface ClusterInput {
  nodesFile?: string;
  podsFile?: string;
  kubeconfig?: string;
}

/** Where a snapshot comes from, and the pool label and time it is taken with. */
export interface SnapshotSource extends ClusterInput {
  poolLabel: string;
  now: Date;
}

/**
 * The cluster read of `plan` and `snapshot`: the dump files when both are given (read once; the
 * pods dump may carry ReplicaSets and HorizontalPodAutoscalers: `kubectl get
 * pods,replicasets,hpa -A -o json`), else the live cluster by listing.
 * @throws Error naming the file for a bad dump; for the live cluster, the cluster's error (no
 *   kubeconfig, unreachable, forbidden) followed by how to give dumps instead (`--nodes`/`--pods`)
 */
export async function clusterInput(source: ClusterInput): Promise<ClusterSource> {
  if (source.nodesFile && source.podsFile) return dumpSource(source.nodesFile, source.podsFile);
  // Loaded here, not at the top: `plan` on dump files never pays for the Kubernetes client.
  const { createKubeClient } = await import('../cluster/index.js');
  const { loadKubeConfig } = await import('../cluster/index.js');
  const { listingSource } = await import('../cluster/index.js');
  const offline = (err: unknown): never => {
    if (err instanceof UsageError) throw err; // a --kubeconfig that names no file: exit 2 as it is
    throw new Error(`${(err as Error).message}\n${OFFLINE_HINT}`, { cause: err });
  };
  let listing: ClusterSource;
  try {
    listing = listingSource(createKubeClient(loadKubeConfig(source.kubeconfig)));
  } catch (err) {
    return offline(err);
  }
  return {
    kind: 'list',
    snapshot: (now, options) => listing.snapshot(now, options).catch(offline),
    hpaStates: () => listing.hpaStates().catch(offline),
  };
}

/**
 * The Job read of `plan` on the live cluster: `listJobs` only (read-only; no create or delete
 * reaches `plan`), what a pass lists to know its model cache fills (`pass/model-cache-fills.ts`),
 * so `plan` writes a Deployment whose fill just completed as `reconcile` does. Undefined on dumps
 * (they hold no Job: a waiting Deployment is shown as waiting).
 * @throws as {@link clusterInput} for the live cluster (no kubeconfig)
 */
export async function planJobsInput(source: ClusterInput): Promise<Pick<JobApi, 'listJobs'> | undefined> {
  if (source.nodesFile && source.podsFile) return undefined;
  const { createKubeJobApi, loadKubeConfig } = await import('../cluster/index.js');
  const jobs = createKubeJobApi(loadKubeConfig(source.kubeconfig));
  return { listJobs: (namespace, selector) => jobs.listJobs(namespace, selector) };
}

/** A cluster read from `kubectl get -o json` dumps (see {@link clusterInput}). */
async function dumpSource(nodesFile: string, podsFile: string): Promise<ClusterSource> {
  const [nodes, objects] = await Promise.all([
    readObjectList<NodeInput>(nodesFile, 'Node'),
    readObjectList<PodInput | ReplicaSetInput | HpaObject>(podsFile, 'Pod', [
      'ReplicaSet',
      'HorizontalPodAutoscaler',
    ]),
  ]);
  const replicaSets = objects.filter((o): o is ReplicaSetInput => o.kind === 'ReplicaSet');
  const hpas = objects.filter((o): o is HpaObject => o.kind === 'HorizontalPodAutoscaler');
  const pods = objects.filter((o) => o.kind !== 'ReplicaSet' && o.kind !== 'HorizontalPodAutoscaler');
  return {
    kind: 'list',
    // A pods dump without ReplicaSets says nothing about them: the snapshot then carries none.
    snapshot: async (now, options) => {
      const snapshot = buildSnapshot(
        nodes,
        pods as PodInput[],
        now,
        options,
        replicaSets.length > 0 ? replicaSets : undefined,
      );
      // Likewise a dump without HPAs says nothing about other autoscalers.
      if (hpas.length > 0)
        snapshot.autoscalers = hpas.map((h) => reduceAutoscaler(h as V2HorizontalPodAutoscaler));
      return snapshot;
    },
    hpaStates: async () => hpaStatesOf(hpas),
  };
}

/** A HorizontalPodAutoscaler (autoscaling/v2) as a dump holds it: the fields gpuops reads. */
interface HpaObject {
  kind: 'HorizontalPodAutoscaler';
  metadata?: { labels?: Record<string, string> };
  spec?: { maxReplicas?: number };
  status?: { currentReplicas?: number; desiredReplicas?: number };
}

/** Status of the HPAs gpuops generated (`app.kubernetes.io/managed-by: gpuops`), by algorithm. */
function hpaStatesOf(hpas: readonly HpaObject[]): Map<string, HpaStatus> {
  const out = new Map<string, HpaStatus>();
  for (const h of hpas) {
    const labels = h.metadata?.labels ?? {};
    const name = labels[GPUOPS.algorithm];
    if (labels[MANAGED_BY.key] !== MANAGED_BY.value || !name) continue;
    out.set(name, {
      currentReplicas: h.status?.currentReplicas ?? 0,
      desiredReplicas: h.status?.desiredReplicas ?? 0,
      maxReplicas: h.spec?.maxReplicas ?? 0,
    });
  }
  return out;
}

/**
 * Builds the snapshot from dump files when both are given, else from the live cluster.
 * @throws as {@link clusterInput}
 */
export async function takeSnapshot(source: SnapshotSource): Promise<Snapshot> {
  return (await clusterInput(source)).snapshot(source.now, { poolLabel: source.poolLabel });
}

/** What to do without cluster access: the commands that read a snapshot also take dumps. */
export const OFFLINE_HINT =
  'without cluster access, give dumps instead: --nodes FILE --pods FILE (kubectl get nodes -o json > nodes.json; kubectl get pods,replicasets -A -o json > pods.json)';
