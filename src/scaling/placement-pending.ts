import type { Pool, ResolvedAlgorithm } from '../definitions/index.js';
import type { ScalingDecision } from './types.js';

/**
 * The scaling entry of an algorithm that has a pool but no Deployment in Git yet (its placement
 * pull request creates it): nothing to scale, `hold PlacementPending`, replicas 0 → 0, no
 * utilisation. Never an `AboveMax` on a hold.
 */
export function placementPending(algorithm: ResolvedAlgorithm, pool: Pool): ScalingDecision {
  return {
    algorithm: algorithm.name,
    action: 'hold',
    replicas: { from: 0, to: 0 },
    utilization: null,
    nodes: [],
    reason: 'PlacementPending',
    message: `${algorithm.name}: no Deployment in Git yet; the placement pull request creates it on pool ${pool} with ${algorithm.scaling.minReplicas} replica(s), and scaling starts once it is merged`,
  };
}
