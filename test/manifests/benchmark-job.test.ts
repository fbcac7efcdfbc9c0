import { beforeEach, describe, expect, it } from 'vitest';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { benchmarkJobName, renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let policy: Policy;
let alg: ResolvedAlgorithm;
let hash: string;

beforeEach(async () => {
  policy = await policyWith((p) => {
    p.benchmark.backoffLimit = 1;
    p.benchmark.ttlSecondsAfterFinished = 900;
  });
  [alg] = algorithmsFromYaml(
    algorithmYaml({
      name: 'bert-train',
      gpus: 4,
      timeoutSeconds: 1200,
      args: ['--bench', '--steps=50'],
      extra: '  args: ["--serve"]',
    }),
    policy,
  ) as [ResolvedAlgorithm];
  hash = specHash(alg.spec, alg.annotations);
});

const render = (o: { gpuProduct?: string | null; algorithm?: ResolvedAlgorithm } = {}) =>
  renderBenchmarkJob({
    algorithm: alg,
    policy: policy.spec,
    specHash: hash,
    sequence: 2,
    template: templates().benchmarkJob,
    ...o,
  }) as any;

describe('renderBenchmarkJob', () => {
  it('is a batch/v1 Job on the test pool with the policy limits and the spec deadline', () => {
    const job = render();
    expect(job.apiVersion).toBe('batch/v1');
    expect(job.kind).toBe('Job');
    expect(job.metadata.name).toBe(`bert-train-bench-${hash.slice(0, 8)}-2`);
    expect(job.metadata.namespace).toBe('algorithms');
    expect(job.spec.backoffLimit).toBe(1);
    expect(job.spec.ttlSecondsAfterFinished).toBe(900);
    expect(job.spec.activeDeadlineSeconds).toBe(1200);
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.nodeSelector).toEqual({ 'gpuops.dev/pool': 'test' });
    expect(pod.tolerations).toEqual([
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'gpuops.dev/pool', operator: 'Equal', value: 'test', effect: 'NoSchedule' },
    ]);
    expect(pod.containers).toHaveLength(1);
    const c = pod.containers[0];
    expect(c.name).toBe('benchmark');
    expect(c.args).toEqual(['--bench', '--steps=50']);
    expect(c.resources.limits['nvidia.com/gpu']).toBe('4');
    expect(c.terminationMessagePolicy).toBe('FallbackToLogsOnError');
  });

  it('ignores disruptions (DisruptionTarget) in its podFailurePolicy, also when a template lacks it; restartPolicy Never as the policy needs', () => {
    const expected = {
      rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
    };
    expect(render().spec.podFailurePolicy).toEqual(expected);
    const bare = structuredClone(templates().benchmarkJob) as any;
    delete bare.spec.podFailurePolicy;
    const job = renderBenchmarkJob({
      algorithm: alg,
      policy: policy.spec,
      specHash: hash,
      sequence: 1,
      template: bare,
    }) as any;
    expect(job.spec.podFailurePolicy).toEqual(expected);
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
  });

  it('labels the Job and its pod: managed-by, algorithm, a spec hash that fits a label value', () => {
    const job = render();
    for (const labels of [job.metadata.labels, job.spec.template.metadata.labels]) {
      expect(labels['app.kubernetes.io/managed-by']).toBe('gpuops');
      expect(labels['gpuops.dev/algorithm']).toBe('bert-train');
      expect(labels['gpuops.dev/spec-hash']).toBe(hash.slice(0, 16));
      expect(labels['gpuops.dev/benchmark-job']).toBe(job.metadata.name);
    }
    expect(job.metadata.annotations['gpuops.dev/spec-hash']).toBe(hash);
  });

  it("puts the Algorithm's annotations on the benchmark pod, beside none of its own", () => {
    expect(render().spec.template.metadata.annotations).toBeUndefined();
    const [annotated] = algorithmsFromYaml(
      algorithmYaml({ name: 'bert-train', gpus: 4 }).replace(
        '  name: bert-train\n',
        "  name: bert-train\n  annotations: {sim.gpuops.dev/run-seconds: '1500'}\n",
      ),
      policy,
    ) as [ResolvedAlgorithm];
    const job = render({ algorithm: annotated });
    expect(job.spec.template.metadata.annotations).toEqual({ 'sim.gpuops.dev/run-seconds': '1500' });
    expect(job.metadata.annotations).not.toHaveProperty('sim.gpuops.dev/run-seconds');
  });

  it('pins the GPU product when one is given', () => {
    expect(render({ gpuProduct: 'NVIDIA-A100-SXM4-80GB' }).spec.template.spec.nodeSelector).toEqual({
      'gpuops.dev/pool': 'test',
      'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
    });
  });

  it('without benchmark args the container starts with the spec args', () => {
    const plain = { ...alg, benchmark: { ...alg.benchmark, args: undefined } };
    expect(render({ algorithm: plain }).spec.template.spec.containers[0].args).toEqual(['--serve']);
  });

  it('a 63-character algorithm name still gives a Job name of at most 63 characters, distinct per run', () => {
    const long = 'x'.repeat(63);
    const a = benchmarkJobName(long, hash, 1);
    const b = benchmarkJobName(long, hash, 2);
    expect(a.length).toBeLessThanOrEqual(63);
    expect(b.length).toBeLessThanOrEqual(63);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
  });
});
