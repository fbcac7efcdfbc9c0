import type { KubeClient } from './kube-client.js';
import { reduceAutoscaler } from './autoscalers.js';
import { createSnapshotBuilder } from './snapshot.js';
import type { SnapshotOptions } from './snapshot.js';
import type { Snapshot } from './types.js';

/**
 * Pods that hold nothing (finished) are filtered by the API server, so big clusters with many
 * completed Job pods send less. `status.phase` is a supported Pod field selector.
 */
export const LIVE_PODS_FIELD_SELECTOR = 'status.phase!=Succeeded,status.phase!=Failed';

/**
 * Takes a snapshot of a live cluster: lists Nodes, live Pods, ReplicaSets and
 * HorizontalPodAutoscalers (in parallel, page by page) and builds the pure model (the same as
 * `buildSnapshot` of the lists, with `autoscalers`; an HPA list that fails is a warning, not a
 * failed pass). `now` is the time recorded as `takenAt`.
 * @throws KubeApiError when a list fails after its retries
 */
export async function readSnapshot(
  client: KubeClient,
  now: Date,
  options: SnapshotOptions = {},
): Promise<Snapshot> {
  const builder = createSnapshotBuilder(now, options);
  const podOptions = { fieldSelector: LIVE_PODS_FIELD_SELECTOR };
  // Pods page by page when the client can: each page is reduced as it arrives, so the Pod
  // objects of a large cluster are never all in memory (and die young, cheap to collect).
  const readPods = client.streamPods
    ? client.streamPods({ page: (p) => builder.addPods(p), restart: () => builder.resetPods() }, podOptions)
    : client.listPods(podOptions).then((pods) => builder.addPods(pods));
  const [nodes, replicaSets, autoscalers] = await Promise.all([
    client.listNodes(),
    client.listReplicaSets(),
    client.listHorizontalPodAutoscalers().then(
      (hpas) => hpas.map(reduceAutoscaler),
      (err: unknown) => new Error((err as Error).message ?? String(err)),
    ),
    readPods,
  ]);
  builder.addNodes(nodes);
  builder.addReplicaSets(replicaSets);
  const snapshot = builder.build();
  if (autoscalers instanceof Error) {
    // Without them another autoscaler on an algorithm's Deployment cannot be seen: said, not hidden.
    snapshot.warnings = [
      ...(snapshot.warnings ?? []),
      `HorizontalPodAutoscalers not read (${autoscalers.message}): an autoscaler gpuops did not write cannot be seen`,
    ];
  } else snapshot.autoscalers = autoscalers;
  return snapshot;
}
