/**
 * A model cache (pure): the Job that fills an algorithm's `spec.modelCache` claim, and the claim
 * mounted read-only into its Deployment's pod. The claim is the user's (gpuops never creates
 * storage); it must be `ReadWriteMany` when gpuops fills it (the fill Job writes, every replica on
 * every node reads), or a `ReadOnlyMany` claim filled some other way (no `fill`).
 *
 * The fill Job runs the algorithm's own download step (its image, command and args: gpuops cannot
 * know how a model is fetched) with the restricted pod security of every pod gpuops renders
 * (`pod-security.ts`: non-root, no privilege escalation, every capability dropped, the runtime's
 * default seccomp profile), no GPU, no ServiceAccount token, no host path or host namespace. It
 * takes the algorithm's pod-level `securityContext` (the same user and `fsGroup` as the replicas
 * that read the files; validated by the confinement rules) and its `imagePullSecrets` (Secrets of
 * the same namespace).
 *
 * Its name carries a hash of what it does (claim, mount path, image, command, args), so a changed
 * fill step is a new Job (a Job's pod template cannot change) and an unchanged one is the same
 * object, which the applier leaves alone: it never runs again. It has no `ttlSecondsAfterFinished`:
 * a Job deleted after it finished would be created again by the applier from Git, and fill again.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../cluster/index.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { dnsLabel } from './names.js';
import { restrictPod } from './pod-security.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';
// The exact file: the definitions face loads the spec files from disk.
import { MODEL_CACHE_VOLUME } from '../definitions/rules/model-cache.js';

/**
 * Label (on the fill Job and its pod: the Job's name) and Deployment pod annotation (the fill Job
 * whose files the replicas read; a new fill rolls the replicas once it is Complete).
 */
export const MODEL_CACHE_FILL = GPUOPS.modelCacheFill;
/** Name of the fill container. */
export const FILL_CONTAINER = 'fill';
/** Retries of a failed fill pod before the Job is Failed. */
export const FILL_BACKOFF_LIMIT = 3;

type Cache = NonNullable<ResolvedAlgorithm['spec']['modelCache']>;

/**
 * The fill Job's name: `<algorithm>-model-cache-<8 hex>`, the hex the start of the sha256 of the
 * claim, mount path, image, command and args (as JSON), cut to a DNS-1123 label (`dnsLabel`).
 * Null when the cache has no fill step.
 */
export function modelCacheFillName(algorithm: string, cache: Cache | undefined): string | null {
  if (!cache?.fill) return null;
  const { claimName, mountPath, fill } = cache;
  const what = JSON.stringify([claimName, mountPath, fill.image, fill.command ?? null, fill.args ?? null]);
  const hash = createHash('sha256').update(what).digest('hex').slice(0, 8);
  return dnsLabel([algorithm, 'model-cache', hash]);
}

type Obj = Record<string, unknown>;

/**
 * The batch/v1 Job that fills `alg`'s model cache (module comment), in its namespace, mounting the
 * claim read-write at the mount path; `restartPolicy: Never`, `backoffLimit`
 * {@link FILL_BACKOFF_LIMIT}. Null without a fill step.
 */
export function renderModelCacheFill(alg: ResolvedAlgorithm): KubeObject | null {
  const cache = alg.spec.modelCache;
  const name = modelCacheFillName(alg.name, cache);
  if (!cache?.fill || name === null) return null;
  const labels = {
    'app.kubernetes.io/name': alg.name,
    [MANAGED_BY.key]: MANAGED_BY.value,
    [GPUOPS.algorithm]: alg.name,
    [MODEL_CACHE_FILL]: name,
  };
  const template = (alg.spec.template?.spec ?? {}) as Obj;
  const pod: Obj & { containers: Obj[] } = {
    restartPolicy: 'Never',
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    ...(template['securityContext'] ? { securityContext: structuredClone(template['securityContext']) } : {}),
    ...(template['imagePullSecrets']
      ? { imagePullSecrets: structuredClone(template['imagePullSecrets']) }
      : {}),
    volumes: [{ name: MODEL_CACHE_VOLUME, persistentVolumeClaim: { claimName: cache.claimName } }],
    containers: [
      {
        name: FILL_CONTAINER,
        image: cache.fill.image,
        ...(cache.fill.command ? { command: cache.fill.command } : {}),
        ...(cache.fill.args ? { args: cache.fill.args } : {}),
        volumeMounts: [{ name: MODEL_CACHE_VOLUME, mountPath: cache.mountPath }],
        terminationMessagePolicy: 'FallbackToLogsOnError',
      },
    ],
  };
  restrictPod(pod);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: alg.namespace, labels },
    spec: { backoffLimit: FILL_BACKOFF_LIMIT, template: { metadata: { labels }, spec: pod } },
  };
}

/**
 * Mounts `cache`'s claim read-only into a rendered Deployment pod template, in place: the volume
 * (`persistentVolumeClaim.readOnly`), the algorithm container's mount (`readOnly`), and, with a
 * fill step, the pod annotation {@link MODEL_CACHE_FILL} naming the fill Job whose files the
 * replicas read (so a new fill rolls them).
 */
export function mountModelCache(
  algorithm: string,
  cache: Cache,
  pod: { metadata?: Obj; spec: Obj & { containers?: Obj[] } },
): void {
  const volumes = Array.isArray(pod.spec['volumes']) ? (pod.spec['volumes'] as unknown[]) : [];
  pod.spec['volumes'] = [
    ...volumes,
    { name: MODEL_CACHE_VOLUME, persistentVolumeClaim: { claimName: cache.claimName, readOnly: true } },
  ];
  const container = pod.spec.containers?.[0];
  if (container) {
    const mounts = Array.isArray(container['volumeMounts']) ? (container['volumeMounts'] as unknown[]) : [];
    container['volumeMounts'] = [
      ...mounts,
      { name: MODEL_CACHE_VOLUME, mountPath: cache.mountPath, readOnly: true },
    ];
  }
  const fill = modelCacheFillName(algorithm, cache);
  if (fill === null) return;
  const meta = (pod.metadata ??= {});
  meta['annotations'] = { ...(meta['annotations'] as Obj | undefined), [MODEL_CACHE_FILL]: fill };
}

/** `clusters/<cluster>/algorithms/<name>/model-cache-fill.yaml`: the fill Job in Git. */
export function modelCacheFilePath(cluster: string, algorithm: string): string {
  return `clusters/${cluster}/algorithms/${algorithm}/model-cache-fill.yaml`;
}
