import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Settings } from '../cli/settings.js';
import { createKubeJobApi } from '../cluster/jobs.js';
import { createKubeClient, loadKubeConfig, type KubeClient } from '../cluster/kube-client.js';
import { createClusterPatcher, type ClusterPatcher } from '../cluster/patch.js';
import { readSnapshot } from '../cluster/read-snapshot.js';
import { emptySinceOf } from '../pools/return-idle.js';
import type { Snapshot } from '../cluster/types.js';
import { systemClock, type RunnerClock } from '../benchmark/clock.js';
import { loadWorkloadTemplates } from '../benchmark/load-templates.js';
import { namespaceFilePath } from '../manifests/namespaces.js';
import { stepBenchmarks, type BenchmarkProgress, type TestCapacity } from '../benchmark/runner.js';
import { closeSupersededScalePullRequests } from '../gitops/close-superseded.js';
import { GitPullRequestHost } from '../gitops/git-host.js';
import { openGitOps } from '../gitops/open.js';
import type { PullRequestHost } from '../gitops/pr-host.js';
import { reportInvalidSpecs } from '../gitops/spec-errors.js';
import type { ChangeSet, WriteBackResult } from '../gitops/types.js';
import type { WorkingCopy } from '../gitops/working-copy.js';
import { writeBack } from '../gitops/write-back.js';
import type { WorkloadTemplates } from '../manifests/templates.js';
import type { UtilizationSource } from '../metrics/types.js';
import type { BenchmarkOutcome } from '../placement/types.js';
import { freeGpus } from '../pools/capacity.js';
import { historySince } from '../scaling/history.js';
import type { HpaState } from '../scaling/types.js';
import { toDecisionRecord } from '../scaling/decide.js';
import { loadDefaultPolicy } from '../spec/load.js';
import { parseRepo, type RepoFiles } from '../spec/rules/repo.js';
import type { SpecFile } from '../spec/rules/yaml-documents.js';
import type { LoadedRepo, Policy, ResolvedAlgorithm } from '../spec/types.js';
import { openStore, statusStoreOf } from '../store/index.js';
import { fleetStatusRecord } from '../status/fleet-record.js';
import type { BenchmarkRun, DecisionRecord, Store } from '../store/types.js';
import { gitDeployment, gitMovedNodes, planDesiredState, type PlanOutput } from './desired-state.js';
import { invalidAlgorithms, keptForInvalidSpecs } from './invalid-specs.js';
import { readUtilization, storedBenchmarks, utilizationSource } from './inputs.js';
import type { PassSummary } from './loop.js';

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

/** The adapters one pass works with; `createReconciler` builds them from settings, tests inject their own. */
export interface ReconcileDeps {
  cluster: string;
  kube: KubeClient;
  jobs: ReturnType<typeof createKubeJobApi>;
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
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
}

const YAML_FILE = /\.ya?ml$/;

/**
 * Reads the specs at the base branch head (pure parse of the files the working copy holds);
 * `algorithms` is `algorithms/` as the pass already read it (read once, not twice).
 */
async function readSpecs(
  wc: WorkingCopy,
  defaults: Policy,
  algorithms: Map<string, string>,
): Promise<LoadedRepo> {
  const policies = await wc.readTree('policies/');
  const toFiles = (m: Map<string, string>, topOnly: boolean) =>
    [...m]
      .filter(([p]) => YAML_FILE.test(p) && (!topOnly || p.split('/').length === 2))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, text]) => ({ path: p, text }));
  const files = { algorithms: toFiles(algorithms, false), policies: toFiles(policies, true) };
  if (lastSpecs && lastSpecs.defaults === defaults && sameFiles(lastSpecs.files, files))
    return lastSpecs.repo;
  const repo = parseRepo(defaults, files);
  lastSpecs = { defaults, files, repo };
  return repo;
}

/**
 * The last specs parsed. `parseRepo` is pure, so the same defaults and the same files give the
 * same repo: a pass over an unchanged repo (the usual case) skips parsing and validating 1,000
 * files (~0.7 s at fleet scale). The repo is read-only data to its users.
 */
let lastSpecs: { defaults: Policy; files: RepoFiles; repo: LoadedRepo } | undefined;

function sameFiles(a: RepoFiles, b: RepoFiles): boolean {
  const same = (x: readonly SpecFile[], y: readonly SpecFile[]) =>
    x.length === y.length && x.every((f, i) => f.path === y[i]!.path && f.text === y[i]!.text);
  return same(a.algorithms, b.algorithms) && same(a.policies, b.policies);
}

