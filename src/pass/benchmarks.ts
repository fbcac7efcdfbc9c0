/**
 * The benchmark step of a reconcile pass, level-triggered and never waiting: the stored runs
 * (read with the world) decide most algorithms; for new or changed specs (and those that could not be scheduled or
 * started) one step reads their Jobs, records the runs that ended and creates the Jobs that are
 * missing. The runs read or recorded stay in memory for the rest of the pass.
 */
import type { RunnerClock } from '../benchmark/index.js';
import {
  stepBenchmarks,
  type BenchmarkProgress,
  type TestCapacity,
  benchmarkSignalReader,
} from '../benchmark/index.js';
import type { JobApi, Snapshot } from '../cluster/index.js';
import { namespaceFilePath } from '../manifests/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { GitModel } from '../plan/index.js';
import { freeGpus } from '../pools/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { Store } from '../store/index.js';
import type { PassBenchmarks } from './world.js';
import { proposedBands } from './proposed-bands.js';
import type { UtilizationSource } from '../metrics/index.js';

export type { PassBenchmarks };

/** Nodes that carry the test pool label in the cluster now and can take a benchmark, their free and allocatable GPUs. */
export function testCapacity(snapshot: Snapshot, labelKey: string): TestCapacity & { nodes: string[] } {
  const nodes = snapshot.nodes.filter((n) => n.labels[labelKey] === 'test' && n.ready && n.schedulable);
  return {
    nodes: nodes.map((n) => n.name),
    free: nodes.reduce((s, n) => s + freeGpus(n), 0),
    total: nodes.reduce((s, n) => s + n.gpuAllocatable, 0),
    noCapacityMessage: `no Node carries ${labelKey}=test in the cluster yet (merge the pools pull request)`,
  };
}

/**
 * Which `auto` algorithms need a benchmark step (no outcome yet, or `Unschedulable`), split by
 * whether their namespace is in Git: a benchmark Job needs its namespace, and only Git creates
 * namespaces (the pools pull request writes `clusters/<cluster>/namespaces/<ns>.yaml`).
 */
export function benchmarksDue(
  algorithms: readonly ResolvedAlgorithm[],
  outcomes: ReadonlyMap<string, BenchmarkOutcome>,
  git: Pick<GitModel, 'cluster' | 'files'>,
): { toStep: ResolvedAlgorithm[]; waiting: Map<string, BenchmarkOutcome> } {
  const toStep: ResolvedAlgorithm[] = [];
  const waiting = new Map<string, BenchmarkOutcome>();
  for (const a of algorithms) {
    const o = outcomes.get(a.name);
    if (a.placement !== 'auto' || (o && o.status !== 'Unschedulable')) continue;
    const ns = namespaceFilePath(git.cluster, a.namespace);
    if (git.files.has(ns)) toStep.push(a);
    else
      waiting.set(a.name, {
        status: 'Pending',
        medianSeconds: null,
        message: `namespace ${a.namespace} is not in Git yet (merge the pools pull request that writes ${ns})`,
      });
  }
  return { toStep, waiting };
}

/**
 * The benchmark step of a pass: the stored outcomes the world read (`stored`, not changed), then
 * one `stepBenchmarks` over the algorithms due (`Pending` with what its run is doing while in
 * flight). It starts or reads Jobs and never waits for one. In dry-run it only reads the Jobs.
 * @returns the outcomes and runs this pass plans with (new maps)
 */
export async function benchmarksOfPass(
  deps: {
    jobs: JobApi;
    store: Store;
    clock: RunnerClock;
    templates: WorkloadTemplates;
    dryRun: boolean;
    onBenchmarkProgress?: (p: BenchmarkProgress) => void;
    /** The scaler's metrics source: running benchmarks' signal is sampled from it. */
    metrics?: UtilizationSource | null;
  },
  world: {
    repo: { algorithms: readonly ResolvedAlgorithm[]; policy: Policy };
    git: Pick<GitModel, 'cluster' | 'files'>;
    snapshot: Snapshot;
    benchmarks: PassBenchmarks;
  },
): Promise<PassBenchmarks> {
  const { algorithms, policy } = world.repo;
  const { git, snapshot } = world;
  const outcomes = new Map(world.benchmarks.outcomes);
  const runs = new Map(world.benchmarks.runs);
  const { toStep, waiting } = benchmarksDue(algorithms, outcomes, git);
  for (const [name, o] of waiting) outcomes.set(name, o);
  if (toStep.length === 0)
    return { outcomes, runs, bands: await proposedBands(deps.store, world.repo, runs) };
  let test = testCapacity(snapshot, policy.spec.pools.labelKey);
  const products = new Map(snapshot.nodes.map((n) => [n.name, n.gpuProduct]));
  if (test.nodes.length === 0) test = { ...test, free: 0, total: 0 };
  const results = await stepBenchmarks(
    toStep,
    {
      jobs: deps.jobs,
      store: deps.store,
      clock: deps.clock,
      policy: policy.spec,
      templates: deps.templates,
      onProgress: deps.onBenchmarkProgress,
      dryRun: deps.dryRun,
      storedRuns: runs,
      productOfNode: (node) => products.get(node) ?? null,
      ...(deps.metrics
        ? { readSignal: benchmarkSignalReader(deps.metrics, policy.spec.scaling.windowSeconds) }
        : {}),
    },
    test,
  );
  for (const r of results) {
    outcomes.set(r.algorithm, { status: r.status, medianSeconds: r.medianSeconds, message: r.message });
    if (r.recorded.length > 0) runs.set(r.algorithm, [...(runs.get(r.algorithm) ?? []), ...r.recorded]);
  }
  return { outcomes, runs, bands: await proposedBands(deps.store, world.repo, runs) };
}
