/**
 * Argo CD's sync order and sync options, as gitops-engine implements them
 * (`pkg/sync/sync_tasks.go`, `pkg/sync/syncwaves`, `pkg/sync/common`): objects sync by wave
 * (`argocd.argoproj.io/sync-wave`, default 0, lower first), then by kind (Helm's kind order:
 * Namespace first, workloads late, unknown kinds and custom resources last), then by name.
 */
import type { KubeObject } from '../cluster/index.js';
import type { SourcedManifest } from './types.js';

/** Argo CD's sync wave of an object (an integer as text; default 0; lower waves sync first). */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
/** Argo CD's per-object sync options (comma-separated, e.g. `ServerSideApply=true,Prune=false`). */
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

/** gitops-engine's `kindOrder` (from Helm's kind sorter); kinds not listed sort after all of these. */
export const KIND_ORDER: readonly string[] = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

/**
 * The sync wave of an object.
 * @returns the wave, or an error message when the annotation is not an integer (Argo CD fails
 *   the sync on such a value)
 */
export function syncWave(obj: KubeObject): { wave: number } | { error: string } {
  const raw = obj.metadata.annotations?.[SYNC_WAVE_ANNOTATION];
  if (raw === undefined || raw.trim() === '') return { wave: 0 };
  if (!/^\s*[-+]?\d+\s*$/.test(raw)) {
    return { error: `${SYNC_WAVE_ANNOTATION}: must be an integer, got ${JSON.stringify(raw)}` };
  }
  return { wave: Number.parseInt(raw, 10) };
}

/**
 * The sync options of an object (`argocd.argoproj.io/sync-options: Prune=false,Delete=false`),
 * as a map of option name to value. Argo CD accepts `,` or `;` between options.
 */
export function syncOptions(annotations: Record<string, string> | undefined): Map<string, string> {
  const out = new Map<string, string>();
  const raw = annotations?.[SYNC_OPTIONS_ANNOTATION];
  if (!raw) return out;
  for (const part of raw.split(/[,;]/)) {
    const [k, ...v] = part.split('=');
    const key = k?.trim();
    if (key) out.set(key, v.join('=').trim());
  }
  return out;
}

function kindRank(kind: string): number {
  const i = KIND_ORDER.indexOf(kind);
  return i === -1 ? KIND_ORDER.length : i;
}

/** A manifest with its wave. */
export interface WavedManifest extends SourcedManifest {
  wave: number;
}

/**
 * Sorts manifests into Argo CD's sync order: wave, kind, name (then namespace, for a stable
 * order of same-named objects in different namespaces). Returns a new array.
 */
export function sortForSync(items: readonly WavedManifest[]): WavedManifest[] {
  return [...items].sort((a, b) => {
    if (a.wave !== b.wave) return a.wave - b.wave;
    const k = kindRank(a.object.kind) - kindRank(b.object.kind);
    if (k !== 0) return k;
    if (a.object.kind !== b.object.kind) return a.object.kind < b.object.kind ? -1 : 1;
    const an = a.object.metadata.name;
    const bn = b.object.metadata.name;
    if (an !== bn) return an < bn ? -1 : 1;
    const as = a.object.metadata.namespace ?? '';
    const bs = b.object.metadata.namespace ?? '';
    return as < bs ? -1 : as > bs ? 1 : 0;
  });
}
