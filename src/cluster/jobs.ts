import {
  BatchV1Api,
  CoreV1Api,
  type KubeConfig,
  type V1ContainerStatus,
  type V1Job,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { classifyKubeError, toKubeApiError } from './kube-errors.js';
import { effectiveGpuRequest, reduceNode } from './snapshot.js';

/** A Kubernetes object as plain JSON (what the renderers produce). */
export interface JobManifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The part of a Job's status the benchmark runner follows. */
export interface JobView {
  namespace: string;
  name: string;
  /** `status.conditions` (types `Complete`, `Failed`, `SuccessCriteriaMet`, `FailureTarget`, …). */
  conditions: { type: string; status: string; reason: string | null; message: string | null }[];
  active: number;
  succeeded: number;
  failed: number;
  /** `metadata.creationTimestamp`, or null. */
  createdAt: Date | null;
  /**
   * `spec.suspend` is true: the Job controller runs no pod (a queueing system such as Kueue holds
   * it until it admits it, https://kubernetes.io/docs/concepts/workloads/controllers/job/#suspending-a-job).
   */
  suspended?: boolean;
  /** `status.startTime`: when the Job last started (reset when it resumes after a suspension), or null. */
  startedAt?: Date | null;
  /** `metadata.labels` (e.g. `kueue.x-k8s.io/queue-name`). */
  labels?: Record<string, string>;
  /** `metadata.annotations` (gpuops's spec hash). */
  annotations?: Record<string, string>;
  /** `metadata.uid`: set by the API server on create, never by the creator; absent when not read. */
  uid?: string;
}

/** The answer to a Job create: see `JobApi.createJob`. */
export interface CreatedJob {
  outcome: 'created' | 'exists';
  /** The created Job's `metadata.uid`; null when it existed (or the API server gave none). */
  uid: string | null;
}

/** One container's state, reduced. Times are parsed RFC 3339 timestamps. */
export interface ContainerView {
  name: string;
  state: 'waiting' | 'running' | 'terminated' | 'unknown';
  /** Waiting or terminated reason, e.g. `ImagePullBackOff`, `Completed`, `Error`. */
  reason: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  exitCode: number | null;
  /** The termination message (file, or log tail with `FallbackToLogsOnError`), or the waiting message. */
  message: string | null;
  /** `status.containerStatuses[].image` (the image the kubelet runs or tries to pull), or null. */
  image: string | null;
}

/** One pod of a Job, reduced to what the runner needs. */
export interface PodView {
  name: string;
  phase: string;
  nodeName: string | null;
  /** PodScheduled is `False` with reason `Unschedulable`: the scheduler's message, else null. */
  unschedulable: string | null;
  /** When PodScheduled last turned `False`/`Unschedulable` (`lastTransitionTime`), else null. */
  unschedulableSince: Date | null;
  /** `metadata.creationTimestamp`, or null. */
  createdAt: Date | null;
  /** `status.startTime`: when the kubelet accepted the pod, or null. */
  startedAt: Date | null;
  /** `status.reason` (e.g. `Evicted` after node-pressure eviction), or null. */
  reason: string | null;
  /** `status.message`, or null. */
  message: string | null;
  /** `status.conditions` (e.g. `DisruptionTarget`), reduced. */
  conditions: { type: string; status: string; reason: string | null; message: string | null }[];
  containers: ContainerView[];
}

export { KubeApiError } from './kube-errors.js';

/**
 * The Kubernetes calls the benchmark runner makes, behind a narrow interface so the runner can
 * be driven by the simulated cluster or a fake. Every method rejects with a `KubeApiError` (`kube-errors.ts`).
 */
export interface JobApi {
  /**
   * Creates the Job in `metadata.namespace`; a missing namespace is an error (gpuops never
   * creates one: Git holds it, `manifests/namespaces.ts`).
   * @returns `created` with the new Job's `metadata.uid` (what later passes know gpuops's Job by),
   *   or `exists` (uid null) when a Job of that name is already there: it may be someone else's
   */
  createJob(job: JobManifest): Promise<CreatedJob>;
  /** The Job, or null when it does not exist. */
  readJob(namespace: string, name: string): Promise<JobView | null>;
  /** The Jobs of `namespace` whose labels match `labelSelector` (one `list`: `batch/jobs` `list` there). */
  listJobs(namespace: string, labelSelector: string): Promise<JobView[]>;
  /** Pods labelled `<labelKey>=<jobName>` in the namespace. */
  listPods(namespace: string, labelSelector: string): Promise<PodView[]>;
  /** Deletes the Job and (background propagation) its pods; absent is fine. */
  deleteJob(namespace: string, name: string): Promise<void>;
  /**
   * Free whole GPUs (`nvidia.com/gpu`) on Ready, schedulable nodes labelled `<labelKey>=test`:
   * allocatable minus the requests of the pods bound there that still hold them.
   */
  freeTestGpus(labelKey: string): Promise<number>;
}

function toDate(v: unknown): Date | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v;
  if (typeof v === 'string' && v !== '') {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

function containerView(s: V1ContainerStatus): ContainerView {
  const st = s.state;
  if (st?.terminated) {
    return {
      name: s.name,
      state: 'terminated',
      reason: st.terminated.reason ?? null,
      startedAt: toDate(st.terminated.startedAt),
      finishedAt: toDate(st.terminated.finishedAt),
      exitCode: st.terminated.exitCode ?? null,
      message: st.terminated.message ?? null,
      image: s.image || null,
    };
  }
  if (st?.running) {
    return {
      name: s.name,
      state: 'running',
      reason: null,
      startedAt: toDate(st.running.startedAt),
      finishedAt: null,
      exitCode: null,
      message: null,
      image: s.image || null,
    };
  }
  return {
    name: s.name,
    state: st?.waiting ? 'waiting' : 'unknown',
    reason: st?.waiting?.reason ?? null,
    startedAt: null,
    finishedAt: null,
    exitCode: null,
    message: st?.waiting?.message ?? null,
    image: s.image || null,
  };
}

/** Reduces a Pod to a {@link PodView}. Exported for tests. */
export function podView(p: V1Pod): PodView {
  const sched = (p.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
  const unschedulable = sched && sched.status === 'False' && sched.reason === 'Unschedulable';
  return {
    name: p.metadata?.name ?? '',
    phase: p.status?.phase ?? 'Unknown',
    nodeName: p.spec?.nodeName ?? null,
    unschedulable: unschedulable ? (sched.message ?? 'Unschedulable') : null,
    unschedulableSince: unschedulable ? toDate(sched.lastTransitionTime) : null,
    createdAt: toDate(p.metadata?.creationTimestamp),
    startedAt: toDate(p.status?.startTime),
    reason: p.status?.reason ?? null,
    message: p.status?.message ?? null,
    conditions: (p.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? null,
      message: c.message ?? null,
    })),
    containers: (p.status?.containerStatuses ?? []).map(containerView),
  };
}

const TERMINAL_PHASES = new Set(['Succeeded', 'Failed']);

/** Reduces a Job (read as `namespace/name`) to a {@link JobView}. */
function jobView(j: V1Job, namespace: string, name: string): JobView {
  return {
    namespace,
    name,
    conditions: (j.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? null,
      message: c.message ?? null,
    })),
    active: j.status?.active ?? 0,
    succeeded: j.status?.succeeded ?? 0,
    failed: j.status?.failed ?? 0,
    createdAt: toDate(j.metadata?.creationTimestamp),
    suspended: j.spec?.suspend === true,
    startedAt: toDate(j.status?.startTime),
    labels: j.metadata?.labels ?? {},
    annotations: j.metadata?.annotations ?? {},
    ...(j.metadata?.uid ? { uid: j.metadata.uid } : {}),
  };
}

