/**
 * Whether an Argo CD AppProject permits one object, by the project's documented rules
 * (https://argo-cd.readthedocs.io/en/stable/user-guide/projects/): a cluster-scoped kind must
 * match an entry of `clusterResourceWhitelist` (none listed: none permitted) and none of
 * `clusterResourceBlacklist`; a namespaced kind must match `namespaceResourceWhitelist` when the
 * project lists one and none of `namespaceResourceBlacklist`, and its namespace must be a
 * destination's (globs, `*` any characters). For tests of the shipped project.
 */
import type { KubeObject } from '../../src/cluster/object.js';

/** Kubernetes kinds that have no namespace (`kubectl api-resources --namespaced=false`), as far as tests use them. */
const CLUSTER_SCOPED = new Set([
  'Node',
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'CustomResourceDefinition',
  'PriorityClass',
  'RuntimeClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

interface GroupKind {
  group: string;
  kind: string;
}

const glob = (pattern: string, value: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(value);
const listed = (entries: GroupKind[] | undefined, g: GroupKind) =>
  (entries ?? []).some((e) => glob(e.group, g.group) && glob(e.kind, g.kind));

/** Why `project` refuses `o`, or null when it permits it. */
export function appProjectRefusal(
  project: { metadata: { name: string }; spec: Record<string, unknown> },
  o: KubeObject,
): string | null {
  const spec = project.spec as {
    clusterResourceWhitelist?: GroupKind[];
    clusterResourceBlacklist?: GroupKind[];
    namespaceResourceWhitelist?: GroupKind[];
    namespaceResourceBlacklist?: GroupKind[];
    destinations?: { server?: string; namespace?: string }[];
  };
  const name = project.metadata.name;
  const g = { group: o.apiVersion.includes('/') ? o.apiVersion.split('/')[0]! : '', kind: o.kind };
  const what = `${g.group}/${g.kind}`;
  if (CLUSTER_SCOPED.has(o.kind)) {
    if (!listed(spec.clusterResourceWhitelist, g))
      return `${what} is not in project ${name}'s clusterResourceWhitelist`;
    if (listed(spec.clusterResourceBlacklist, g))
      return `${what} is in project ${name}'s clusterResourceBlacklist`;
    return null;
  }
  if (spec.namespaceResourceWhitelist && !listed(spec.namespaceResourceWhitelist, g))
    return `${what} is not in project ${name}'s namespaceResourceWhitelist`;
  if (listed(spec.namespaceResourceBlacklist, g))
    return `${what} is in project ${name}'s namespaceResourceBlacklist`;
  const ns = o.metadata.namespace ?? '';
  if (!(spec.destinations ?? []).some((d) => glob(d.namespace ?? '', ns)))
    return `namespace ${ns} is not a destination of project ${name}`;
  return null;
}
