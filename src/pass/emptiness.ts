/**
 * Node emptiness judged from the stored node activity plus the snapshot this pass took, so the
 * read never waits for the snapshot to be stored. Pure.
 */
import type { NodeInfo } from '../cluster/index.js';
import { emptySinceOf } from '../pools/index.js';
import type { NodeEmptiness } from '../store/index.js';

/**
 * The node activity as the store will hold it once `snapshot` is saved (`Store.saveSnapshot`,
 * the upsert of `store/rows.ts` `upsertNodeActivitySql`), computed from what it holds before:
 * - a node not seen before is first seen at `takenAt`;
 * - a node busy now (a GPU request or a gpuops pod) that was never busy, or empty since, turns
 *   busy: `emptyAfterBusy` null;
 * - a node empty now that was busy in the last stored snapshot (`emptyAfterBusy` null) turns
 *   empty at `takenAt`; every other node keeps its row;
 * - `oldest` becomes `takenAt` when nothing was stored before.
 * Only the nodes of `history` and `nodes` are in the result.
 */
export function emptinessWith(
  history: NodeEmptiness,
  nodes: readonly Pick<NodeInfo, 'name' | 'gpuRequested' | 'managedPods'>[],
  takenAt: string,
): NodeEmptiness {
  const t = new Date(Date.parse(takenAt)).toISOString(); // the store keeps milliseconds
  const emptyAfterBusy = new Map(history.emptyAfterBusy);
  const firstSeen = new Map(history.firstSeen ?? []);
  for (const n of nodes) {
    const busy = n.gpuRequested > 0 || n.managedPods > 0;
    const known = history.firstSeen ? firstSeen.has(n.name) : true;
    if (!known) firstSeen.set(n.name, t);
    const wasBusy = emptyAfterBusy.has(n.name);
    if (busy && (!wasBusy || emptyAfterBusy.get(n.name) !== null)) emptyAfterBusy.set(n.name, null);
    else if (!busy && wasBusy && emptyAfterBusy.get(n.name) === null) emptyAfterBusy.set(n.name, t);
  }
  return {
    oldest: history.oldest ?? t,
    emptyAfterBusy,
    ...(history.firstSeen ? { firstSeen } : {}),
  };
}

/**
 * Since when each of `nodes` that holds no GPU pod now has held none (ISO-8601), judged from the
 * stored history plus this snapshot (see {@link emptinessWith} and `emptySinceOf`).
 */
export function emptySinceNow(
  history: NodeEmptiness,
  nodes: readonly NodeInfo[],
  takenAt: string,
): Map<string, string> {
  return emptySinceOf(nodes, emptinessWith(history, nodes, takenAt));
}