/**
 * Free whole GPUs on `nodes` given every pod of the cluster: the snapshot's rules, allocatable
 * GPUs (MIG devices are none) less the effective GPU requests of the pods not in a terminal phase.
 */
function freeGpusOn(nodes: readonly V1Node[], pods: readonly V1Pod[]): number {
  const names = new Set(nodes.map((n) => n.metadata?.name));
  const used = new Map<string, number>();
  for (const p of pods) {
    const node = p.spec?.nodeName;
    if (!node || !names.has(node) || TERMINAL_PHASES.has(p.status?.phase ?? '')) continue;
    used.set(node, (used.get(node) ?? 0) + effectiveGpuRequest(p));
  }
  const ctx = { warnings: [], quantities: new Map<string, number>() };
  return nodes.reduce((sum, n) => {
    const free = reduceNode(n, ctx).gpuAllocatable - (used.get(n.metadata?.name ?? '') ?? 0);
    return sum + Math.max(0, free);
  }, 0);
}

/** {@link JobApi} over `@kubernetes/client-node` (BatchV1 Jobs, CoreV1 Pods, Nodes, Namespaces). */
export function createKubeJobApi(kc: KubeConfig): JobApi {
  const batch = kc.makeApiClient(BatchV1Api);
  const core = kc.makeApiClient(CoreV1Api);

  return {
    async createJob(job) {
      const namespace = job.metadata.namespace ?? 'default';
      const op = `create Job ${namespace}/${job.metadata.name}`;
      try {
        const made = await batch.createNamespacedJob({ namespace, body: job as unknown as V1Job });
        return { outcome: 'created', uid: made.metadata?.uid ?? null };
      } catch (err) {
        if (classifyKubeError(err).kind === 'conflict') return { outcome: 'exists', uid: null };
        // gpuops never creates a namespace: the pools pull request writes it into Git
        // (clusters/<cluster>/namespaces/<ns>.yaml) and Argo CD or Flux creates it.
        if (classifyKubeError(err).kind === 'not-found')
          throw toKubeApiError(
            `${op}: namespace ${namespace} does not exist yet (it is created when the pools pull request that writes it is merged and synced)`,
            err,
          );
        throw toKubeApiError(op, err);
      }
    },

    async readJob(namespace, name) {
      try {
        return jobView(await batch.readNamespacedJob({ namespace, name }), namespace, name);
      } catch (err) {
        if (classifyKubeError(err).kind === 'not-found') return null;
        throw toKubeApiError(`read Job ${namespace}/${name}`, err);
      }
    },

    async listJobs(namespace, labelSelector) {
      try {
        const list = await batch.listNamespacedJob({ namespace, labelSelector });
        return list.items.map((j) => jobView(j, namespace, j.metadata?.name ?? ''));
      } catch (err) {
        throw toKubeApiError(`list Jobs ${namespace} ${labelSelector}`, err);
      }
    },

    async listPods(namespace, labelSelector) {
      try {
        const list = await core.listNamespacedPod({ namespace, labelSelector });
        return list.items.map(podView);
      } catch (err) {
        throw toKubeApiError(`list Pods ${namespace} ${labelSelector}`, err);
      }
    },

    async deleteJob(namespace, name) {
      try {
        await batch.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background' });
      } catch (err) {
        if (classifyKubeError(err).kind === 'not-found') return;
        throw toKubeApiError(`delete Job ${namespace}/${name}`, err);
      }
    },

    async freeTestGpus(labelKey) {
      try {
        const nodes = await core.listNode({ labelSelector: `${labelKey}=test` });
        const usable = nodes.items.filter(
          (n) =>
            !n.spec?.unschedulable &&
            (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        if (usable.length === 0) return 0;
        return freeGpusOn(usable, (await core.listPodForAllNamespaces({})).items);
      } catch (err) {
        throw toKubeApiError(`free GPUs of the ${labelKey}=test nodes`, err);
      }
    },
  };
}
