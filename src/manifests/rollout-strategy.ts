import type { PolicySpec } from '../definitions/index.js';

/** A Deployment's `spec.strategy` (apps/v1 `DeploymentStrategy`), counts in whole pods. */
export type DeploymentStrategy =
  | { type: 'Recreate' }
  | { type: 'RollingUpdate'; rollingUpdate: { maxSurge: number; maxUnavailable: number } };

/**
 * The Deployment strategy of the policy's `rollout` (pure). The default, `RollingUpdate` with
 * `maxSurge: 1, maxUnavailable: 0`, starts one new pod, waits for it to be Ready, then stops an
 * old one, so a rollout never drops below the replicas Git holds
 * (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#rolling-update-deployment).
 * The surge pod needs the algorithm's GPUs: without a free one the rollout waits
 * (`plan/rollout.ts` says so in the plan and the pull request).
 */
export function deploymentStrategy(rollout: PolicySpec['rollout']): DeploymentStrategy {
  if (rollout.strategy === 'Recreate') return { type: 'Recreate' };
  return {
    type: 'RollingUpdate',
    rollingUpdate: { maxSurge: rollout.maxSurge, maxUnavailable: rollout.maxUnavailable },
  };
}
