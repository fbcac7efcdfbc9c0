/**
 * One reconcile pass, as the method's steps (DESIGN.md): read (specs, Git's read model, the
 * cluster) → benchmarks → the pure plan (pools, placement, scaling, render, change sets) → records
 * → write-back → report invalid specs → one summary line. Adapters come in `ReconcileDeps`
 * (`cli/compose.ts` builds them).
 */
import type { Logger } from 'pino';
import type { RunnerClock } from '../benchmark/clock.js';
import type { BenchmarkProgress } from '../benchmark/runner.js';
import type { JobApi } from '../cluster/jobs.js';
import type { KubeClient } from '../cluster/kube-client.js';
import { listingSource, type ClusterSource } from '../cluster/source.js';
import type { ClusterPatcher } from '../cluster/patch.js';
import type { Snapshot } from '../cluster/types.js';
import type { PullRequestHost } from '../gitops/pr-host.js';
import { reportInvalidSpecs } from '../gitops/spec-errors.js';
import type { ChangeSet, WriteBackResult } from '../gitops/types.js';
import type { WorkingCopy } from '../gitops/working-copy.js';
import type { WorkloadTemplates } from '../manifests/templates.js';
import type { UtilizationSource } from '../metrics/types.js';
import type { PassCaches } from '../plan/caches.js';
import { emptySinceOf } from '../pools/return-idle.js';
import { historySince } from '../scaling/history.js';
import type { Policy } from '../definitions/types.js';
import type { DecisionRecord, Store } from '../store/types.js';
import { planDesiredState, type DesiredState, type PlanOutput } from './desired-state.js';
import type { PassSummary } from './loop.js';
import { benchmarksOfPass } from './pass-benchmarks.js';
import { readPass, type PassInputs } from './pass-read.js';
import { recordPass, writePass } from './pass-write.js';

/** A reconciler bound to its adapters (cluster, Git, PR host, database, metrics). */
export interface Reconciler {
  /** One level-triggered pass: specs → snapshot → pools → benchmarks → placement → scaling → write-back. */
  pass(): Promise<PassResult>;
  /** Closes the database. */
  close(): Promise<void>;
}

/** What one pass decided and did. */
export interface PassResult extends PassSummary {
  snapshot: Snapshot;
  plan: PlanOutput;
  changeSets: ChangeSet[];
  writeBack: WriteBackResult[];
  /** Patch-mode writes to the cluster (scaling.mode: patch), one line each. */
  patches: string[];
}

/** The adapters one pass works with; `cli/compose.ts` builds them from settings, with overrides. */
export interface ReconcileDeps {
  cluster: string;
  kube: KubeClient;
  /**
   * How the pass reads the cluster: the watch-driven cache of `gpuops run` (`cacheSource`);
   * absent: lists through `kube` every pass (`listingSource`, the one-shot commands).
   */
  clusterRead?: ClusterSource;
  jobs: JobApi;
  patcher: ClusterPatcher;
  workingCopy: WorkingCopy;
  host: PullRequestHost;
  store: Store;
  metrics: UtilizationSource | null;
  defaults: Policy;
  templates: WorkloadTemplates;
  /** Decide and report; write nothing anywhere (no Job, no commit, no PR, no patch, no record). */
  dryRun: boolean;
  clock: RunnerClock;
  log: Logger;
  /** Memo tables this reconciler keeps from pass to pass (`createPassCaches()`). */
  caches: PassCaches;
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
}

/**
 * One reconcile pass (level-triggered, idempotent): reads everything — specs and generated files
 * at the base branch head, the cluster, stored benchmarks, one utilisation reading — decides with
 * `planDesiredState`, then writes only the difference: benchmark Jobs for new or changed specs,
 * one pull request per subject (or, with `scaling.mode: patch`, scale/label patches plus a commit
 * to the base branch), records of samples and decisions. A second pass with nothing changed
 * writes nothing. Errors of one subject are reported in its result; the others go on.
 * @throws when the cluster cannot be listed or the repo cannot be fetched (the pass is retried);
 *   ClusterCacheNotSyncedError when `clusterRead` is a cache that is not synced: the pass decides
 *   nothing and writes nothing, and the error names each resource and why
 */
