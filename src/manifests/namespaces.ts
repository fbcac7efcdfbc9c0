/**
 * The Namespace objects the algorithms need, written into Git so that Argo CD or Flux creates
 * them; gpuops never creates a namespace itself (pure).
 *
 * One file per namespace, `clusters/<cluster>/namespaces/<namespace>.yaml`, written only by the
 * pools subject (the cluster-level pull request): no two subjects' pull requests share a file, and
 * the namespace exists before the first benchmark Job of an algorithm in it (benchmarks run before
 * any placement pull request exists). A single `namespaces.yaml` (an early draft of docs/design.md)
 * would be one list that changes whenever a namespace comes or goes; a file per namespace changes
 * only with that namespace.
 *
 * Each file also holds a RoleBinding of the ClusterRole `gpuops-benchmark` (templates/install) to
 * gpuops's ServiceAccount, in that namespace only (and, in patch mode, one of `gpuops-scale`):
 * gpuops can run benchmark Jobs (and set Deployments' replicas) in the algorithm namespaces and
 * nowhere else (a ClusterRole bound by a RoleBinding grants its rules only in the
 * binding's namespace; Kubernetes RBAC docs, "RoleBinding and ClusterRoleBinding").
 */
import { parseAllDocuments } from 'yaml';
import type { RenderedFile } from './nodes.js';
import { renderYaml } from './yaml.js';
import { documentValue, MANAGED_BY, byString, boundedMemo } from '../util/index.js';

/** gpuops's ServiceAccount as templates/install creates it. */
export interface ServiceAccountRef {
  namespace: string;
  name: string;
}

/** The ServiceAccount of templates/install/serviceaccount.yaml. */
export const DEFAULT_SERVICE_ACCOUNT: Readonly<ServiceAccountRef> = {
  namespace: 'gpuops-system',
  name: 'gpuops',
};

/** The ClusterRole (templates/install/clusterrole.yaml) each algorithm namespace binds. */
export const BENCHMARK_CLUSTER_ROLE = 'gpuops-benchmark';

/**
 * The ClusterRole of patch mode's scale writes (templates/install/components/patch-mode): bound in
 * each algorithm namespace only while `scaling.mode` is `patch`, so gpuops can set the replicas of
 * Deployments there and nowhere else (a cluster-wide grant reached every Deployment of the cluster).
 */
export const SCALE_CLUSTER_ROLE = 'gpuops-scale';

/**
 * The ClusterRole of standby claims (templates/install/clusterrole.yaml): Pods' `get`, `patch`
 * (relabel a standby into an algorithm's Service and back) and `delete`, bound only in the
 * namespaces where the policy declares a standby set (docs/standby.md).
 */
export const CLAIM_CLUSTER_ROLE = 'gpuops-claim';

/**
 * Annotations of every generated Namespace: sync wave -2, before the Node labels (-1) and the
 * workloads (0); Argo CD never prunes or deletes it and Flux never prunes it, because deleting a
 * Namespace deletes everything in it, also what others put there.
 */
export const NAMESPACE_ANNOTATIONS: Readonly<Record<string, string>> = {
  'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
  'argocd.argoproj.io/sync-wave': '-2',
  'kustomize.toolkit.fluxcd.io/prune': 'disabled',
};

/** Folder of the namespace files of a cluster. */
export function namespacesDir(cluster: string): string {
  return `clusters/${cluster}/namespaces`;
}

/** `clusters/<cluster>/namespaces/<namespace>.yaml`. */
export function namespaceFilePath(cluster: string, namespace: string): string {
  return `${namespacesDir(cluster)}/${namespace}.yaml`;
}

/** String entries of a YAML map value (labels, annotations); anything else is no entries. */
function stringEntries(v: unknown): [string, string][] {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return [];
  return Object.entries(v as Record<string, unknown>).filter(
    (e): e is [string, string] => typeof e[1] === 'string',
  );
}

/**
 * The labels and annotations of the Namespace in `current` (the file Git holds) that gpuops does
 * not write — a Pod Security `pod-security.kubernetes.io/enforce` label, a team's annotation —
 * which the rendered file keeps. A file that does not parse, or whose value cannot be built (an
 * alias with no anchor), keeps nothing.
 */
function keptMetadata(current: string | undefined): {
  labels: [string, string][];
  annotations: [string, string][];
} {
  const none = { labels: [], annotations: [] };
  if (current === undefined) return none;
  for (const doc of parseAllDocuments(current)) {
    const parsed = documentValue(doc);
    if (!parsed.ok) return none;
    const o = parsed.value as {
      kind?: unknown;
      metadata?: { labels?: unknown; annotations?: unknown };
    } | null;
    if (o?.kind !== 'Namespace') continue;
    return {
      labels: stringEntries(o.metadata?.labels).filter(([k]) => k !== MANAGED_BY.key),
      annotations: stringEntries(o.metadata?.annotations).filter(([k]) => !(k in NAMESPACE_ANNOTATIONS)),
    };
  }
  return none;
}

