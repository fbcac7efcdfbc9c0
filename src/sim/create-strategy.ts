/** What the API server sets on create, per resource (its create strategy). */
import { randomInt } from 'node:crypto';
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
    case 'daemonsets':
    case 'jobs':
    case 'horizontalpodautoscalers':
      obj.status = {};
      break;
    case 'services': {
      // The service IP allocator: a free address of the service CIDR (10.96.0.0/12 by default);
      // headless (`None`) and ExternalName services get none.
      obj.status = { loadBalancer: {} };
      const spec = (obj.spec ??= {}) as { type?: string; clusterIP?: string; clusterIPs?: string[] };
      if (spec.type !== 'ExternalName' && !spec.clusterIP) {
        const n = randomInt(1, 0xfffe);
        spec.clusterIP = `10.96.${n >> 8}.${n & 0xff}`;
      }
      if (spec.clusterIP) spec.clusterIPs ??= [spec.clusterIP];
      break;
    }
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
