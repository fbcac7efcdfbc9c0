/**
 * The benchmark runner against the simulated cluster over HTTP, through @kubernetes/client-node
 * (`createKubeJobApi`) and a real SQLite store. The runner's clock is the simulator's: between
 * steps the test (or `waitForBenchmark`) advances simulated time, so minutes of benchmark run in
 * milliseconds. A step never waits on a Job.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunnerClock } from '../../src/benchmark/clock.js';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import {
  stepBenchmarks,
  waitForBenchmark,
  type BenchmarkProgress,
  type BenchmarkResult,
  type RunnerDeps,
} from '../../src/benchmark/runner.js';
import { createKubeJobApi, KubeApiError, type JobApi } from '../../src/cluster/jobs.js';
import { benchmarkJobName, renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { renderPlacedWorkloads } from '../../src/manifests/workloads.js';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { place } from '../../src/placement/place.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { openStore, type Store } from '../../src/store/index.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from './fixtures.js';

function gpuNode(name: string, pool: string | null, gpus: number) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
        'nvidia.com/gpu.count': String(gpus),
        ...(pool ? { 'gpuops.dev/pool': pool } : {}),
      },
    },
    spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
    status: {
      capacity: { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': String(gpus) },
      allocatable: { cpu: '64', memory: '512Gi', 'nvidia.com/gpu': String(gpus) },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** The test node has 2 GPUs; the long-task node is bigger and never used by benchmarks. */
const NODES = [
  gpuNode('gpu-test-01', 'test', 2),
  gpuNode('gpu-long-01', 'long-task', 8),
  gpuNode('gpu-short-01', 'short-task', 4),
];
/** Simulated image pull: 30 s between binding and container start, which must not be counted. */
const STARTUP_SECONDS = 30;

let sim: SimCluster;
let store: Store;
let jobs: JobApi;
let policy: Policy;
const progress: BenchmarkProgress[] = [];
/** Peak number of live pods bound to the test node at once, and every node a benchmark pod used. */
let peakOnTestNode = 0;
const benchNodes = new Set<string>();
let jobsCreated = 0;

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: NODES,
    controllers: defaultControllers({ startupSeconds: STARTUP_SECONDS }),
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  jobs = createKubeJobApi(kc);
  store = await openStore('sqlite::memory:');
  await store.migrate();
  policy = await policyWith((p) => {
    p.placement.longTaskThresholdSeconds = 600;
    p.benchmark.unschedulableTimeoutSeconds = 120;
  });
  sim.store.subscribe((e) => {
    if (e.resource === 'jobs' && e.type === 'ADDED') jobsCreated++;
    if (e.resource !== 'pods') return;
    const live = sim.store
      .list('pods')
      .filter(
        (p) => p.spec?.nodeName === 'gpu-test-01' && !['Succeeded', 'Failed'].includes(p.status?.phase),
      );
    peakOnTestNode = Math.max(peakOnTestNode, live.length);
    const node = e.object.spec?.nodeName as string | undefined;
    if (node && e.object.metadata.labels?.['app.kubernetes.io/component'] === 'benchmark')
      benchNodes.add(node);
  });
});

afterAll(async () => {
  await store?.close();
  await sim?.close();
});

/** The runner's clock is the simulator's: sleeping advances simulated time, then lets controllers run. */
function simClock(): RunnerClock {
  return {
    now: () => sim.clock.now(),
    sleep: async (s) => {
      sim.clock.advance(s); // runs the controllers at once
      await new Promise(setImmediate); // one turn of the event loop for answers in flight, no fixed wait
    },
  };
}

function deps(p: Policy = policy): RunnerDeps {
  return {
    jobs,
    store,
    clock: simClock(),
    policy: p.spec,
    templates: loadWorkloadTemplates(),
    onProgress: (e) => progress.push(e),
  };
}

/** The test pool's GPUs now (read through the API), as a step sees them. */
async function capacity() {
  return { free: await jobs.freeTestGpus('gpuops.dev/pool'), total: 2 };
}

/**
 * Steps `algs` until every one is final (as passes of the controller would), advancing the
 * simulated clock `every` seconds between steps; returns the last results with every run
 * recorded on the way.
 */
