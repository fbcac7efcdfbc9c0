/** The `scale` subresource: a Deployment or ReplicaSet seen as an autoscaling/v1 Scale. */
import { type KubeObject } from './types.js';

/** The autoscaling/v1 Scale of a Deployment or ReplicaSet. */
export function toScale(obj: KubeObject): KubeObject {
  const sel = obj.spec?.selector as
    | {
        matchLabels?: Record<string, string>;
        matchExpressions?: { key: string; operator: string; values?: string[] }[];
      }
    | undefined;
  const parts = Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const op = e.operator;
    if (op === 'In' || op === 'NotIn')
      parts.push(`${e.key} ${op.toLowerCase()} (${(e.values ?? []).join(',')})`);
    else parts.push(op === 'Exists' ? e.key : `!${e.key}`);
  }
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: obj.spec?.replicas ?? 1 },
    status: { replicas: obj.status?.replicas ?? 0, selector: parts.join(',') },
  };
}
