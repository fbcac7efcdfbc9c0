/**
 * The Algorithm document (`algorithms/<file>.yaml`) as a TypeScript type, and the words both
 * documents use: the API version, the signals, the pools, taint effects. `types.ts` re-exports it.
 */
import type { VendorId } from '../util/index.js';

/** `apiVersion` of every gpuops document. */
export const API_VERSION = 'gpuops.dev/v1alpha1';

/**
 * What an algorithm is scaled on: `gpuUtil` (`DCGM_FI_DEV_GPU_UTIL`, percent), `gpuEngineActive`
 * (`DCGM_FI_PROF_GR_ENGINE_ACTIVE`, ratio 0..1 read as percent; works on MIG), `gpuMemory`
 * (`DCGM_FI_DEV_FB_USED / (FB_USED + FB_FREE)`, percent), `serviceMetric` (a per-pod PromQL template
 * the policy allows, in its own unit).
 */
export type SignalKind = 'gpuUtil' | 'gpuEngineActive' | 'gpuMemory' | 'serviceMetric';
/** Every {@link SignalKind}, in the order the schema and messages list them. */
export const SIGNAL_KINDS: readonly SignalKind[] = [
  'gpuUtil',
  'gpuEngineActive',
  'gpuMemory',
  'serviceMetric',
];

/**
 * A per-pod metric a platform team allows algorithms to scale on (policy `scaling.serviceMetrics`):
 * `query` is PromQL answering one series per pod with `namespace` and `pod` labels, where gpuops
 * puts the algorithm's namespace for `$namespace` and the averaging window for `$window` (`300s`).
 */
export interface ServiceMetricPolicy {
  /** DNS-1123 label a spec names it by. */
  name: string;
  /** The unit of its values, as messages print it (`requests`, `seconds`, `requests/s`). */
  unit: string;
  query: string;
}

/** The four node pools (label `gpuops.dev/pool`). */
export type Pool = 'test' | 'unused' | 'long-task' | 'short-task';
/** Every {@link Pool}, in the order pools are listed (the values of the `gpuops.dev/pool` label). */
export const POOLS: readonly Pool[] = ['test', 'unused', 'long-task', 'short-task'];

/** One algorithm: what to run, how to benchmark it, how to scale it. `algorithms/<file>.yaml`. */
export interface Algorithm {
  apiVersion: typeof API_VERSION;
  kind: 'Algorithm';
  metadata: {
    /** DNS-1123 label, at most 63 characters; unique in the repo. */
    name: string;
    /** Defaults to the policy's `namespace`. */
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: AlgorithmSpec;
}

/**
 * An Algorithm's `spec` as written in `algorithms/<file>.yaml`; the JSON Schema of
 * `definitions/schema/algorithm.ts` checks it, and absent optional fields take the policy's defaults.
 */
export interface AlgorithmSpec {
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value: string }[];
  resources: {
    /** Whole GPUs per replica (integer ≥ 1). */
    gpus: number;
    /** Kubernetes quantity, e.g. `4`, `500m`. */
    cpu?: string;
    /** Kubernetes quantity, e.g. `16Gi`. */
    memory?: string;
  };
  /**
   * The GPU it needs: `product` lists `nvidia.com/gpu.product` values as GPU Feature Discovery
   * labels them (`NVIDIA-A100-SXM4-80GB`, `Tesla-T4`), one or several. It is benchmarked on a test
   * node of one of them and placed, scaled and given nodes only of them. Absent: the products it
   * was benchmarked on.
   */
  gpu?: {
    product?: string[];
    /**
     * Whose GPUs it asks (`nvidia` → `nvidia.com/gpu`, `amd` → `amd.com/gpu`, the vocabulary's
     * `VENDORS`); absent: `nvidia`. Its pods request that resource, tolerate that vendor's taint and
     * are benchmarked, placed and scaled only on nodes of that vendor; `product` names that
     * vendor's product label values.
     */
    vendor?: VendorId;
  };
  benchmark?: {
    /** Arguments the benchmark container starts with (replace `args`). */
    args?: string[];
    /** Runs; the median counts. Default: policy `benchmark.runs`. */
    runs?: number;
    /** The queue its benchmark Jobs go to (`kueue.x-k8s.io/queue-name`). Default: policy `benchmark.queueName`. */
    queueName?: string;
    /** Deadline of one run (seconds). Default: policy `benchmark.timeoutSeconds`. */
    timeoutSeconds?: number;
  };
  scaling?: {
    minReplicas?: number;
    maxReplicas?: number;
    /**
     * What it is scaled on (`signals.ts`): one of the policy's `scaling.allowedSignals`; absent:
     * the policy's `scaling.signal`.
     */
    signal?: SignalKind;
    /** The band of the GPU signals (`gpuUtil`, `gpuEngineActive`, `gpuMemory`): percent, 0..100. */
    utilization?: { min?: number; max?: number };
    /**
     * With `signal: serviceMetric`: which of the policy's `scaling.serviceMetrics` (by `name`), and
     * its band in the metric's own unit (`unit`, when given, must be the policy's).
     */
    serviceMetric?: { name: string; unit?: string; min: number; max: number };
    /** `fromBenchmark`: gpuops proposes the bounds the spec leaves out from its benchmark (`benchmark/band-proposal.ts`). */
    targets?: 'spec' | 'fromBenchmark';
  };
  placement?: { pool?: 'auto' | 'long-task' | 'short-task' };
  /**
   * A model cache: a PersistentVolumeClaim of the algorithm's namespace (the user's; gpuops never
   * creates storage) that every replica mounts read-only at `mountPath`, filled by the algorithm's
   * own download step (`fill`) in a Job gpuops renders into Git (`manifests/model-cache.ts`).
   * Checked by `rules/model-cache.ts`.
   */
  modelCache?: ModelCache;
  /**
   * The rest of the pod, in Kubernetes' own terms: a partial `PodTemplateSpec` (ports, probes,
   * volumes, `envFrom`, tolerations, …) merged into the Deployment's pod and the benchmark Job's
   * (probes aside). Checked by `rules/pod-template.ts`; the fields gpuops owns are errors there.
   */
  template?: PodTemplate;
}

/**
 * `spec.modelCache`: the claim, where the replicas see it, and the step that fills it.
 */
export interface ModelCache {
  /** The PersistentVolumeClaim's name (DNS-1123 subdomain), in the algorithm's namespace. */
  claimName: string;
  /** Absolute path in the algorithm's container (and the fill container) where the claim is mounted. */
  mountPath: string;
  /**
   * The download step, run once per fill (a Job mounting the claim read-write): its image and
   * command. Absent: the claim is filled some other way (a pre-populated `ReadOnlyMany` volume)
   * and is mounted at once.
   */
  fill?: { image: string; command?: string[]; args?: string[] };
}

/**
 * A partial pod template: `metadata.labels`/`annotations` and a partial `PodSpec`. `spec` is
 * checked against the Kubernetes schema by `rules/pod-template.ts`, not by the Algorithm schema.
 */
export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** Kubernetes taint effects (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/). */
export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