async function stepToEnd(algs: ResolvedAlgorithm[], d: RunnerDeps, every = 10): Promise<BenchmarkResult[]> {
  const recorded = new Map<string, BenchmarkResult['recorded']>(algs.map((a) => [a.name, []]));
  for (let i = 0; i < 5000; i++) {
    const results = await stepBenchmarks(algs, d, await capacity());
    for (const r of results) recorded.get(r.algorithm)!.push(...r.recorded);
    if (results.every((r) => r.final))
      return results.map((r) => ({ ...r, recorded: recorded.get(r.algorithm)! }));
    await d.clock.sleep(every);
  }
  throw new Error('benchmarks did not end within 5000 steps');
}

const SHORT = algorithmYaml({ name: 'resnet-short', args: ['--bench', '--sim-duration=42'] });
const LONG = algorithmYaml({
  name: 'bert-long',
  args: ['--bench', '--sim-duration=900'],
  timeoutSeconds: 3600,
});
/** Runs 100 s by the clock but reports 700 s in its termination message: the message wins. */
const SELF_TIMED = algorithmYaml({
  name: 'self-timed',
  args: ['--sim-duration=100', '--sim-termination-message=700'],
});

describe('benchmark on the test node, then placement', () => {
  let algs: ResolvedAlgorithm[];

  it('measures the container run time (not the image pull), takes the median and places by threshold', async () => {
    algs = algorithmsFromYaml([SHORT, LONG, SELF_TIMED].join('---\n'), policy);
    const free = await jobs.freeTestGpus('gpuops.dev/pool');
    expect(free).toBe(2);
    const results = await stepToEnd(algs, deps(), 30);

    expect(results.map((r) => [r.algorithm, r.status, r.medianSeconds, r.final])).toEqual([
      ['resnet-short', 'Succeeded', 42, true],
      ['bert-long', 'Succeeded', 900, true],
      ['self-timed', 'Succeeded', 700, true],
    ]);
    for (const r of results) {
      expect(r.recorded.map((x) => x.run)).toEqual([1, 2, 3]);
      expect(r.recorded.every((x) => x.node === 'gpu-test-01')).toBe(true);
    }
    expect(benchNodes).toEqual(new Set(['gpu-test-01']));
    // Two 1-GPU benchmarks at once on the 2-GPU test pool, never three.
    expect(peakOnTestNode).toBe(2);

    const stored = await store.benchmarkRuns('bert-long', results[1]!.specHash);
    expect(stored.map((r) => [r.run, r.status, r.durationSeconds])).toEqual([
      [1, 'Succeeded', 900],
      [2, 'Succeeded', 900],
      [3, 'Succeeded', 900],
    ]);

    const placements = algs.map((a, i) =>
      place({ algorithm: a.name, pinned: a.placement, benchmark: results[i]! }, 600),
    );
    expect(placements.map((p) => [p.algorithm, p.pool, p.reason, p.runTimeSeconds])).toEqual([
      ['resnet-short', 'short-task', 'BelowThreshold', 42],
      ['bert-long', 'long-task', 'AboveThreshold', 900],
      ['self-timed', 'long-task', 'AboveThreshold', 700],
    ]);
    const files = renderPlacedWorkloads({
      algorithms: algs,
      placements,
      policy: policy.spec,
      cluster: 'sim',
      templates: loadWorkloadTemplates(),
    });
    const short = files.find((f) => f.path === 'clusters/sim/algorithms/resnet-short/deployment.yaml')!;
    expect(short.content).toContain('gpuops.dev/pool: short-task');
    expect(
      files.find((f) => f.path === 'clusters/sim/algorithms/bert-long/deployment.yaml')!.content,
    ).toContain('gpuops.dev/pool: long-task');

    const mine = progress.filter((p) => p.algorithm === 'bert-long');
    expect(new Set(mine.map((p) => p.phase))).toEqual(new Set(['scheduling', 'running', 'succeeded']));
    // The third benchmark waited for a free test GPU while the first two ran.
    const third = progress.filter((p) => p.algorithm === 'self-timed' && p.phase === 'queued');
    expect(third[0]?.message).toMatch(/1 free test GPU\(s\) needed, 0 free/);
    expect(mine.filter((p) => p.phase === 'succeeded').map((p) => `${p.run}/${p.runs}`)).toEqual([
      '1/3',
      '2/3',
      '3/3',
    ]);
    expect(mine.some((p) => p.phase === 'running' && p.elapsedSeconds >= 300)).toBe(true);
  });

  it('a spec changed only in comments and key order is not benchmarked again', async () => {
    const reordered = SHORT.replace('spec:', '# benchmarked already\nspec:  # unchanged')
      .replace(/ {2}image: (.*)\n/, '')
      .concat(`  image: registry.example.com/ml/resnet-short:1.0.0 # same image\n`);
    const [again] = algorithmsFromYaml(reordered, policy);
    const before = jobsCreated;
    const [r] = await stepBenchmarks([again!], deps(), await capacity());
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 42, cached: true, recorded: [] });
    expect(jobsCreated).toBe(before);
  });

  it('a changed image is benchmarked again', async () => {
    const [changed] = algorithmsFromYaml(SHORT.replace('resnet-short:1.0.0', 'resnet-short:1.1.0'), policy);
    const before = jobsCreated;
    const [r] = await stepToEnd([changed!], deps());
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 42, cached: false });
    expect(r!.recorded).toHaveLength(3);
    expect(jobsCreated - before).toBe(3);
  });

  it('a run-seconds annotation added to an unchanged spec is benchmarked again, and its run time counts', async () => {
    // The annotation goes onto the benchmark pods; the simulator runs such a pod for that long.
    const annotated = SHORT.replace(
      `  name: resnet-short\n`,
      `  name: resnet-short\n  annotations:\n    sim.gpuops.dev/run-seconds: "75"\n`,
    );
    const [plain] = algorithmsFromYaml(SHORT, policy);
    await stepToEnd([plain!], deps()); // measured here, or already by the tests above
    const [alg] = algorithmsFromYaml(annotated, policy);
    expect(alg!.annotations).toEqual({ 'sim.gpuops.dev/run-seconds': '75' });
    const before = jobsCreated;
    const [r] = await stepToEnd([alg!], deps());
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 75, cached: false });
    expect(jobsCreated - before).toBe(3);
  });
});