/** Status of the HorizontalPodAutoscalers gpuops generated, by algorithm (one list call). */
async function readHpaStates(kube: KubeClient): Promise<Map<string, HpaState>> {
  const out = new Map<string, HpaState>();
  for (const h of await kube.listHorizontalPodAutoscalers({
    labelSelector: 'app.kubernetes.io/managed-by=gpuops',
  })) {
    const name = h.metadata?.labels?.['gpuops.dev/algorithm'];
    if (!name) continue;
    out.set(name, {
      currentReplicas: h.status?.currentReplicas ?? 0,
      desiredReplicas: h.status?.desiredReplicas ?? 0,
      maxReplicas: h.spec?.maxReplicas ?? 0,
    });
  }
  return out;
}

/** Nodes that carry the test pool label in the cluster now and can take a benchmark, their free and allocatable GPUs. */
function testCapacity(snapshot: Snapshot, labelKey: string): TestCapacity & { nodes: string[] } {
  const nodes = snapshot.nodes.filter((n) => n.labels[labelKey] === 'test' && n.ready && n.schedulable);
  return {
    nodes: nodes.map((n) => n.name),
    free: nodes.reduce((s, n) => s + freeGpus(n), 0),
    total: nodes.reduce((s, n) => s + n.gpuAllocatable, 0),
    noCapacityMessage: `no Node carries ${labelKey}=test in the cluster yet (merge the pools pull request)`,
  };
}

/**
 * The benchmark step of a pass (`stepBenchmarks`, never waits): sets the outcome and the stored
 * runs of every algorithm in `toBenchmark` (`Pending` with what its run is doing while in flight).
 * In dry-run it only reads the Jobs.
 */
async function stepBenchmarksOfPass(
  deps: ReconcileDeps,
  toBenchmark: ResolvedAlgorithm[],
  test: TestCapacity & { nodes: string[] },
  policy: Policy,
  outcomes: Map<string, BenchmarkOutcome>,
  runs: Map<string, BenchmarkRun[]>,
): Promise<void> {
  if (toBenchmark.length === 0) return;
  if (test.nodes.length === 0) test = { ...test, free: 0, total: 0 };
  const results = await stepBenchmarks(
    toBenchmark,
    {
      jobs: deps.jobs,
      store: deps.store,
      clock: deps.clock,
      policy: policy.spec,
      templates: deps.templates,
      onProgress: deps.onBenchmarkProgress,
      dryRun: deps.dryRun,
    },
    test,
  );
  for (const r of results) {
    outcomes.set(r.algorithm, { status: r.status, medianSeconds: r.medianSeconds, message: r.message });
    if (r.recorded.length > 0) runs.set(r.algorithm, [...(runs.get(r.algorithm) ?? []), ...r.recorded]);
  }
}

/**
 * One reconcile pass (level-triggered, idempotent): reads everything — specs and generated files
 * at the base branch head, the cluster, stored benchmarks, one utilisation reading — decides with
 * `planDesiredState`, then writes only the difference: benchmark Jobs for new or changed specs,
 * one pull request per subject (or, with `scaling.mode: patch`, scale/label patches plus a commit
 * to the base branch), records of samples and decisions. A second pass with nothing changed
 * writes nothing. Errors of one subject are reported in its result; the others go on.
 * @throws when the cluster cannot be listed or the repo cannot be fetched (the pass is retried)
 */
