/** What the API server sets on create, per resource (its create strategy). */
import { type KubeObject } from './types.js';
import type { Target } from './rest-target.js';

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

/**
 * A pod's QoS class (https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/): Guaranteed
 * when every container sets cpu and memory limits equal to its requests (requests default to
 * limits), BestEffort when none sets any cpu or memory, else Burstable.
 */
export function qosClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])] as {
    resources?: Resources;
  }[];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...(c.resources?.requests ?? {}) };
    for (const r of ['cpu', 'memory']) {
      if (limits[r] !== undefined || requests[r] !== undefined) any = true;
      if (limits[r] === undefined || requests[r] !== limits[r]) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** What the API server resets on create, per resource (its create strategy). */
export function prepareForCreate(t: Target, obj: KubeObject): void {
  switch (t.info.resource) {
    case 'pods':
      obj.status = { phase: 'Pending', qosClass: qosClass(obj) };
      break;
    case 'deployments':
    case 'replicasets':
    case 'jobs':
    case 'horizontalpodautoscalers':
      obj.status = {};
      break;
    case 'namespaces':
      obj.status = { phase: 'Active' };
      obj.spec = { finalizers: ['kubernetes'], ...(obj.spec ?? {}) };
      obj.metadata.labels = {
        ...(obj.metadata.labels ?? {}),
        'kubernetes.io/metadata.name': obj.metadata.name,
      };
      break;
    default:
      break;
  }
}