describe('benchmarks that end without a placement', () => {
  it('a pod that cannot be scheduled ends Unschedulable, its Job is deleted, and no Deployment is emitted', async () => {
    const [big] = algorithmsFromYaml(
      algorithmYaml({ name: 'too-big', gpus: 4, args: ['--sim-duration=10'] }),
      policy,
    );
    const [r] = await waitForBenchmark(big!, deps(), capacity).then((x) => [x]);
    expect(r!.status).toBe('Unschedulable');
    expect(r!.recorded).toHaveLength(1);
    expect(r!.recorded[0]!.message).toMatch(/Unschedulable for \d+ s \(limit 120 s\).*nvidia.com\/gpu/);
    expect(sim.store.get('jobs', 'algorithms', r!.recorded[0]!.jobName)).toBeUndefined();

    const placement = place({ algorithm: 'too-big', pinned: big!.placement, benchmark: r! }, 600);
    expect(placement).toMatchObject({ pool: null, reason: 'BenchmarkFailed' });
    expect(
      renderPlacedWorkloads({
        algorithms: [big!],
        placements: [placement],
        policy: policy.spec,
        cluster: 'sim',
        templates: loadWorkloadTemplates(),
      }),
    ).toEqual([]);
  });

  it('a failing container ends Failed after its first run, with the exit code', async () => {
    const [bad] = algorithmsFromYaml(
      algorithmYaml({ name: 'crashes', args: ['--sim-duration=5', '--sim-fail=3'] }),
      policy,
    );
    const r = await waitForBenchmark(bad!, deps(), capacity);
    expect(r.status).toBe('Failed');
    expect(r.recorded).toHaveLength(1);
    expect(r.message).toMatch(/exit code 3/);
    // Final at this spec: asked again, nothing runs.
    const [again] = await stepBenchmarks([bad!], deps(), await capacity());
    expect(again).toMatchObject({ status: 'Failed', cached: true });
  });

  it('a run past activeDeadlineSeconds ends TimedOut', async () => {
    const [slow] = algorithmsFromYaml(
      algorithmYaml({ name: 'too-slow', args: ['--sim-duration=500'], timeoutSeconds: 100 }),
      policy,
    );
    const [r] = await stepToEnd([slow!], deps());
    expect(r!.status).toBe('TimedOut');
    expect(r!.recorded[0]!.message).toMatch(/activeDeadlineSeconds 100 s/);
    expect(place({ algorithm: 'too-slow', pinned: 'auto', benchmark: r! }, 600).reason).toBe(
      'BenchmarkFailed',
    );
  });
});

