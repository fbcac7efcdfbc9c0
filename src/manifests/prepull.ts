/**
 * Pre-staging a pool (pure): the pre-pull DaemonSet of a pool, so that the images of its
 * algorithms are on the pool's nodes, and on the `unused` nodes a scale-up may move into it, before
 * a new replica needs them — a replica on such a node starts after its model load alone, not
 * after an image pull too. The well-known pattern (e.g. the Kubernetes image puller of Eclipse
 * Che): one DaemonSet pod per node; its init containers run each image to pull it and exit at
 * once; a pause container keeps the pod (and so the images, which the kubelet's image garbage
 * collection keeps while a container uses them) in place.
 *
 * Nothing beyond what the policy's defaults allow (docs/security.md): no privilege, no privilege
 * escalation, every capability dropped, a read-only root file system, a non-root user, the runtime's
 * default seccomp profile, no host namespace or host path, no ServiceAccount token, no GPU (a pull
 * needs none, so the DaemonSet never takes a replica's room). Images run `true` from a shared
 * `emptyDir` that the first init container fills from a static busybox, so an image without a
 * shell (distroless) pulls too; its entrypoint never runs.
 */
import type { KubeObject } from '../cluster/index.js';
import type { Pool, PolicySpec, ResolvedAlgorithm } from '../definitions/index.js';
import type { FileChange } from './file-change.js';
import { clusterDir } from './cluster-layout.js';
import { anyVendorTolerations } from './scheduling.js';
import { renderYaml } from './yaml.js';
import { MANAGED_BY } from '../util/index.js';

/** The static busybox whose `true` each pull runs (pinned). */
export const PREPULL_TOOLS_IMAGE = 'docker.io/library/busybox:1.36.1';
/** The container that holds the pod (pinned). */
export const PREPULL_PAUSE_IMAGE = 'registry.k8s.io/pause:3.10';

const TOOLS_DIR = '/gpuops-prepull';

/** The name of a pool's pre-pull DaemonSet. */
export function prePullName(pool: Pool): string {
  return `gpuops-prepull-${pool}`;
}

const securityContext = {
  runAsNonRoot: true,
  runAsUser: 65534,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};
const resources = {
  requests: { cpu: '10m', memory: '16Mi' },
  limits: { cpu: '100m', memory: '64Mi' },
};

/** The names in a pod spec's `imagePullSecrets` (`LocalObjectReference`s); anything else is none. */
function pullSecretNames(podSpec: Record<string, unknown> | undefined): string[] {
  const refs = podSpec?.imagePullSecrets;
  if (!Array.isArray(refs)) return [];
  return refs
    .map((r) => (r as { name?: unknown } | null)?.name)
    .filter((n): n is string => typeof n === 'string');
}

/**
 * What a pool's pre-pull DaemonSet in `namespace` pulls: each algorithm's image (each once,
 * sorted), with the names of its `spec.template.spec.imagePullSecrets` (each once, sorted; names
 * only, gpuops never reads a Secret). A pod's `imagePullSecrets` name Secrets of its own namespace
 * (https://kubernetes.io/docs/concepts/containers/images/#referring-to-an-imagepullsecrets-on-a-pod),
 * so the image of an algorithm in another namespace that needs pull secrets is left out: a
 * Secret of the same name here is not its Secret (pulling with it would lend one team's registry
 * credentials to another's spec), and without one the pull fails and holds up the pod's other
 * pulls. Its replicas pull as before.
 */
export function prePullImages(
  algorithms: readonly Pick<ResolvedAlgorithm, 'spec' | 'namespace'>[],
  namespace: string,
): { images: string[]; pullSecrets: string[] } {
  const images = new Set<string>();
  const pullSecrets = new Set<string>();
  for (const a of algorithms) {
    const secrets = pullSecretNames(a.spec.template?.spec);
    if (secrets.length > 0 && a.namespace !== namespace) continue;
    images.add(a.spec.image);
    for (const s of secrets) pullSecrets.add(s);
  }
  return { images: [...images].sort(), pullSecrets: [...pullSecrets].sort() };
}

