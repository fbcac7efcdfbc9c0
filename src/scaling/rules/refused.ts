import { hold, type Facts, type Verdict } from './facts.js';

/**
 * Replicas the API server refuses → `hold ReplicasRefused`: the Deployment's ReplicaSet reports
 * `ReplicaFailure` (`FailedCreate`: a ResourceQuota, LimitRange or PodSecurity admission refused
 * its pod, https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#failed-deployment)
 * and fewer replicas exist than Git asks for. Such a replica is no capacity on its way (it is never
 * created, so `podsStarting` would wait for it forever), and a scale-up or a node move only makes
 * more refused pods; the hold names the refusal until it is lifted. Every replica there (exactly
 * `from` live pods): the condition is stale, null. Null without a refusal.
 */
export function refused(f: Facts): Verdict | null {
  const why = f.input.refusal;
  if (!why) return null;
  const missing = f.from - f.counted.length;
  if (missing <= 0) return null;
  return hold(
    f,
    'ReplicasRefused',
    `${missing} of ${f.from} replica(s) not created, the API server refuses them (${why}); replicas stay at ${f.from} until the refusal is lifted`,
  );
}