describe('API trouble and restarts', () => {
  it('transient API errors (503) are retried; the run still completes and is measured', async () => {
    let failures = 0;
    const flaky: JobApi = {
      ...jobs,
      readJob: async (ns, name) => {
        if (failures < 2) {
          failures++;
          throw new KubeApiError(
            `read Job ${ns}/${name}`,
            503,
            'the server is currently unable to handle the request',
          );
        }
        return jobs.readJob(ns, name);
      },
    };
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'flaky-api', runs: 1, args: ['--sim-duration=20'] }),
      policy,
    );
    const [r] = await stepToEnd([alg!], { ...deps(), jobs: flaky });
    expect(failures).toBe(2);
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 20 });
  });

  it('a Job left by an earlier pass (same name) is followed, not created twice', async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'adopted', runs: 1, args: ['--sim-duration=15'] }),
      policy,
    );
    const job = renderBenchmarkJob({
      algorithm: alg!,
      policy: policy.spec,
      specHash: specHash(alg!.spec, alg!.annotations),
      sequence: 1,
      template: loadWorkloadTemplates().benchmarkJob,
    });
    // The earlier pass created it and recorded its uid.
    const made = await jobs.createJob(job);
    expect(made.outcome).toBe('created');
    await store.recordBenchmarkJobUid!({
      namespace: 'algorithms',
      jobName: job.metadata.name,
      uid: made.uid!,
      at: sim.clock.now().toISOString(),
    });
    const before = jobsCreated;
    const [r] = await stepToEnd([alg!], deps());
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 15 });
    expect(r!.recorded[0]!.jobName).toBe(job.metadata.name);
    expect(jobsCreated).toBe(before);
  });

  it('a Job a tenant made first under the same name is not followed: no run time taken from it (issue 40 kind 6)', async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'forged', runs: 1, args: ['--sim-duration=15'] }),
      policy,
    );
    const hash = specHash(alg!.spec, alg!.annotations);
    const job = renderBenchmarkJob({
      algorithm: alg!,
      policy: policy.spec,
      specHash: hash,
      sequence: 1,
      template: loadWorkloadTemplates().benchmarkJob,
    });
    // The tenant's Job: gpuops's name, its own pod (1 s), and no spec hash gpuops wrote.
    delete (job.metadata as { annotations?: Record<string, string> }).annotations;
    expect((await jobs.createJob(job)).outcome).toBe('created');
    sim.clock.advance(60);
    const [r] = await stepBenchmarks([alg!], deps(), await capacity());
    expect(r).toMatchObject({ status: 'Pending', recorded: [], final: false });
    expect(r!.message).toContain(
      `Job algorithms/${job.metadata.name} exists but gpuops did not create it (annotation gpuops.dev/spec-hash is missing, gpuops writes "${hash}")`,
    );
    expect((await store.benchmarkRuns('forged', hash)).length).toBe(0);
  });

  it('a Job a tenant made first with every mark gpuops writes is not followed: its uid is not one gpuops recorded', async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'forged-marks', runs: 1, args: ['--sim-duration=15'] }),
      policy,
    );
    const hash = specHash(alg!.spec, alg!.annotations);
    // The tenant's Job: exactly what gpuops renders (labels, spec-hash annotation), made by the tenant.
    const job = renderBenchmarkJob({
      algorithm: alg!,
      policy: policy.spec,
      specHash: hash,
      sequence: 1,
      template: loadWorkloadTemplates().benchmarkJob,
    });
    const made = await jobs.createJob(job);
    expect(made.outcome).toBe('created');
    sim.clock.advance(60);
    const [r] = await stepBenchmarks([alg!], deps(), await capacity());
    expect(r).toMatchObject({ status: 'Pending', recorded: [], final: false, inFlight: job.metadata.name });
    expect(r!.message).toContain(
      `Job algorithms/${job.metadata.name} exists but gpuops did not create it (metadata.uid "${made.uid}" is not one gpuops recorded`,
    );
    // Still refused once the tenant's pod has long finished: never a run time, never a record of its uid.
    sim.clock.advance(600);
    const [again] = await stepBenchmarks([alg!], deps(), await capacity());
    expect(again).toMatchObject({ status: 'Pending', recorded: [] });
    expect((await store.benchmarkRuns('forged-marks', hash)).length).toBe(0);
    expect((await store.benchmarkJobOwner!('algorithms', job.metadata.name)).uid).toBeNull();
    await jobs.deleteJob('algorithms', job.metadata.name);
  });

  it("gpuops's Job deleted and made again by someone else with every mark is not followed: both uids named", async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'replaced', runs: 1, args: ['--sim-duration=300'] }),
      policy,
    );
    const hash = specHash(alg!.spec, alg!.annotations);
    const [first] = await stepBenchmarks([alg!], deps(), await capacity());
    const name = first!.inFlight!;
    const ours = (await store.benchmarkJobOwner!('algorithms', name)).uid;
    expect(ours).toBe((await jobs.readJob('algorithms', name))!.uid);
    await jobs.deleteJob('algorithms', name);
    await new Promise(setImmediate);
    const copy = renderBenchmarkJob({
      algorithm: alg!,
      policy: policy.spec,
      specHash: hash,
      sequence: 1,
      template: loadWorkloadTemplates().benchmarkJob,
    });
    const theirs = await jobs.createJob(copy);
    expect(theirs.outcome).toBe('created');
    expect(theirs.uid).not.toBe(ours);
    sim.clock.advance(600);
    const [r] = await stepBenchmarks([alg!], deps(), await capacity());
    expect(r).toMatchObject({ status: 'Pending', recorded: [] });
    expect(r!.message).toContain(`(metadata.uid is "${theirs.uid}", gpuops created "${ours}")`);
    expect((await store.benchmarkRuns('replaced', hash)).length).toBe(0);
    await jobs.deleteJob('algorithms', name);
  });

  it('a Job gpuops made before it recorded uids (older than the table) is followed once by its marks and its uid recorded', async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'pre-upgrade', runs: 1, args: ['--sim-duration=15'] }),
      policy,
    );
    const hash = specHash(alg!.spec, alg!.annotations);
    const job = renderBenchmarkJob({
      algorithm: alg!,
      policy: policy.spec,
      specHash: hash,
      sequence: 1,
      template: loadWorkloadTemplates().benchmarkJob,
    });
    const made = await jobs.createJob(job);
    sim.clock.advance(5);
    // The store was upgraded (the table made) after this Job was created.
    const upgradedAt = sim.clock.now().toISOString();
    const upgraded: RunnerDeps['store'] = {
      benchmarkRuns: (a, h) => store.benchmarkRuns(a, h),
      recordBenchmarkRun: (r) => store.recordBenchmarkRun(r),
      recordBenchmarkJobUid: (r) => store.recordBenchmarkJobUid!(r),
      benchmarkJobOwner: async (ns, n) => ({
        ...(await store.benchmarkJobOwner!(ns, n)),
        recordingSince: upgradedAt,
      }),
    };
    const [first] = await stepBenchmarks([alg!], { ...deps(), store: upgraded }, await capacity());
    expect(first).toMatchObject({ status: 'Pending', inFlight: job.metadata.name });
    expect(first!.message).not.toContain('did not create it');
    expect((await store.benchmarkJobOwner!('algorithms', job.metadata.name)).uid).toBe(made.uid);
    const [r] = await stepToEnd([alg!], { ...deps(), store: upgraded });
    expect(r).toMatchObject({ status: 'Succeeded', medianSeconds: 15 });
  });

  it("when the uid of gpuops's new Job cannot be recorded the Job is deleted again, not left to be refused", async () => {
    const [alg] = algorithmsFromYaml(
      algorithmYaml({ name: 'unrecorded', runs: 1, args: ['--sim-duration=15'] }),
      policy,
    );
    const broken: RunnerDeps['store'] = {
      benchmarkRuns: (a, h) => store.benchmarkRuns(a, h),
      recordBenchmarkRun: (r) => store.recordBenchmarkRun(r),
      recordBenchmarkJobUid: () => Promise.reject(new Error('database is locked')),
      benchmarkJobOwner: (ns, n) => store.benchmarkJobOwner!(ns, n),
    };
    const before = jobsCreated;
    const [r] = await stepBenchmarks([alg!], { ...deps(), store: broken }, await capacity());
    expect(jobsCreated).toBe(before + 1);
    expect(r).toMatchObject({ status: 'Pending', inFlight: null });
    expect(r!.message).toContain('database is locked');
    const name = benchmarkJobName('unrecorded', specHash(alg!.spec, alg!.annotations), 1);
    expect(await jobs.readJob('algorithms', name)).toBeNull();
  });

  it('with no free test GPU nothing starts and the result is Pending', async () => {
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'no-room', runs: 1 }), policy);
    const before = jobsCreated;
    const [r] = await stepBenchmarks([alg!], deps(), { free: 0, total: 0 });
    expect(r).toMatchObject({ status: 'Pending', recorded: [], inFlight: null });
    expect(r!.message).toMatch(/no free GPU/);
    expect(jobsCreated).toBe(before);
  });
});