/**
 * The pre-pull DaemonSet of `pool` for `algorithms` (those placed on it; what it pulls:
 * {@link prePullImages}), in the policy's namespace, on the nodes labelled with the pool or
 * `unused` (`pools.labelKey`), tolerating every vendor's GPU taint (the pool's nodes hold any
 * vendor's GPUs, and a pull needs none) and both pools' taints. Null without an image.
 */
export function renderPrePull(
  pool: Exclude<Pool, 'unused'>,
  algorithms: readonly Pick<ResolvedAlgorithm, 'spec' | 'namespace'>[],
  policy: PolicySpec,
): KubeObject | null {
  const { images, pullSecrets } = prePullImages(algorithms, policy.namespace);
  if (images.length === 0) return null;
  const name = prePullName(pool);
  const labels = { 'app.kubernetes.io/name': name, [MANAGED_BY.key]: MANAGED_BY.value };
  const tolerations = anyVendorTolerations(policy, pool, 'unused');
  const mount = [{ name: 'tools', mountPath: TOOLS_DIR, readOnly: true }];
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      name,
      namespace: policy.namespace,
      labels,
      annotations: { 'argocd.argoproj.io/sync-wave': '0' },
    },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets.map((name) => ({ name })) } : {}),
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  {
                    matchExpressions: [
                      { key: policy.pools.labelKey, operator: 'In', values: [pool, 'unused'] },
                    ],
                  },
                ],
              },
            },
          },
          tolerations,
          volumes: [{ name: 'tools', emptyDir: { sizeLimit: '8Mi' } }],
          initContainers: [
            {
              name: 'tools',
              image: PREPULL_TOOLS_IMAGE,
              command: ['cp', '/bin/busybox', `${TOOLS_DIR}/true`],
              volumeMounts: [{ name: 'tools', mountPath: TOOLS_DIR }],
              securityContext,
              resources,
            },
            ...images.map((image, i) => ({
              name: `pull-${i}`,
              image,
              imagePullPolicy: 'IfNotPresent',
              command: [`${TOOLS_DIR}/true`],
              volumeMounts: mount,
              securityContext,
              resources,
            })),
          ],
          containers: [{ name: 'pause', image: PREPULL_PAUSE_IMAGE, securityContext, resources }],
        },
      },
    },
  };
}

/** The pools that run replicas, each with its own pre-pull DaemonSet. */
export const TASK_POOLS = ['long-task', 'short-task'] as const;

/** `clusters/<cluster>/prepull/<pool>.yaml`: a pool's pre-pull DaemonSet in Git. */
export function prePullFilePath(cluster: string, pool: (typeof TASK_POOLS)[number]): string {
  return `${clusterDir(cluster)}/prepull/${pool}.yaml`;
}

/**
 * The pre-pull files of the pools change set. With `policy.pools.prePull.enabled`: one file per
 * task pool that has an algorithm ({@link renderPrePull}). Each of those two paths that is not
 * rendered but is at the base branch head (pre-staging turned off, or the pool's last algorithm
 * gone) is deleted; no other file under `prepull/` is touched (gpuops deletes only what it names).
 * @param byPool  the algorithms placed on each task pool (absent: none)
 * @param present repo-relative paths at the base branch head
 * @returns file changes, sorted by path
 */
export function prePullFiles(
  cluster: string,
  byPool: ReadonlyMap<Pool, readonly Pick<ResolvedAlgorithm, 'spec' | 'namespace'>[]>,
  policy: PolicySpec,
  present: { has(path: string): boolean },
): FileChange[] {
  const out: FileChange[] = [];
  for (const pool of TASK_POOLS) {
    const path = prePullFilePath(cluster, pool);
    const ds = policy.pools.prePull.enabled ? renderPrePull(pool, byPool.get(pool) ?? [], policy) : null;
    if (ds !== null) out.push({ path, content: renderYaml(ds) });
    else if (present.has(path)) out.push({ path, content: null });
  }
  return out;
}
