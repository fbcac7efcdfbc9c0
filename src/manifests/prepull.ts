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
import type { KubeObject } from '../cluster/object.js';
import type { Pool, PolicySpec, ResolvedAlgorithm } from '../definitions/types.js';
import type { FileChange } from './file-change.js';
import { clusterDir } from './cluster-layout.js';
import { poolScheduling } from './scheduling.js';
import { renderYaml } from './yaml.js';
import { MANAGED_BY, VENDORS } from '../util/vocabulary.js';
import { gpuToleration } from '../cluster/taints.js';

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

/**
 * The pre-pull DaemonSet of `pool` for `algorithms` (those placed on it; their images, each once,
 * sorted), in the policy's namespace, on the nodes labelled with the pool or `unused`
 * (`pools.labelKey`), tolerating every vendor's GPU taint (the pool's nodes hold any vendor's GPUs,
 * and a pull needs none) and both pools' taints. Null without an image.
 */
export function renderPrePull(
  pool: Exclude<Pool, 'unused'>,
  algorithms: readonly Pick<ResolvedAlgorithm, 'spec'>[],
  policy: PolicySpec,
): KubeObject | null {
  const images = [...new Set(algorithms.map((a) => a.spec.image))].sort();
  if (images.length === 0) return null;
  const name = prePullName(pool);
  const labels = { 'app.kubernetes.io/name': name, [MANAGED_BY.key]: MANAGED_BY.value };
  // poolScheduling's first toleration is NVIDIA's GPU taint alone; every vendor's instead.
  const tolerations = [
    ...VENDORS.map(gpuToleration),
    ...poolScheduling(pool, policy).tolerations.slice(1),
    ...poolScheduling('unused', policy).tolerations.slice(1),
  ];
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
  byPool: ReadonlyMap<Pool, readonly Pick<ResolvedAlgorithm, 'spec'>[]>,
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
