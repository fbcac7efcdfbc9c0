/**
 * Benchmark pods that are disrupted or cannot start (issue 13 §4, §5), against the simulated
 * cluster over HTTP through @kubernetes/client-node and a real SQLite store. The simulator's
 * clock is all but stopped; the test moves it, so limits are checked to the second.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import {
  stepBenchmarks,
  waitForBenchmark,
  type BenchmarkResult,
  type RunnerDeps,
} from '../../src/benchmark/runner.js';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { createKubeJobApi, type JobApi } from '../../src/cluster/jobs.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type KubeObject, type SimCluster } from '../../src/sim/index.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { gpuNode } from '../support/reconcile-harness.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from './fixtures.js';

const START_LIMIT = 120;
const BACKOFF = 300;
let sim: SimCluster;
let store: Store;
let jobs: JobApi;
let core: k8s.CoreV1Api;
let policy: Policy;

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: [gpuNode('gpu-test-01', 1, 'test')],
    controllers: defaultControllers({ startupSeconds: 10 }),
    speed: 0.001,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  jobs = createKubeJobApi(kc);
  core = kc.makeApiClient(k8s.CoreV1Api);
  store = await openStore('sqlite::memory:');
  await store.migrate();
  policy = await policyWith((p) => {
    p.benchmark.startTimeoutSeconds = START_LIMIT;
    p.benchmark.startRetryBackoffSeconds = BACKOFF;
  });
});

afterAll(async () => {
  await store?.close();
  await sim?.close();
});

/** Runs the simulator's controllers now, until nothing changes (synchronous; no wait). */
const settle = () => sim.clock.advance(0);
/** Moves simulated time; the controllers run at once. */
async function advance(seconds: number): Promise<void> {
  sim.clock.advance(seconds);
}

function deps(): RunnerDeps {
  return {
    jobs,
    store,
    clock: {
      now: () => sim.clock.now(),
      sleep: async (s) => advance(s),
    },
    policy: policy.spec,
    templates: loadWorkloadTemplates(),
  };
}

const alg = (name: string, args: string[], runs = 1): ResolvedAlgorithm =>
  algorithmsFromYaml(algorithmYaml({ name, args, runs }), policy)[0]!;
const capacity = async () => ({ free: await jobs.freeTestGpus('gpuops.dev/pool'), total: 1 });
async function step(a: ResolvedAlgorithm): Promise<BenchmarkResult> {
  const [r] = await stepBenchmarks([a], deps(), await capacity());
  settle();
  return r!;
}
const podsOf = (a: ResolvedAlgorithm): KubeObject[] =>
  sim.store.list('pods', 'algorithms').filter((p) => p.metadata.labels?.['gpuops.dev/algorithm'] === a.name);
const jobOf = (name: string) => sim.store.get('jobs', 'algorithms', name);
const stored = (a: ResolvedAlgorithm) => store.benchmarkRuns(a.name, specHash(a.spec, a.annotations));

describe('disrupted runs are retried, not final', () => {
  it('a pod evicted through the Eviction API is replaced by the Job; the run still measures, and the record says what happened', async () => {
    const a = alg('evicted', ['--sim-duration=600']);
    const first = await step(a);
    await advance(100);
    const [pod] = podsOf(a);
    expect(pod!.status.phase).toBe('Running');
    await core.createNamespacedPodEviction({
      name: pod!.metadata.name,
      namespace: 'algorithms',
      body: {
        apiVersion: 'policy/v1',
        kind: 'Eviction',
        metadata: { name: pod!.metadata.name, namespace: 'algorithms' },
      },
    });
    settle();
    const evicted = sim.store.get('pods', 'algorithms', pod!.metadata.name)!;
    expect(evicted.status.phase).toBe('Failed');
    expect(evicted.status.conditions).toContainEqual(
      expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }),
    );
    // podFailurePolicy Ignore: not counted against backoffLimit 0, a new pod runs.
    const job = jobOf(first.inFlight!)!;
    expect(job.status.failed ?? 0).toBe(0);
    expect(podsOf(a).filter((p) => p.status.phase !== 'Failed')).toHaveLength(1);
    const r = await waitForBenchmark(a, deps(), capacity);
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 600, final: true });
    expect(r.recorded).toHaveLength(1);
    expect(r.recorded[0]!.message).toMatch(
      /600 s .* 1 pod\(s\) disrupted and replaced by the Job \(pod evicted-bench-\w+-1-\w+: DisruptionTarget EvictionByEvictionAPI/,
    );
  });

  it('exit 137 without OOMKilled (counted by the Job) is Disrupted: a new Job runs; five in a row end it Failed', async () => {
    const a = alg('killed', ['--sim-duration=20', '--sim-fail=137']);
    const r1 = await step(a);
    await advance(60);
    const r2 = await step(a);
    expect(r2.recorded.map((x) => [x.run, x.status])).toEqual([[1, 'Disrupted']]);
    expect(r2.recorded[0]!.message).toMatch(/killed \(exit code 137, Error; not OOMKilled\)/);
    expect(r2).toMatchObject({ status: 'Pending', final: false });
    expect(r2.inFlight).not.toBe(r1.inFlight);
    expect(r2.inFlight).toMatch(/-2$/);
    const end = await waitForBenchmark(a, deps(), capacity);
    expect(end).toMatchObject({ status: 'Failed', final: true });
    expect(end.message).toMatch(/disrupted 5 times at this spec \(limit 5\)/);
    expect((await stored(a)).map((x) => x.status)).toEqual(Array(5).fill('Disrupted'));
  });

  it('OOMKilled stays a real failure, final at this spec', async () => {
    const a = alg('oom', ['--sim-duration=20', '--sim-oom']);
    const r = await waitForBenchmark(a, deps(), capacity);
    expect(r).toMatchObject({ status: 'Failed', final: true });
    expect(r.recorded).toHaveLength(1);
    expect(r.message).toMatch(/BackoffLimitExceeded.*OOMKilled, exit code 137/);
  });
});

