/**
 * The fleet status a reconcile pass stores for `gpuops status` (pure): the pass's pool
 * assignments and, per algorithm, its placement, replicas and scaling band.
 */
import type { Snapshot } from '../cluster/index.js';
import type { Placement } from '../placement/index.js';
import type { PoolAssignment } from '../pools/index.js';
import type { ScalingDecision } from '../scaling/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { FleetStatusRecord } from '../store/index.js';
import { benchmarkInProgress } from '../cluster/index.js';

/** What {@link fleetStatusRecord} reads: the pass's output and the algorithms it decided on. */
export interface FleetStatusInput {
  cluster: string;
  now: Date;
  /** `placement.longTaskThresholdSeconds` (seconds). */
  longTaskThresholdSeconds: number;
  /** `scaling.podStartupSeconds` (seconds): how long a replica may take to start. */
  podStartupSeconds?: number;
  algorithms: readonly Pick<ResolvedAlgorithm, 'name' | 'scaling'>[];
  pools: readonly PoolAssignment[];
  placements: readonly Placement[];
  scaling: readonly ScalingDecision[];
  /** The pass's snapshot: its benchmark pods are recorded. */
  snapshot?: Pick<Snapshot, 'pods'>;
  /** Algorithms whose Deployment is held, with why (`plan/fill-failure.ts` `heldByFailedFills`). */
  held?: ReadonlyMap<string, { reason: string; message: string }>;
}

/** Builds the record; algorithms sorted by name, pools in the pass's (snapshot) order. */
export function fleetStatusRecord(input: FleetStatusInput): FleetStatusRecord {
  const placementOf = new Map(input.placements.map((p) => [p.algorithm, p]));
  const scalingOf = new Map(input.scaling.map((d) => [d.algorithm, d]));
  return {
    cluster: input.cluster,
    at: input.now.toISOString(),
    longTaskThresholdSeconds: input.longTaskThresholdSeconds,
    ...(input.podStartupSeconds !== undefined ? { podStartupSeconds: input.podStartupSeconds } : {}),
    pools: input.pools.map((p) => ({
      node: p.node,
      from: p.from,
      to: p.to,
      reason: p.reason,
      message: p.message,
    })),
    algorithms: [...input.algorithms]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((a) => {
        const p = placementOf.get(a.name);
        const d = scalingOf.get(a.name);
        return {
          name: a.name,
          pool: p?.pool ?? null,
          runTimeSeconds: p?.runTimeSeconds ?? null,
          placementReason: p?.reason ?? 'Unknown',
          placementMessage: p?.message ?? '',
          replicas: d ? d.replicas.to : null,
          minReplicas: a.scaling.minReplicas,
          maxReplicas: a.scaling.maxReplicas,
          utilizationMin: a.scaling.utilization.min,
          utilizationMax: a.scaling.utilization.max,
          utilization: d ? d.utilization : null,
          scalingReason: d?.reason ?? null,
          scalingMessage: d?.message ?? null,
          ...(input.held?.has(a.name) ? { held: input.held.get(a.name)! } : {}),
        };
      }),
    benchmarks: (input.snapshot?.pods ?? []).filter(benchmarkInProgress).map((p) => ({
      algorithm: p.algorithm ?? '(unknown)',
      pod: `${p.namespace}/${p.name}`,
      node: p.nodeName,
      phase: p.phase,
      startedAt: p.createdAt,
    })),
  };
}