export async function reconcileOnce(deps: ReconcileDeps): Promise<PassResult> {
  const { cluster, store, log, dryRun } = deps;
  const now = deps.clock.now();
  const read = await readPass({ ...deps, now });
  const policy = read.repo.policy;
  // The one utilisation reading (started by `readPass` while the cluster was listed) is fetched,
  // and the snapshot stored (PostgreSQL: on its own connection), while the pass steps its
  // benchmarks; both are awaited before they are needed — the snapshot before node emptiness is
  // read back and before anything is recorded or written.
  const reading = read.reading;
  const snapshotSaved: Promise<unknown> = dryRun ? Promise.resolve() : store.saveSnapshot(read.snapshot);
  snapshotSaved.catch(() => undefined);
  const benchmarks = await benchmarksOfPass(deps, read.repo.algorithms, read.git, read.snapshot, policy);
  const desired = planDesiredState({
    cluster,
    repo: read.repo,
    invalidAlgorithms: read.kept,
    snapshot: read.snapshot,
    base: read.git.files,
    git: read.git,
    benchmarks: benchmarks.outcomes,
    benchmarkRuns: benchmarks.runs,
    templates: deps.templates,
    caches: deps.caches,
    now,
    ...(await observedForScaling(deps, read, now, reading, snapshotSaved)),
  });
  warnAboutMetrics(log, desired);
  if (!dryRun)
    await recordPass(store, {
      cluster,
      desired,
      algorithms: read.repo.algorithms,
      policy,
      snapshot: read.snapshot,
      now,
    });
  const { results, patches } = await writePass(
    { ...deps, now: () => deps.clock.now() },
    {
      changeSets: desired.changeSets,
      decisions: desired.output.scaling,
      algorithms: read.repo.algorithms,
      git: read.git,
      policy,
    },
  );
  if (read.invalid.length > 0)
    await reportInvalidSpecs(read.invalid, {
      host: deps.host,
      cluster,
      base: deps.workingCopy.baseBranch,
      dryRun,
      log,
    });
  return summarize(log, dryRun, read, desired, results, patches);
}

/**
 * What scaling judges besides Git: the recorded decisions since `historySince`, one utilisation
 * reading, the test nodes running a benchmark, HPA status (engine hpa), and since when each node
 * gpuops moved has been empty (stored snapshots; none moved: no query).
 */
async function observedForScaling(
  deps: ReconcileDeps,
  read: PassInputs,
  now: Date,
  readingRead: PassInputs['reading'],
  snapshotSaved: Promise<unknown>,
) {
  const { store } = deps;
  const policy = read.repo.policy;
  const names = read.repo.algorithms.map((a) => a.name);
  const bySubject = await store.decisionsSince(names, historySince(policy, now));
  const recent: DecisionRecord[] = names.flatMap((n) => bySubject.get(n) ?? []);
  const reading = await readingRead;
  const runningBenchmarks = read.snapshot.pods
    .filter((p) => p.managed && p.owner?.kind === 'Job' && p.nodeName !== null)
    .map((p) => p.nodeName!);
  const hpa =
    policy.spec.scaling.engine === 'hpa'
      ? await (deps.clusterRead ?? listingSource(deps.kube)).hpaStates()
      : undefined;
  const moved = [...read.git.movedNodes.keys()];
  await snapshotSaved;
  const emptiness = moved.length > 0 ? await store.nodeEmptiness?.(moved) : undefined;
  return {
    recent,
    reading,
    runningBenchmarks,
    hpa,
    ...(emptiness ? { emptySince: emptySinceOf(read.snapshot.nodes, emptiness) } : {}),
  };
}

function warnAboutMetrics(log: Logger, desired: DesiredState): void {
  const m = desired.output.metrics;
  if (m && m.warnings.length > 0)
    log.warn(
      { warnings: m.warnings, evaluatedAt: m.evaluatedAt, skewSeconds: m.skewSeconds },
      'metrics reading',
    );
}

/** The pass's result and its one summary log line (`nodes algorithms decisions prs errors`). */
function summarize(
  log: Logger,
  dryRun: boolean,
  read: PassInputs,
  desired: DesiredState,
  results: WriteBackResult[],
  patches: string[],
): PassResult {
  const { output } = desired;
  const failed = results.filter((r) => r.action === 'failed').length;
  const summary: PassResult = {
    nodes: read.snapshot.nodes.length,
    algorithms: read.repo.algorithms.length,
    decisions: output.scaling.filter((d) => d.action !== 'hold').length,
    prs: results.filter((r) => ['created', 'updated', 'committed'].includes(r.action)).length,
    errors: read.repo.errors.length + failed,
    reasons: [
      ...output.pools.filter((p) => p.from !== p.to).map((p) => ({ kind: 'pools', reason: p.reason })),
      ...output.placements.map((p) => ({ kind: 'placement', reason: p.reason })),
      ...output.scaling.map((d) => ({ kind: 'scaling', reason: d.reason })),
    ],
    prActions: results.map((r) => r.action),
    snapshot: read.snapshot,
    plan: output,
    changeSets: desired.changeSets,
    writeBack: results,
    patches,
  };
  const { nodes, algorithms, decisions, prs, errors } = summary;
  log.info({ nodes, algorithms, decisions, prs, errors, dryRun }, 'reconcile pass');
  return summary;
}
