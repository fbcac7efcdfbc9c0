/**
 * A suspended or not-yet-admitted benchmark Job is waiting, not failed (issue 41 kind 5, shared
 * input T4-11): Kueue's webhook sets `spec.suspend: true` on a Job without a queue; gpuops reported
 * it `TimedOut` ("not placed until the spec changes") once `timeout + both limits + 60 s` had
 * passed since the Job's creation. Rows marked "failed before" ended the run as TimedOut.
 */
import { describe, expect, it } from 'vitest';
import { classifyRun } from '../../src/benchmark/classify.js';
import type { JobView } from '../../src/cluster/jobs.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const LIMITS = { timeoutSeconds: 5, unschedulableTimeoutSeconds: 1, startTimeoutSeconds: 1 };
// The guard: 5 + 1 + 1 + 60 = 67 s.
const job = (o: Partial<JobView> = {}): JobView => ({
  namespace: 'algorithms',
  name: 'resnet50-infer-bench-290ba5c6-1',
  conditions: [],
  active: 0,
  succeeded: 0,
  failed: 0,
  createdAt: at(0),
  ...o,
});
const SUSPENDED = [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }];

describe('a suspended benchmark Job waits', () => {
  it('75 s after creation, still suspended, no queue named: waiting, named as such (failed before)', () => {
    const s = classifyRun({ job: job({ suspended: true, conditions: SUSPENDED }), pods: [] }, LIMITS, at(75));
    expect(s.kind).toBe('active');
    if (s.kind !== 'active') return;
    expect(s.message).toBe(
      'Job suspended (spec.suspend: true) (JobSuspended: Job suspended), waiting to be admitted; no queue is named (set benchmark.queueName in the spec or policy for label kueue.x-k8s.io/queue-name); the wait does not count against the timeout',
    );
  });

  it('a day later in a named queue: still waiting, the queue named (failed before)', () => {
    const labels = { 'kueue.x-k8s.io/queue-name': 'gpu-benchmarks' };
    const s = classifyRun({ job: job({ suspended: true, labels }), pods: [] }, LIMITS, at(86_400));
    expect(s.kind === 'active' && s.message).toContain('waiting for queue gpu-benchmarks to admit it');
  });

  it('admitted after 10 min: the guard counts from status.startTime, so 60 s after the resume it still runs (failed before)', () => {
    const s = classifyRun(
      { job: job({ suspended: false, startedAt: at(600), active: 1 }), pods: [] },
      LIMITS,
      at(660),
    );
    expect(s.kind).toBe('active');
  });

  it('across the boundary: 68 s after the resume the guard ends it', () => {
    const s = classifyRun(
      { job: job({ suspended: false, startedAt: at(600), active: 1 }), pods: [] },
      LIMITS,
      at(668),
    );
    expect(s.kind === 'ended' && s.end.status).toBe('TimedOut');
  });

  it('across the boundary: a Job never suspended still times out 68 s after creation', () => {
    const s = classifyRun({ job: job({ active: 1 }), pods: [] }, LIMITS, at(68));
    expect(s.kind === 'ended' && s.end.status).toBe('TimedOut');
  });
});

describe('the spec or the policy names the queue', () => {
  const policy = parse(
    readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
  ) as Policy;
  const alg = (queueName?: string): ResolvedAlgorithm => ({
    name: 'resnet50-infer',
    namespace: 'algorithms',
    spec: { image: 'registry.example.com/ml/resnet50:1.4.2', resources: { gpus: 1 } },
    scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 1, timeoutSeconds: 60, ...(queueName ? { queueName } : {}) },
    placement: 'auto',
    source: { file: 'algorithms/resnet50-infer.yaml', line: 1 },
  });
  const render = (a: ResolvedAlgorithm) =>
    renderBenchmarkJob({
      algorithm: a,
      policy: policy.spec,
      specHash: 'ab'.repeat(32),
      sequence: 1,
      gpuProduct: null,
      template: loadWorkloadTemplates().benchmarkJob,
    });
  it('the Job carries kueue.x-k8s.io/queue-name when a queue is named, and no such label otherwise', () => {
    expect(render(alg('gpu-benchmarks')).metadata.labels?.['kueue.x-k8s.io/queue-name']).toBe(
      'gpu-benchmarks',
    );
    expect(render(alg()).metadata.labels).not.toHaveProperty('kueue.x-k8s.io/queue-name');
  });
});

describe('naming a queue changes when a run happens, not what it measures', () => {
  it('the spec hash (which keys the stored runs) is the same with and without benchmark.queueName', async () => {
    const { specHash } = await import('../../src/benchmark/spec-hash.js');
    const spec = {
      image: 'registry.example.com/ml/resnet50:1.4.2',
      resources: { gpus: 1 },
      benchmark: { runs: 3 },
    };
    expect(specHash({ ...spec, benchmark: { runs: 3, queueName: 'gpu-benchmarks' } })).toBe(specHash(spec));
    expect(specHash({ ...spec, benchmark: { runs: 4, queueName: 'gpu-benchmarks' } })).not.toBe(
      specHash(spec),
    );
  });
});