/** `own` over `kept`, keys sorted (byte-stable whatever order a person wrote them in). */
function merged(kept: [string, string][], own: Readonly<Record<string, string>>): Record<string, string> {
  const all = new Map([...kept, ...Object.entries(own)]);
  return Object.fromEntries([...all].sort(([a], [b]) => byString(a, b)));
}

/**
 * True when a namespace file as Git holds it (`content`; absent: no file) binds
 * {@link SCALE_CLUSTER_ROLE}: a RoleBinding whose `roleRef` names it, as patch mode renders it.
 * Once Argo CD or Flux applied it, gpuops may read and patch the namespace's Deployments (their
 * `scale`, and the Deployment itself for the hand-over of `spec.replicas`). A file or document
 * that does not parse binds nothing.
 */
export function bindsScaleRole(content: string | undefined): boolean {
  return content !== undefined && bindsByText(content);
}

/**
 * {@link bindsScaleRole} of a file's text. The answer is a pure function of the text, so a file
 * unchanged since the last pass is not parsed again (issue 42: the parse was ~4 % of a steady
 * pass); 4,096 texts at most (one per namespace is plenty), the oldest going first
 * (`boundedMemo`); a changed file is a new key.
 */
const bindsByText = boundedMemo(4096, (content: string): boolean =>
  parseAllDocuments(content).some((doc) => {
    const parsed = documentValue(doc);
    const o = parsed.ok ? (parsed.value as { kind?: unknown; roleRef?: { name?: unknown } } | null) : null;
    return o?.kind === 'RoleBinding' && o.roleRef?.name === SCALE_CLUSTER_ROLE;
  }),
);

/** What a namespace file grants besides the benchmark Jobs. */
export interface NamespaceGrants {
  /** Patch mode: a RoleBinding of {@link SCALE_CLUSTER_ROLE} (Deployments' `scale`). */
  scale: boolean;
  /** The namespaces of the policy's standby sets: a RoleBinding of {@link CLAIM_CLUSTER_ROLE} there. */
  claimNamespaces?: ReadonlySet<string>;
}

/**
 * Renders one namespace file (byte-stable): the Namespace, then the RoleBinding of
 * {@link BENCHMARK_CLUSTER_ROLE} to `serviceAccount` in it, both in sync wave -2 (Argo CD applies
 * the Namespace first within a wave by kind order). The labels and annotations of the Namespace in
 * `current` (the file Git holds) that gpuops does not write are kept: a person's Pod Security
 * label (`pod-security.kubernetes.io/enforce: restricted`) must not go under a pools change.
 * With `grants.scale` (patch mode) the file also holds the RoleBinding of {@link SCALE_CLUSTER_ROLE},
 * and where `grants.claimNamespaces` holds the namespace, the RoleBinding of
 * {@link CLAIM_CLUSTER_ROLE} (standby claims), in the same wave.
 */
export function renderNamespaceFile(
  cluster: string,
  namespace: string,
  serviceAccount: ServiceAccountRef = DEFAULT_SERVICE_ACCOUNT,
  grants: NamespaceGrants = { scale: false },
  current?: string,
): RenderedFile {
  const labels = { [MANAGED_BY.key]: MANAGED_BY.value };
  const kept = keptMetadata(current);
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespace,
      labels: merged(kept.labels, labels),
      annotations: merged(kept.annotations, NAMESPACE_ANNOTATIONS),
    },
  };
  const binding = (role: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: role,
      namespace,
      labels,
      annotations: { 'argocd.argoproj.io/sync-wave': '-2' },
    },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: serviceAccount.namespace }],
  });
  const bindings = [
    binding(BENCHMARK_CLUSTER_ROLE),
    ...(grants.scale ? [binding(SCALE_CLUSTER_ROLE)] : []),
    ...(grants.claimNamespaces?.has(namespace) ? [binding(CLAIM_CLUSTER_ROLE)] : []),
  ];
  return {
    path: namespaceFilePath(cluster, namespace),
    content: renderYaml([ns, ...bindings]),
  };
}

/**
 * The namespace files for the namespaces of `algorithms`, one per distinct namespace, sorted by
 * path, each keeping what a person added to the file Git holds (`current`, by path). A namespace
 * no algorithm uses any more keeps its file: removing it would not delete the Namespace
 * (Prune=false) and a person may still run things there.
 */
export function renderNamespaceFiles(
  cluster: string,
  namespaces: Iterable<string>,
  serviceAccount?: ServiceAccountRef,
  grants?: NamespaceGrants,
  current?: ReadonlyMap<string, string>,
): RenderedFile[] {
  return [...new Set(namespaces)]
    .sort()
    .map((ns) =>
      renderNamespaceFile(cluster, ns, serviceAccount, grants, current?.get(namespaceFilePath(cluster, ns))),
    );
}
