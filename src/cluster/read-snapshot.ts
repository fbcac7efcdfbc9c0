import type { KubeClient } from './kube-client.js';
import { buildSnapshot } from './snapshot.js';
import type { SnapshotOptions } from './snapshot.js';
import type { Snapshot } from './types.js';

/**
 * Pods that hold nothing (finished) are filtered by the API server, so big clusters with many
 * completed Job pods send less. `status.phase` is a supported Pod field selector.
 */
export const LIVE_PODS_FIELD_SELECTOR = 'status.phase!=Succeeded,status.phase!=Failed';

/**
 * Takes a snapshot of a live cluster: lists Nodes and live Pods (in parallel, page by page) and
 * builds the pure model. `now` is the time recorded as `takenAt`.
 * @throws KubeApiError when a list fails after its retries
 */
export async function readSnapshot(
  client: KubeClient,
  now: Date,
  options: SnapshotOptions = {},
): Promise<Snapshot> {
  const [nodes, pods] = await Promise.all([
    client.listNodes(),
    client.listPods({ fieldSelector: LIVE_PODS_FIELD_SELECTOR }),
  ]);
  return buildSnapshot(nodes, pods, now, options);
}
