/**
 * Other owners of a workload's `spec.replicas` (pure): every HorizontalPodAutoscaler and what it
 * scales (`spec.scaleTargetRef`), and who made it — a KEDA ScaledObject makes and owns the HPA
 * that scales its target (https://keda.sh/docs/latest/concepts/scaling-deployments/), so the HPA's
 * controller ownerReference names the ScaledObject. gpuops holds its own scaling of a Deployment
 * another autoscaler scales: one owner of `spec.replicas`.
 */
import type { V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { MANAGED_BY } from '../util/index.js';
import type { AutoscalerInfo } from './types.js';

export type { AutoscalerInfo } from './types.js';

/** Reduces an autoscaling/v2 HorizontalPodAutoscaler (as listed, watched or dumped). */
export function reduceAutoscaler(h: V2HorizontalPodAutoscaler): AutoscalerInfo {
  const refs = h.metadata?.ownerReferences ?? [];
  const owner = refs.find((r) => r.controller === true) ?? refs[0];
  return {
    namespace: h.metadata?.namespace ?? '',
    name: h.metadata?.name ?? '',
    target: { kind: h.spec?.scaleTargetRef?.kind ?? '', name: h.spec?.scaleTargetRef?.name ?? '' },
    owner: owner ? { kind: owner.kind, name: owner.name } : null,
    managed: h.metadata?.labels?.[MANAGED_BY.key] === MANAGED_BY.value,
  };
}

/**
 * The autoscalers that scale Deployment `name` of `namespace` other than gpuops's own HPA (with
 * `scaling.engine: hpa`, the one named after the algorithm and labelled as gpuops's), described
 * for a decision: `HorizontalPodAutoscaler algorithms/web (made by KEDA ScaledObject algorithms/web)`.
 * `[]` when none.
 * @param ownHpa true with `scaling.engine: hpa` (gpuops writes an HPA of the algorithm's name)
 */
export function otherAutoscalers(
  autoscalers: readonly AutoscalerInfo[] | undefined,
  namespace: string,
  name: string,
  ownHpa: boolean,
): string[] {
  return (autoscalers ?? [])
    .filter((a) => a.namespace === namespace && a.target.kind === 'Deployment' && a.target.name === name)
    .filter((a) => !(ownHpa && a.managed && a.name === name && a.owner === null))
    .map((a) => {
      const by = a.owner
        ? ` (made by ${a.owner.kind === 'ScaledObject' ? 'KEDA ' : ''}${a.owner.kind} ${a.namespace}/${a.owner.name})`
        : '';
      return `HorizontalPodAutoscaler ${a.namespace}/${a.name}${by}`;
    })
    .sort();
}
