/**
 * How a pass reads the cluster, behind one narrow interface with two implementations: lists
 * (one-shot commands: `plan`, `reconcile --once`) and the watch-driven cache (`gpuops run`). The
 * code from the snapshot onward is the same for both.
 */
import type { ClusterCache } from './cache.js';
import type { KubeClient } from './kube-client.js';
import { readSnapshot } from './read-snapshot.js';
import type { SnapshotOptions } from './snapshot.js';
import type { HpaStatus, Snapshot } from './types.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

export type { HpaStatus } from './types.js';

/** What a pass reads of the cluster. */
export interface ClusterSource {
  /** `list` (each read asks the API server) or `cache` (each read is memory). */
  readonly kind: 'list' | 'cache';
  /**
   * The cluster as one snapshot, `takenAt` = `now`.
   * @throws KubeApiError when a list fails; ClusterCacheNotSyncedError when the cache is not synced
   */
  snapshot(now: Date, options?: SnapshotOptions): Promise<Snapshot>;
  /** Status of the HorizontalPodAutoscalers gpuops generated, by algorithm. @throws as `snapshot` */
  hpaStates(): Promise<Map<string, HpaStatus>>;
}

/** Reads by listing (`readSnapshot`, one HPA list), every time. */
export function listingSource(kube: KubeClient): ClusterSource {
  return {
    kind: 'list',
    snapshot: (now, options) => readSnapshot(kube, now, options),
    hpaStates: async () => {
      const out = new Map<string, HpaStatus>();
      for (const h of await kube.listHorizontalPodAutoscalers({
        labelSelector: `${MANAGED_BY.key}=${MANAGED_BY.value}`,
      })) {
        const name = h.metadata?.labels?.[GPUOPS.algorithm];
        if (!name) continue;
        out.set(name, {
          currentReplicas: h.status?.currentReplicas ?? 0,
          desiredReplicas: h.status?.desiredReplicas ?? 0,
          maxReplicas: h.spec?.maxReplicas ?? 0,
        });
      }
      return out;
    },
  };
}

/** Reads the watch-driven cache (no request). */
export function cacheSource(cache: ClusterCache): ClusterSource {
  return {
    kind: 'cache',
    snapshot: async (now, options) => cache.snapshot(now, options),
    hpaStates: async () => cache.hpaStates(),
  };
}
