/**
 * The resource types the simulated API server serves: where each lives in the REST tree
 * (group/version), its kind, and whether it is namespaced. Mirrors `kubectl api-resources`.
 */
import type { Resource } from './types.js';

/** One served resource type. */
export interface ResourceInfo {
  resource: Resource;
  /** API group; '' for the core group (`/api/v1`). */
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  /** Subresources served besides the object itself, e.g. `status`, `scale`. */
  subresources: string[];
  shortNames?: string[];
  /** Categories the resource belongs to (`all`: what `kubectl get all` lists). */
  categories?: string[];
  /** Whether a write to the main endpoint ignores `status` (it has a `status` subresource). */
  statusSubresource: boolean;
}

const R = (
  resource: Resource,
  group: string,
  version: string,
  kind: string,
  namespaced: boolean,
  subresources: string[],
  shortNames?: string[],
  categories?: string[],
): ResourceInfo => ({
  resource,
  group,
  version,
  kind,
  namespaced,
  subresources,
  statusSubresource: subresources.includes('status'),
  ...(shortNames ? { shortNames } : {}),
  ...(categories ? { categories } : {}),
});

/** Every resource type served, in discovery order. */
export const RESOURCES: readonly ResourceInfo[] = [
  R('namespaces', '', 'v1', 'Namespace', false, ['status'], ['ns']),
  R('nodes', '', 'v1', 'Node', false, ['status'], ['no']),
  R('pods', '', 'v1', 'Pod', true, ['status', 'eviction'], ['po'], ['all']),
  R('events', '', 'v1', 'Event', true, [], ['ev']),
  R('secrets', '', 'v1', 'Secret', true, []),
  R('configmaps', '', 'v1', 'ConfigMap', true, [], ['cm']),
  R('services', '', 'v1', 'Service', true, ['status'], ['svc'], ['all']),
  R('serviceaccounts', '', 'v1', 'ServiceAccount', true, [], ['sa']),
  R('resourcequotas', '', 'v1', 'ResourceQuota', true, ['status'], ['quota']),
  R('deployments', 'apps', 'v1', 'Deployment', true, ['status', 'scale'], ['deploy'], ['all']),
  R('replicasets', 'apps', 'v1', 'ReplicaSet', true, ['status', 'scale'], ['rs'], ['all']),
  R('daemonsets', 'apps', 'v1', 'DaemonSet', true, ['status'], ['ds'], ['all']),
  R('jobs', 'batch', 'v1', 'Job', true, ['status'], undefined, ['all']),
  R(
    'horizontalpodautoscalers',
    'autoscaling',
    'v2',
    'HorizontalPodAutoscaler',
    true,
    ['status'],
    ['hpa'],
    ['all'],
  ),
  R('leases', 'coordination.k8s.io', 'v1', 'Lease', true, []),
  R('endpointslices', 'discovery.k8s.io', 'v1', 'EndpointSlice', true, []),
  R('clusterroles', 'rbac.authorization.k8s.io', 'v1', 'ClusterRole', false, []),
  R('clusterrolebindings', 'rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', false, []),
  R('roles', 'rbac.authorization.k8s.io', 'v1', 'Role', true, []),
  R('rolebindings', 'rbac.authorization.k8s.io', 'v1', 'RoleBinding', true, []),
];

/** `group/version` as it appears in `apiVersion` (`v1` for the core group). */
export function groupVersion(info: ResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** The resource type named by `resource` (plural) under `groupVersion`, if served. */
export function findResource(gv: string, resource: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => groupVersion(r) === gv && r.resource === resource);
}

/** The resource type of a kind under an apiVersion (`apps/v1`, `Deployment`), if served. */
export function resourceForKind(apiVersion: string, kind: string): ResourceInfo | undefined {
  return RESOURCES.find((r) => groupVersion(r) === apiVersion && r.kind === kind);
}

/** The info of a resource by plural name (each plural is served under one group). */
export function resourceInfo(resource: Resource): ResourceInfo {
  const info = RESOURCES.find((r) => r.resource === resource);
  if (!info) throw new Error(`unknown resource ${resource}`);
  return info;
}
