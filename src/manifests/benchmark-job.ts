import type { KubeObject } from '../cluster/index.js';
import type { PolicySpec, ResolvedAlgorithm } from '../definitions/index.js';
import { dnsLabel } from './names.js';
import {
  algorithmVendor,
  containerEnv,
  containerResources,
  poolScheduling,
  productAffinity,
} from './scheduling.js';
import { applyPodTemplate } from './pod-template.js';
import { cloneTemplate } from './templates.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

/** Label on a benchmark Job and its pod: the full name of the Job (finds its pods). */
export const BENCHMARK_JOB_LABEL = GPUOPS.benchmarkJob;
/** Label holding the shortened spec hash (label values hold ≤ 63 characters). */
export const SPEC_HASH_LABEL = GPUOPS.specHash;
/** Annotation holding the full spec hash (64 hex characters). */
export const SPEC_HASH_ANNOTATION = GPUOPS.specHash;
/** Name of the benchmark container in the Job's pod; its timestamps are the run time. */
export const BENCHMARK_CONTAINER = 'benchmark';
/**
 * The label Kueue reads to admit a Job to a LocalQueue
 * (https://kueue.sigs.k8s.io/docs/tasks/run/jobs/): the spec's or policy's `benchmark.queueName`.
 */
export const QUEUE_NAME_LABEL = 'kueue.x-k8s.io/queue-name';

/** What one benchmark Job is rendered from. */
export interface BenchmarkJobInput {
  algorithm: ResolvedAlgorithm;
  policy: PolicySpec;
  /** Full spec hash (`specHash`, 64 hex). */
  specHash: string;
  /** 1-based sequence number of this Job among the Jobs of this spec hash; makes the name unique. */
  sequence: number;
  /** Pins the run to test nodes of this GPU product (`nvidia.com/gpu.product`), when the policy keeps one test node per product. */
  gpuProduct?: string | null;
  /** `templates/benchmark-job.yaml`, parsed. */
  template: KubeObject;
}

/**
 * Name of a benchmark Job: `<algorithm>-bench-<8 hex of the spec hash>-<sequence>`, a DNS-1123
 * label ≤ 63 characters (cut and suffixed with a hash when longer; see `dnsLabel`).
 */
export function benchmarkJobName(algorithm: string, specHash: string, sequence: number): string {
  return dnsLabel([algorithm, 'bench', specHash.slice(0, 8), String(sequence)]);
}

/**
 * Renders the batch/v1 Job that runs one benchmark of an algorithm on a `test` node: pinned by
 * `nodeSelector` (and the GPU product when given), on a node of one of the products the spec
 * names (`spec.gpu.product`: a required node affinity, `productAffinity`), tolerating the GPU and pool taints, with
 * `resources.limits["nvidia.com/gpu"]`, `restartPolicy: Never` (from the template),
 * `backoffLimit` and `ttlSecondsAfterFinished` from the policy and `activeDeadlineSeconds` from
 * the algorithm's `benchmark.timeoutSeconds` (https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup).
 * The container starts with `benchmark.args` when given, else `args`; the pod carries the
 * Algorithm's `metadata.annotations`, and the spec's `template` is merged into the pod as in the
 * Deployment, probes aside (`pod-template.ts`), so what is measured is what runs. The Job's
 * `podFailurePolicy` (from the template; added when a template lacks it) ignores pods with the
 * condition `DisruptionTarget` (evicted, preempted, lost with their node): they do not count
 * against `backoffLimit` and the Job replaces them
 * (https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-failure-policy, which
 * requires `restartPolicy: Never`).
 */
export function renderBenchmarkJob(input: BenchmarkJobInput): KubeObject {
  const { algorithm: alg, policy, specHash } = input;
  const job = cloneTemplate(input.template) as KubeObject & { spec: JobSpec };
  const name = benchmarkJobName(alg.name, specHash, input.sequence);
  const labels = {
    ...job.metadata.labels,
    [MANAGED_BY.key]: MANAGED_BY.value,
    [GPUOPS.algorithm]: alg.name,
    [SPEC_HASH_LABEL]: specHash.slice(0, 16),
    [BENCHMARK_JOB_LABEL]: name,
    ...(alg.benchmark.queueName ? { [QUEUE_NAME_LABEL]: alg.benchmark.queueName } : {}),
  };
  job.metadata = {
    ...job.metadata,
    name,
    namespace: alg.namespace,
    labels,
    annotations: { ...job.metadata.annotations, [SPEC_HASH_ANNOTATION]: specHash },
  };
  const spec = job.spec;
  spec.backoffLimit = policy.benchmark.backoffLimit;
  spec.activeDeadlineSeconds = alg.benchmark.timeoutSeconds;
  spec.ttlSecondsAfterFinished = policy.benchmark.ttlSecondsAfterFinished;
  spec.podFailurePolicy ??= {
    rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
  };
  const vendor = algorithmVendor(alg.spec);
  const { nodeSelector, tolerations } = poolScheduling('test', policy, input.gpuProduct, vendor);
  spec.template.spec.restartPolicy = 'Never';
  const affinity = productAffinity(alg.spec.gpu?.product, vendor);
  applyPodTemplate(
    spec.template,
    alg.spec.template,
    {
      labels,
      ...(alg.annotations ? { annotations: alg.annotations } : {}),
      nodeSelector,
      ...(affinity ? { affinity } : {}),
      tolerations,
      allowServiceAccountToken: policy.podSecurity.automountServiceAccountToken,
      container: {
        name: BENCHMARK_CONTAINER,
        image: alg.spec.image,
        command: alg.spec.command,
        args: alg.benchmark.args ?? alg.spec.args,
        env: containerEnv(alg.spec.env),
        resources: containerResources(alg.spec.resources, vendor),
        terminationMessagePolicy: 'FallbackToLogsOnError',
      },
    },
    true,
  );
  return job;
}

interface JobSpec {
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  ttlSecondsAfterFinished?: number;
  podFailurePolicy?: { rules: Record<string, unknown>[] };
  template: {
    metadata?: Record<string, unknown>;
    spec: Record<string, unknown> & { containers?: Record<string, unknown>[] };
  };
}