describe('a run that cannot start fails fast, frees the GPU and says why', () => {
  it('ImagePullBackOff: waiting at exactly the limit, ended one second past it; cause and image recorded; retried after the backoff', async () => {
    const a = alg('no-registry', ['--sim-waiting=ImagePullBackOff']);
    const created = await step(a);
    await advance(1);
    const [pod] = podsOf(a);
    expect(pod!.status.containerStatuses[0].state.waiting.reason).toBe('ImagePullBackOff');
    const since = Date.parse(pod!.status.startTime);
    await advance((since + START_LIMIT * 1000 - sim.clock.now().getTime()) / 1000);
    const atLimit = await step(a);
    expect(atLimit.recorded).toEqual([]);
    expect(atLimit.message).toMatch(
      /ImagePullBackOff \(image registry.example.com\/ml\/no-registry:1.0.0\).*for 120 s \(limit 120 s\)/,
    );
    expect(await jobs.freeTestGpus('gpuops.dev/pool')).toBe(0);

    await advance(1);
    const past = await step(a);
    expect(past.recorded.map((x) => [x.status, x.node])).toEqual([['StartFailed', 'gpu-test-01']]);
    expect(past.recorded[0]!.message).toBe(
      `could not start: container ImagePullBackOff (image registry.example.com/ml/no-registry:1.0.0): Back-off pulling image "registry.example.com/ml/no-registry:1.0.0"; pod ${pod!.metadata.name} on gpu-test-01 waited 121 s (limit 120 s)`,
    );
    expect(jobOf(created.inFlight!)).toBeUndefined();
    expect(await jobs.freeTestGpus('gpuops.dev/pool')).toBe(1);
    expect(past).toMatchObject({ status: 'Pending', final: false, inFlight: null });
    expect(past.message).toMatch(/StartFailed \(1 in a row\).*backoff 300 s/);

    await advance(BACKOFF - 2);
    const early = await step(a);
    expect(early.inFlight).toBeNull();
    await advance(2);
    const retried = await step(a);
    expect(retried.inFlight).toMatch(/-2$/);
    expect(jobOf(retried.inFlight!)).toBeDefined();
  });

  it('CreateContainerConfigError (a missing Secret) is StartFailed, not final', async () => {
    const a = alg('no-secret', ['--sim-waiting=CreateContainerConfigError']);
    const r = await waitForBenchmark(a, deps(), capacity);
    expect(r).toMatchObject({ status: 'Pending', final: false });
    expect(r.recorded.map((x) => x.status)).toEqual(['StartFailed']);
    expect(r.recorded[0]!.message).toMatch(
      /CreateContainerConfigError .*secret "benchmark-credentials" not found/,
    );
  });

  it('InvalidImageName is final for the spec hash, with the image', async () => {
    const a = alg('bad-image', ['--sim-waiting=InvalidImageName']);
    const r = await waitForBenchmark(a, deps(), capacity);
    expect(r).toMatchObject({ status: 'Failed', final: true });
    expect(r.message).toMatch(
      /could not start: container InvalidImageName \(image registry.example.com\/ml\/bad-image:1.0.0\)/,
    );
    const [again] = await stepBenchmarks([a], deps(), await capacity());
    expect(again).toMatchObject({ status: 'Failed', cached: true, recorded: [] });
  });
});