export async function reconcileOnce(deps: ReconcileDeps): Promise<PassResult> {
  const { cluster, store, log, dryRun } = deps;
  const wc = deps.workingCopy;
  const now = deps.clock.now();

  await wc.sync();
  // Plain git: records learn that a person merged or deleted a branch (GitHub knows by itself).
  if (!dryRun && deps.host instanceof GitPullRequestHost) await deps.host.refresh();
  const algorithmTexts = await wc.readTree('algorithms/');
  const [repo, base, snapshot] = await Promise.all([
    readSpecs(wc, deps.defaults, algorithmTexts),
    wc.readTree(`clusters/${cluster}/`),
    readSnapshot(deps.kube, now, { poolLabel: deps.defaults.spec.pools.labelKey }),
  ]);
  const policy = repo.policy;
  const labelKey = policy.spec.pools.labelKey;
  if (!dryRun) await store.saveSnapshot(snapshot);

  // Benchmarks, level-triggered: the stored runs decide most algorithms; for new or changed specs
  // (and those that could not be scheduled or started) one step reads their Jobs, records the
  // runs that ended and creates the Jobs that are missing, and returns without waiting.
  const { outcomes, runs } = await storedBenchmarks(repo.algorithms, store);
  const due = repo.algorithms.filter((a) => {
    const o = outcomes.get(a.name);
    return a.placement === 'auto' && (!o || o.status === 'Unschedulable');
  });
  // A benchmark Job needs its namespace, and only Git creates namespaces (the pools pull request
  // writes clusters/<cluster>/namespaces/<ns>.yaml): until it is merged, the benchmark waits.
  const toBenchmark = due.filter((a) => base.has(namespaceFilePath(cluster, a.namespace)));
  for (const a of due) {
    if (toBenchmark.includes(a)) continue;
    outcomes.set(a.name, {
      status: 'Pending',
      medianSeconds: null,
      message: `namespace ${a.namespace} is not in Git yet (merge the pools pull request that writes ${namespaceFilePath(cluster, a.namespace)})`,
    });
  }
  await stepBenchmarksOfPass(deps, toBenchmark, testCapacity(snapshot, labelKey), policy, outcomes, runs);

  const since = historySince(policy, now);
  const names = repo.algorithms.map((a) => a.name);
  const bySubject = await store.decisionsSince(names, since);
  const recent: DecisionRecord[] = names.flatMap((n) => bySubject.get(n) ?? []);
  const reading = await readUtilization(deps.metrics, policy);
  const runningBenchmarks = snapshot.pods
    .filter((p) => p.managed && p.owner?.kind === 'Job' && p.nodeName !== null)
    .map((p) => p.nodeName!);

  const hpa = policy.spec.scaling.engine === 'hpa' ? await readHpaStates(deps.kube) : undefined;
  // Since when each node has held no GPU pod (stored snapshots): pools shrink (ReturnedIdle).
  // Only nodes gpuops moved can return, so only they are looked up (none: no query).
  const moved = [...gitMovedNodes(cluster, base).keys()];
  const emptiness = moved.length > 0 ? await store.nodeEmptiness?.(moved) : undefined;
  // A spec that fails validation keeps what Git holds for it (never a PR deleting its workload).
  const invalid = invalidAlgorithms(repo, algorithmTexts);
  const desired = planDesiredState({
    cluster,
    repo,
    invalidAlgorithms: keptForInvalidSpecs(invalid, cluster, base),
    snapshot,
    base,
    benchmarks: outcomes,
    benchmarkRuns: runs,
    reading,
    recent,
    templates: deps.templates,
    runningBenchmarks,
    hpa,
    ...(emptiness ? { emptySince: emptySinceOf(snapshot.nodes, emptiness) } : {}),
    now,
  });

  const m = desired.output.metrics;
  if (m && m.warnings.length > 0)
    log.warn(
      { warnings: m.warnings, evaluatedAt: m.evaluatedAt, skewSeconds: m.skewSeconds },
      'metrics reading',
    );
  if (!dryRun) {
    await store.saveSamples(desired.samples);
    const records = desired.output.scaling.map((d) => toDecisionRecord(d, now));
    if (store.recordDecisions) await store.recordDecisions(records);
    else for (const r of records) await store.recordDecision(r);
    // What `gpuops status` shows of this pass (pools and placement are not stored as decisions).
    await statusStoreOf(store)?.saveFleetStatus(
      fleetStatusRecord({
        cluster,
        now,
        longTaskThresholdSeconds: policy.spec.placement.longTaskThresholdSeconds,
        algorithms: repo.algorithms,
        pools: desired.output.pools,
        placements: desired.output.placements,
        scaling: desired.output.scaling,
        snapshot,
      }),
    );
  }

  // Write-back. Scaling in patch mode: patch the cluster, then commit the same change to the base branch.
  const patchMode = policy.spec.scaling.mode === 'patch';
  const prSets = desired.changeSets.filter((c) => !(patchMode && c.kind === 'scale'));
  const patchSets = desired.changeSets.filter((c) => patchMode && c.kind === 'scale');
  const limits = policy.spec.pullRequests;
  const common = {
    workingCopy: wc,
    host: deps.host,
    store,
    cluster,
    dryRun,
    limits: { maxOpenedPerPass: limits.maxOpenedPerPass, maxOpen: limits.maxOpen },
    now: () => deps.clock.now(),
    log,
  };
  const results: WriteBackResult[] = [];
  results.push(...(await writeBack(prSets, { ...common, mode: 'pull-request' })));
  const patches: string[] = [];
  const patched: ChangeSet[] = [];
  for (const cs of patchSets) {
    const d = desired.output.scaling.find((s) => s.algorithm === cs.subject)!;
    const alg = repo.algorithms.find((a) => a.name === cs.subject)!;
    // The pool the decision scaled in: the one the Deployment in Git is pinned to (the placement
    // of this pass may be pending while a changed spec is benchmarked again).
    const pool = gitDeployment(cluster, cs.subject, base, labelKey)?.pool ?? null;
    if (dryRun) {
      patches.push(
        `would scale ${alg.namespace}/${alg.name} to ${d.replicas.to}; would label ${d.nodes.join(', ') || 'no node'}`,
      );
      patched.push(cs);
      continue;
    }
    const outcome = [
      ...(d.nodes.length > 0 && pool
        ? await deps.patcher.labelNodes(d.nodes.map((node) => ({ node, labels: { [labelKey]: pool } })))
        : []),
    ];
    if (policy.spec.scaling.engine === 'gpuops' && outcome.every((r) => r.ok)) {
      outcome.push(await deps.patcher.scaleDeployment(alg.namespace, alg.name, d.replicas.to));
    }
    for (const r of outcome)
      patches.push(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}: ${r.message}`);
    if (outcome.every((r) => r.ok)) patched.push(cs);
    else
      log.warn(
        { algorithm: cs.subject, patches: outcome.filter((r) => !r.ok) },
        'patch failed; commit skipped, retried next pass',
      );
  }
  results.push(...(await writeBack(patched, { ...common, mode: 'patch' })));
  if (!patchMode) await closeSuperseded(deps, desired.output.scaling);

  if (invalid.invalid.length > 0)
    await reportInvalidSpecs(invalid.invalid, { host: deps.host, cluster, base: wc.baseBranch, dryRun, log });

  const failed = results.filter((r) => r.action === 'failed').length;
  const summary: PassResult = {
    nodes: snapshot.nodes.length,
    algorithms: repo.algorithms.length,
    decisions: desired.output.scaling.filter((d) => d.action !== 'hold').length,
    prs: results.filter((r) => ['created', 'updated', 'committed'].includes(r.action)).length,
    errors: repo.errors.length + failed,
    reasons: [
      ...desired.output.pools
        .filter((p) => p.from !== p.to)
        .map((p) => ({ kind: 'pools', reason: p.reason })),
      ...desired.output.placements.map((p) => ({ kind: 'placement', reason: p.reason })),
      ...desired.output.scaling.map((d) => ({ kind: 'scaling', reason: d.reason })),
    ],
    prActions: results.map((r) => r.action),
    snapshot,
    plan: desired.output,
    changeSets: desired.changeSets,
    writeBack: results,
    patches,
  };
  log.info(
    {
      nodes: summary.nodes,
      algorithms: summary.algorithms,
      decisions: summary.decisions,
      prs: summary.prs,
      errors: summary.errors,
      dryRun,
    },
    'reconcile pass',
  );
  return summary;
}

/** Pull-request mode: closes scale-down PRs a settled hold made stale (see `close-superseded.ts`); a host error is logged, the pass goes on. */
async function closeSuperseded(deps: ReconcileDeps, scaling: PlanOutput['scaling']): Promise<void> {
  const open = new Map(
    (await deps.store.pullRequests(deps.cluster))
      .filter((p) => p.state === 'open' && p.kind === 'scale')
      .map((p) => [p.branch, p.title]),
  );
  if (open.size === 0) return;
  try {
    const closed = await closeSupersededScalePullRequests(scaling, {
      host: deps.host,
      cluster: deps.cluster,
      openBranches: open,
      dryRun: deps.dryRun,
    });
    if (closed.length > 0)
      deps.log.info({ branches: closed, dryRun: deps.dryRun }, 'closed superseded scale pull requests');
  } catch (err) {
    deps.log.warn({ err }, 'could not close a superseded scale pull request; retried next pass');
  }
}

/** Options of {@link createReconciler} beyond the connection settings. */
export interface ReconcilerOptions {
  /** Folder of the GitOps repo clone; default `$GPUOPS_CACHE_DIR` or `~/.cache/gpuops`. */
  cacheDir?: string;
  clock?: RunnerClock;
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
}

/**
 * Builds the adapters from settings — database, kubeconfig, working copy and PR host, metrics
 * source, templates — and returns the reconciler.
 * @throws Error naming the setting when one is missing or wrong (e.g. `--repo-url`)
 */
export async function createReconciler(
  settings: Settings,
  log: Logger,
  options: ReconcilerOptions = {},
): Promise<Reconciler> {
  const clock = options.clock ?? systemClock;
  const store = await openStore(settings.database);
  try {
    const kc = loadKubeConfig(settings.kubeconfig);
    const cacheRoot =
      options.cacheDir ?? process.env.GPUOPS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'gpuops');
    const { workingCopy, host } = await openGitOps(settings, {
      store,
      now: () => clock.now(),
      cacheDir: cacheRoot,
      log,
    });
    const deps: ReconcileDeps = {
      cluster: settings.cluster,
      kube: createKubeClient(kc),
      jobs: createKubeJobApi(kc),
      patcher: createClusterPatcher(kc, { dryRun: settings.dryRun }),
      workingCopy,
      host,
      store,
      metrics: utilizationSource({ prometheusUrl: settings.prometheusUrl, dcgmUrl: settings.dcgmUrl }, () =>
        clock.now(),
      ),
      defaults: await loadDefaultPolicy(),
      templates: loadWorkloadTemplates(),
      dryRun: settings.dryRun,
      clock,
      log,
      onBenchmarkProgress: options.onBenchmarkProgress,
    };
    return { pass: () => reconcileOnce(deps), close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}
