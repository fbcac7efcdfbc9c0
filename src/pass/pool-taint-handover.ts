/**
 * The pool taints patch mode leaves behind. In patch mode gpuops sets its own entry
 * `<labelKey>=<pool>:<effect>` of `Node.spec.taints` itself (`patch-mode.ts`, `patchPoolTaints`);
 * unlike the labels and replicas it patches, Git cannot hold it: `spec.taints` is atomic for
 * server-side apply, so a Node file listing it made Argo CD or Flux replace the taints of every
 * other manager (`manifests/nodes.ts`). After a switch to pull-request mode nothing maintains the
 * entry: a node moved to another pool through Git keeps the old pool's taint, which the new pool's
 * replicas do not tolerate, and nobody owns it. So gpuops records the nodes it tainted (in the
 * fleet status, `FleetStatusRecord.poolTaints`) and, in pull-request mode, takes back its own
 * entries on those nodes only (with `field-handover.ts`, the writes pull-request mode makes to the
 * cluster), which leaves every Node as Git holds it (its labels) plus what other managers own. An entry of the key on a
 * node gpuops never tainted (a person's, set after the switch) is not gpuops's and stays.
 */
import type { ClusterPatcher, NodeInfo, PatchResult } from '../cluster/index.js';
import type { GitOpsLogger } from '../change-sets/index.js';
import type { PoolTaintRecord } from '../store/index.js';

/**
 * The record after a patch-mode pass: the nodes of `nodes` that carry an entry of `key` once the
 * pass's taint writes are done (`written`: node → the entry it was set to, `null` removed; a write
 * that failed is absent, so the node keeps what the snapshot showed). Sorted; null when none.
 */
export function poolTaintRecordAfter(
  nodes: readonly NodeInfo[],
  key: string,
  written: ReadonlyMap<string, boolean>,
): PoolTaintRecord | null {
  const tainted = nodes
    .filter((n) => written.get(n.name) ?? n.taints.some((t) => t.key === key))
    .map((n) => n.name)
    .sort();
  return tainted.length > 0 ? { key, nodes: tainted } : null;
}

/** What {@link takeBackPoolTaints} did: one line per write, and the record still standing. */
export interface TakeBack {
  lines: string[];
  /** The recorded nodes whose entry is still there (a write failed); null: none left. */
  left: PoolTaintRecord | null;
}

/**
 * Pull-request mode: removes gpuops's pool taint entry (`record.key`) from the nodes patch mode
 * tainted (`record.nodes`) that still carry one, keeping every other entry (`setNodeTaint`: read,
 * keep the others, write with the resourceVersion read). A node gone from the cluster, or without
 * the entry, leaves the record. A failed write (the pull-request-mode install grants no `patch` on
 * Nodes: keep the patch-mode component until the record is empty) is logged with the command that
 * removes it by hand, and tried again next pass. Dry-run: `would remove …` lines, record unchanged.
 */
export async function takeBackPoolTaints(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  nodes: readonly NodeInfo[],
  record: PoolTaintRecord | null,
): Promise<TakeBack> {
  if (record === null) return { lines: [], left: null };
  const recorded = new Set(record.nodes);
  const carrying = nodes
    .filter((n) => recorded.has(n.name) && n.taints.some((t) => t.key === record.key))
    .map((n) => n.name)
    .sort();
  if (deps.dryRun)
    return { lines: carrying.map((n) => `would remove taint ${record.key} of Node ${n}`), left: record };
  const results: PatchResult[] = [];
  for (const node of carrying)
    results.push(await patcher.setNodeTaint({ node, key: record.key, taint: null }));
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    deps.log?.warn(
      {
        patches: failed,
        byHand: `kubectl taint nodes ${failed.map((r) => r.name).join(' ')} ${record.key}-`,
      },
      'the pool taint patch mode set is not removed (Git cannot hold it); tried again next pass',
    );
  const left = failed.map((r) => r.name);
  return {
    lines: results.map((r) => r.message),
    left: left.length > 0 ? { key: record.key, nodes: left } : null,
  };
}
