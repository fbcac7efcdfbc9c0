/** The benchmark Job on hand-made templates: every field gpuops writes, and what it keeps. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import {
  BENCHMARK_CONTAINER,
  BENCHMARK_JOB_LABEL,
  benchmarkJobName,
  renderBenchmarkJob,
  SPEC_HASH_ANNOTATION,
  SPEC_HASH_LABEL,
} from '../../src/manifests/benchmark-job.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { policyWith } from '../benchmark/fixtures.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const policy = (
  await policyWith((p) => {
    p.benchmark.backoffLimit = 2;
    p.benchmark.ttlSecondsAfterFinished = 120;
  })
).spec;

const HASH = 'ab'.repeat(32);

const alg: ResolvedAlgorithm = {
  name: 'bert',
  namespace: 'ml',
  spec: {
    image: 'registry.example.com/bert:1',
    command: ['python'],
    args: ['serve.py'],
    env: [{ name: 'A', value: '1' }],
    resources: { gpus: 1, memory: '4Gi' },
  },
  scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
  benchmark: { args: ['bench.py'], runs: 3, timeoutSeconds: 900 },
  placement: 'auto',
  source: { file: 'algorithms/bert.yaml', line: 1 },
};

const bare = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: '' },
  spec: { template: { spec: {} } },
};

const render = (template: object, o: { algorithm?: ResolvedAlgorithm; gpuProduct?: string | null } = {}) =>
  renderBenchmarkJob({
    algorithm: o.algorithm ?? alg,
    policy,
    specHash: HASH,
    sequence: 7,
    gpuProduct: o.gpuProduct,
    template: template as KubeObject,
  }) as any;

describe('renderBenchmarkJob on a bare template', () => {
  it('writes every field itself', () => {
    const name = `bert-bench-abababab-7`;
    const labels = {
      'app.kubernetes.io/managed-by': 'gpuops',
      'gpuops.dev/algorithm': 'bert',
      'gpuops.dev/spec-hash': 'ab'.repeat(8),
      'gpuops.dev/benchmark-job': name,
    };
    expect(render(bare)).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'ml', labels, annotations: { 'gpuops.dev/spec-hash': HASH } },
      spec: {
        backoffLimit: 2,
        activeDeadlineSeconds: 900,
        ttlSecondsAfterFinished: 120,
        podFailurePolicy: {
          rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
        },
        template: {
          metadata: { labels },
          spec: {
            nodeSelector: { 'gpuops.dev/pool': 'test' },
            tolerations: [
              { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
              { key: 'gpuops.dev/pool', operator: 'Equal', value: 'test', effect: 'NoSchedule' },
            ],
            restartPolicy: 'Never',
            // A bare template says nothing: gpuops mounts no ServiceAccount token (issue 29 item 1).
            automountServiceAccountToken: false,
            // ... and renders Pod Security "restricted" (manifests/pod-security.ts).
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'benchmark',
                image: 'registry.example.com/bert:1',
                command: ['python'],
                args: ['bench.py'],
                env: [{ name: 'A', value: '1' }],
                resources: {
                  requests: { 'nvidia.com/gpu': '1', memory: '4Gi' },
                  limits: { 'nvidia.com/gpu': '1', memory: '4Gi' },
                },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    });
  });

  it('the label and annotation names', () => {
    expect([BENCHMARK_JOB_LABEL, SPEC_HASH_LABEL, SPEC_HASH_ANNOTATION, BENCHMARK_CONTAINER]).toEqual([
      'gpuops.dev/benchmark-job',
      'gpuops.dev/spec-hash',
      'gpuops.dev/spec-hash',
      'benchmark',
    ]);
  });

  it('the name is <algorithm>-bench-<8 hex>-<sequence>', () => {
    expect(benchmarkJobName('bert', HASH, 12)).toBe('bert-bench-abababab-12');
  });
});

describe('renderBenchmarkJob on a rich template', () => {
  const rich = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: '', labels: { team: 'ml' }, annotations: { note: 'kept' } },
    spec: {
      completions: 1,
      podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
      template: {
        metadata: { labels: { team: 'ml' }, annotations: { pod: 'kept' } },
        spec: { restartPolicy: 'OnFailure', containers: [{ name: 'x', terminationMessagePath: '/tmp/t' }] },
      },
    },
  };

  it("keeps the template's labels, annotations, fields and its own podFailurePolicy", () => {
    const job = render(rich);
    expect(job.metadata.labels.team).toBe('ml');
    expect(job.metadata.annotations).toEqual({ note: 'kept', 'gpuops.dev/spec-hash': HASH });
    expect(job.spec.completions).toBe(1);
    expect(job.spec.podFailurePolicy).toEqual(rich.spec.podFailurePolicy);
    expect(job.spec.template.metadata.labels.team).toBe('ml');
    expect(job.spec.template.metadata.annotations).toEqual({ pod: 'kept' });
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    expect(job.spec.template.spec.containers).toHaveLength(1);
    expect(job.spec.template.spec.containers[0]).toMatchObject({
      name: 'benchmark',
      terminationMessagePath: '/tmp/t',
    });
  });

  it("adds the Algorithm's annotations to the pod's, the Algorithm's winning", () => {
    const annotated = { ...alg, annotations: { pod: 'algorithm', cost: 'a' } };
    expect(render(rich, { algorithm: annotated }).spec.template.metadata.annotations).toEqual({
      pod: 'algorithm',
      cost: 'a',
    });
    expect(render(bare, { algorithm: annotated }).spec.template.metadata.annotations).toEqual({
      pod: 'algorithm',
      cost: 'a',
    });
  });

  it('pins the GPU product and starts with the spec args when the benchmark has none', () => {
    const plain = { ...alg, benchmark: { ...alg.benchmark, args: undefined } };
    const pod = render(bare, { algorithm: plain, gpuProduct: 'NVIDIA-L4' }).spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'gpuops.dev/pool': 'test', 'nvidia.com/gpu.product': 'NVIDIA-L4' });
    expect(pod.containers[0].args).toEqual(['serve.py']);
  });
});
