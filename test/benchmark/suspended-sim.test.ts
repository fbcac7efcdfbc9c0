/**
 * Shared input T4-11 through the runner, the simulated cluster over HTTP and a real SQLite store:
 * a queue controller's admission webhook (Kueue with `manageJobsWithoutQueueName`) sets
 * `spec.suspend: true` on the benchmark Job as it is created, so the Job never starts. 75 s later,
 * past the run's 5 s timeout + both 1 s limits + 60 s, the run is still waiting, named as
 * suspended, and nothing is recorded (a TimedOut would be final for the spec hash). Across the
 * boundary: the same Job admitted as created runs past its timeout and ends TimedOut.
 * (`test/benchmark/classify-suspended.test.ts` has the classification's table.) Fails with the
 * suspended rule of `benchmark/classify.ts` disabled: the run is recorded TimedOut.
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { stepBenchmarks, type RunnerDeps } from '../../src/benchmark/runner.js';
import { createKubeJobApi, type JobApi } from '../../src/cluster/jobs.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { openStore, type Store } from '../../src/store/index.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from './fixtures.js';

const NODE = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'gpu-test-01',
    labels: {
      'kubernetes.io/hostname': 'gpu-test-01',
      'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
      'gpuops.dev/pool': 'test',
    },
  },
  status: {
    capacity: { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '1' },
    allocatable: { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': '1' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
};

let sim: SimCluster;
let store: Store;
beforeEach(async () => {
  sim = await startSimCluster({ nodes: [NODE], controllers: defaultControllers({ startupSeconds: 0 }) });
  store = await openStore('sqlite::memory:');
  await store.migrate();
});
afterEach(async () => {
  await store?.close();
  await sim?.close();
});

/** The webhook: every Job is created with `spec.suspend: true`, as Kueue's mutating admission sets it. */
const suspending = (jobs: JobApi): JobApi => ({
  ...jobs,
  createJob: (job) => jobs.createJob({ ...job, spec: { ...(job.spec as object), suspend: true } }),
});

async function run(webhook: boolean) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  const jobs = createKubeJobApi(kc);
  const policy = await policyWith((p) => {
    p.benchmark.unschedulableTimeoutSeconds = 1;
    p.benchmark.startTimeoutSeconds = 1;
  });
  const algs = algorithmsFromYaml(
    algorithmYaml({ name: 'resnet50-infer', args: ['--sim-duration=600'], runs: 1, timeoutSeconds: 5 }),
    policy,
  );
  const deps: RunnerDeps = {
    jobs: webhook ? suspending(jobs) : jobs,
    store,
    clock: {
      now: () => sim.clock.now(),
      sleep: async (s) => {
        sim.clock.advance(s);
        await new Promise(setImmediate);
      },
    },
    policy: policy.spec,
    templates: loadWorkloadTemplates(),
  };
  const capacity = async () => ({ free: await jobs.freeTestGpus('gpuops.dev/pool'), total: 1 });
  const [first] = await stepBenchmarks(algs, deps, await capacity());
  for (let i = 0; i < 15; i++) await deps.clock.sleep(5); // 75 s, the controllers running between
  const [second] = await stepBenchmarks(algs, deps, await capacity());
  const stored = await store.benchmarkRuns('resnet50-infer', second!.specHash);
  return { first: first!, second: second!, stored };
}

describe('a benchmark Job suspended at creation (T4-11)', () => {
  it('75 s later it is still waiting, named suspended; no run recorded, not final', async () => {
    const { first, second, stored } = await run(true);
    expect(first.inFlight).toMatch(/^resnet50-infer-bench-/);
    expect(stored).toEqual([]);
    expect(second.final).toBe(false);
    expect(second.status).not.toBe('TimedOut');
    expect(second.message).toMatch(/suspend/i);
    // The Job is kept, still suspended, for the queue to admit.
    expect(sim.store.list('jobs').map((j) => j.spec?.suspend)).toEqual([true]);
  });

  it('across the boundary: admitted as created, the same run ends TimedOut by then', async () => {
    const { second, stored } = await run(false);
    expect(stored.map((r) => r.status)).toEqual(['TimedOut']);
    expect(second.final).toBe(true);
  });
});
