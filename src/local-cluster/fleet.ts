/**
 * Loads a fleet dump (`kubectl get nodes -o json`, `kubectl get pods -A -o json`, such as
 * test/fixtures/cluster-mixed) into a real API server as KWOK's fake nodes, keeping what gpuops
 * must see: labels (GPU Feature Discovery's), taints, `spec.unschedulable`, capacity and
 * allocatable (`nvidia.com/gpu`, MIG slices, a device plugin's 0), and the pods that hold GPUs.
 *
 * What a real API server needs that a dump does not give, each rule stated where it is applied:
 * - server-set metadata (uid, resourceVersion, creationTimestamp, managedFields) is dropped;
 * - a pod's `ownerReferences` are dropped: their owners are not in the dump, and the garbage
 *   collector deletes a pod whose owner does not exist;
 * - a node whose Ready condition is True is given to KWOK without its conditions (KWOK sets them
 *   and heartbeats); one whose Ready is not True is not given to KWOK (no heartbeat): the node
 *   lifecycle controller keeps it NotReady/Unknown with its unreachable taints, as it would be;
 * - a Pending pod without a node gets a scheduling gate (`gpuops.dev/fixture`), so the real
 *   scheduler leaves it Pending as it is in the dump;
 * - a second pod of the same namespace and name (a dump joined from two clusters) gets the suffix
 *   `-2`, `-3`...: a real API server refuses a duplicate.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeObject } from '../sim/index.js';

/** KWOK manages the nodes with this annotation (`--manage-nodes-with-annotation-selector`). */
export const KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node';
/** Scheduling gate that keeps a dump's Pending pod unscheduled. */
export const FIXTURE_GATE = 'gpuops.dev/fixture';

/** Reads `file` (`{ items: [...] }`). @throws Error naming the file */
export function readDump(file: string): KubeObject[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: cannot read the fleet dump: ${(err as Error).message}`);
  }
  const items = (parsed as { items?: unknown }).items;
  if (!Array.isArray(items)) throw new Error(`${file}: expected a List with items (kubectl get ... -o json)`);
  return items as KubeObject[];
}

const isReady = (node: KubeObject): boolean =>
  ((node.status?.conditions ?? []) as { type: string; status: string }[]).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );

/** The metadata a client may send on create. */
function clientMetadata(m: KubeObject['metadata']): KubeObject['metadata'] {
  return {
    name: m.name,
    ...(m.namespace ? { namespace: m.namespace } : {}),
    ...(m.labels ? { labels: m.labels } : {}),
    ...(m.annotations ? { annotations: m.annotations } : {}),
  };
}

/** Nodes to create (see the module comment); status is kept (a Node's create keeps it). */
export function fleetNodes(nodes: readonly KubeObject[]): KubeObject[] {
  return nodes.map((n) => {
    const metadata = clientMetadata(n.metadata);
    const status = { ...n.status };
    delete status.nodeInfo;
    if (isReady(n)) {
      metadata.annotations = { ...metadata.annotations, [KWOK_NODE_ANNOTATION]: 'fake' };
      // KWOK initialises a node whose Ready is not True (phase Running, its own conditions and
      // heartbeats) and keeps its capacity and allocatable; the dump's conditions would stop that.
      delete status.conditions;
    }
    return { apiVersion: 'v1', kind: 'Node', metadata, spec: n.spec ?? {}, status };
  });
}

/** Pods to create (see the module comment), without status: KWOK plays their kubelet. */
export function fleetPods(pods: readonly KubeObject[]): KubeObject[] {
  const seen = new Map<string, number>();
  return pods.map((p) => {
    const metadata = clientMetadata(p.metadata);
    const key = `${metadata.namespace ?? 'default'}/${metadata.name}`;
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > 1) metadata.name = `${metadata.name}-${n}`;
    const spec = { ...p.spec } as Record<string, unknown>;
    if (!spec.nodeName) spec.schedulingGates = [{ name: FIXTURE_GATE }];
    return { apiVersion: 'v1', kind: 'Pod', metadata, spec };
  });
}

/** The namespaces the pods need, sorted. */
export function fleetNamespaces(pods: readonly KubeObject[]): string[] {
  return [...new Set(pods.map((p) => p.metadata.namespace ?? 'default'))]
    .filter((n) => n !== 'default')
    .sort();
}

/** Nodes and pods of a dump folder holding `nodes.json` and (optionally) `pods.json`. */
export function readFleet(dir: string): { nodes: KubeObject[]; pods: KubeObject[] } {
  const nodes = readDump(path.join(dir, 'nodes.json'));
  let pods: KubeObject[] = [];
  try {
    pods = readDump(path.join(dir, 'pods.json'));
  } catch (err) {
    if (!/ENOENT/.test((err as Error).message)) throw err;
  }
  return { nodes: fleetNodes(nodes), pods: fleetPods(pods) };
}
