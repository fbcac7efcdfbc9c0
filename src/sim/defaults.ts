/**
 * The defaults the API server fills on write for the fields gpuops reads (from the Kubernetes
 * `SetDefaults_*` functions and the Job create strategy). Pod templates are left as sent, so
 * controllers hash them as written.
 */
import { normaliseSecret } from './secrets.js';
import type { KubeObject, Resource } from './types.js';

/**
 * Fills defaults in place on an object about to be stored through the API. `creating` adds what
 * only creation sets (a Job's generated selector and template labels, which need `metadata.uid`).
 */
export function applyDefaults(resource: Resource, obj: KubeObject, creating: boolean): void {
  const spec = obj.spec as Record<string, unknown> | undefined;
  switch (resource) {
    case 'deployments':
      if (!spec) return;
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: 'RollingUpdate' };
      {
        const strategy = spec.strategy as { type?: string; rollingUpdate?: Record<string, unknown> };
        strategy.type ??= 'RollingUpdate';
        if (strategy.type === 'RollingUpdate') {
          strategy.rollingUpdate ??= {};
          strategy.rollingUpdate.maxUnavailable ??= '25%';
          strategy.rollingUpdate.maxSurge ??= '25%';
        }
      }
      break;
    case 'replicasets':
      if (spec) spec.replicas ??= 1;
      break;
    case 'daemonsets':
      if (!spec) return;
      spec.revisionHistoryLimit ??= 10;
      spec.updateStrategy ??= { type: 'RollingUpdate' };
      {
        const strategy = spec.updateStrategy as { type?: string; rollingUpdate?: Record<string, unknown> };
        strategy.type ??= 'RollingUpdate';
        if (strategy.type === 'RollingUpdate') {
          strategy.rollingUpdate ??= {};
          strategy.rollingUpdate.maxUnavailable ??= 1;
          strategy.rollingUpdate.maxSurge ??= 0;
        }
      }
      break;
    case 'jobs':
      if (!spec) return;
      if (spec.completions === undefined && spec.parallelism === undefined) {
        spec.completions = 1;
        spec.parallelism = 1;
      }
      spec.parallelism ??= 1;
      spec.backoffLimit ??= 6;
      spec.completionMode ??= 'NonIndexed';
      spec.suspend ??= false;
      if (creating && !spec.manualSelector && obj.metadata.uid) {
        // The Job strategy generates the selector and labels the template with it.
        const labels = {
          'batch.kubernetes.io/controller-uid': obj.metadata.uid,
          'batch.kubernetes.io/job-name': obj.metadata.name,
          'controller-uid': obj.metadata.uid,
          'job-name': obj.metadata.name,
        };
        spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': obj.metadata.uid } };
        const template = (spec.template ??= {}) as { metadata?: { labels?: Record<string, string> } };
        template.metadata ??= {};
        template.metadata.labels = { ...(template.metadata.labels ?? {}), ...labels };
      }
      break;
    case 'horizontalpodautoscalers':
      if (spec) spec.minReplicas ??= 1;
      break;
    case 'pods':
      if (!spec) return;
      spec.restartPolicy ??= 'Always';
      spec.schedulerName ??= 'default-scheduler';
      spec.terminationGracePeriodSeconds ??= 30;
      spec.dnsPolicy ??= 'ClusterFirst';
      break;
    case 'secrets':
      normaliseSecret(obj);
      break;
    case 'services':
      if (!spec) return;
      spec.type ??= 'ClusterIP';
      spec.sessionAffinity ??= 'None';
      for (const p of (spec.ports ?? []) as Record<string, unknown>[]) {
        p.protocol ??= 'TCP';
        p.targetPort ??= p.port;
      }
      break;
    default:
      break;
  }
}
