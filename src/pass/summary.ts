/**
 * The last step of a pass: its result and its one summary log line
 * (`nodes algorithms decisions prs errors`), and the metrics reading's warnings.
 */
import type { Logger } from 'pino';
import type { Snapshot } from '../cluster/index.js';
import type { DesiredState, PlanOutput, ReconcilerMemory, FillFailure } from '../plan/index.js';
import { fillFailureText, newFillFailures, newFillHolds, recordedFillFailures } from '../plan/index.js';
import { statusStoreOf, type Store } from '../store/index.js';
import type { ChangeSet, WriteBackResult } from '../change-sets/index.js';
import type { Watchlist } from '../scaling/index.js';
import { standbyCounts, type StandbyOutcome } from './standby.js';
import type { World } from './world.js';

/** Counters of one reconcile pass, logged as one summary line. */
export interface PassSummary {
  nodes: number;
  algorithms: number;
  decisions: number;
  prs: number;
  errors: number;
  /** Decisions by kind and machine reason, for `gpuops_decisions_total`. */
  reasons?: { kind: string; reason: string }[];
  /** Pull-request outcomes, for `gpuops_pull_requests_total`. */
  prActions?: string[];
  /** What the crossing trigger watches until the next pass (`watchlist.ts`). */
  watch?: Watchlist;
}

/** What one pass decided and did. */
export interface PassResult extends PassSummary {
  snapshot: Snapshot;
  plan: PlanOutput;
  changeSets: ChangeSet[];
  writeBack: WriteBackResult[];
  /** Writes to the cluster, one line each: patch mode's, and pull-request mode's take-back of the pool taints patch mode set. */
  patches: string[];
  /** The standby pods claimed, given back or deleted, or refused with the reason (`pass/standby.ts`). */
  standby?: StandbyOutcome[];
}

/** Logs the warnings of the pass's utilisation reading (skew, dropped series), when any. */
export function warnAboutMetrics(log: Logger, desired: DesiredState): void {
  const m = desired.output.metrics;
  if (m && m.warnings.length > 0)
    log.warn(
      { warnings: m.warnings, evaluatedAt: m.evaluatedAt, skewSeconds: m.skewSeconds },
      'metrics reading',
    );
}

/**
 * Logs each deleted spec whose objects stay (`placement.onDeletedSpec: keep-and-report`), every
 * pass until a person deletes the folder.
 */
export function warnAboutKept(log: Logger, desired: DesiredState): void {
  for (const k of desired.output.kept ?? [])
    log.warn(
      { algorithm: k.algorithm, folder: k.folder, objects: k.objects, detail: k.message },
      'deleted spec kept (placement.onDeletedSpec: keep-and-report)',
    );
}

/**
 * Warns once about each failed model cache fill Job (`plan/fill-failure.ts`): its algorithm's
 * Deployment stays held and nothing else in the cluster says why the algorithm never starts. The
 * placement pull request says it on every pass it is updated. Once per process, and not again
 * after a restart: the first pass that sees a failure reads the stored fleet status of `cluster`
 * (once per process) and counts as warned the failures it records as they are now
 * (`recordedFillFailures`; a pass warns before it records). A store without a fleet status, or
 * whose read fails, counts none (the warning is then said again, never lost).
 */
export async function warnAboutFailedFills(
  log: Logger,
  world: Pick<World, 'modelCacheFailures'>,
  memory: Pick<ReconcilerMemory, 'fillFailuresWarned'>,
  recorded: { store: Store; cluster: string },
): Promise<void> {
  if (!world.modelCacheFailures?.size) return;
  memory.fillFailuresWarned ??= new Set(await recordedFailures(world.modelCacheFailures, recorded));
  for (const f of newFillFailures(world.modelCacheFailures.values(), memory.fillFailuresWarned))
    log.warn(
      { namespace: f.namespace, algorithm: f.algorithm, job: f.job, reason: f.reason, detail: f.message },
      `model cache fill failed (${fillFailureText(f)}): the Deployment stays held until the fill step changes or the Job is deleted`,
    );
}

/** The Job keys of `failures` the stored fleet status records; none without a record or on a failed read. */
async function recordedFailures(
  failures: ReadonlyMap<string, FillFailure>,
  { store, cluster }: { store: Store; cluster: string },
): Promise<string[]> {
  const fleet = await statusStoreOf(store)
    ?.fleetStatus(cluster)
    .catch(() => null);
  return fleet ? recordedFillFailures(failures.values(), fleet.algorithms) : [];
}

/**
 * Warns about each model cache fill gpuops cannot read (`plan/fill-hold.ts`), once per namespace
 * whose list of Jobs fails (naming the algorithms it holds) and once per unlabelled Job, and again
 * after it cleared: a 403 on every pass after an upgrade without the new ClusterRole is one line,
 * not one per pass, and never none. The status page and the pull request say it on every pass.
 */
export function warnAboutFillHolds(
  log: Logger,
  world: Pick<World, 'modelCacheHolds'>,
  memory: Pick<ReconcilerMemory, 'fillHoldsWarned'>,
): void {
  memory.fillHoldsWarned ??= new Map();
  const holds = [...(world.modelCacheHolds?.values() ?? [])];
  for (const h of newFillHolds(holds, memory.fillHoldsWarned)) {
    const algorithms = holds.filter((x) => x.scope === h.scope).map((x) => x.algorithm);
    log.warn(
      {
        namespace: h.namespace,
        algorithms,
        ...(h.reason === 'ModelCacheFillUnlabelled' ? { job: h.job } : {}),
        reason: h.reason,
        code: h.code,
      },
      `model cache fill not read (${h.why}): the Deployment stays held`,
    );
  }
}

/**
 * The pass's result and its one summary log line (`reconcile pass`, info; with `standby` counts
 * when the pass claimed, gave back or deleted standby pods, or was refused).
 */
export function summarize(
  log: Logger,
  dryRun: boolean,
  world: World,
  desired: DesiredState,
  written: { results: WriteBackResult[]; patches: string[]; standby?: StandbyOutcome[] },
): PassResult {
  const { output } = desired;
  const { results, patches } = written;
  const standby = standbyCounts(written.standby ?? []);
  const failed = results.filter((r) => r.action === 'failed').length;
  const summary: PassResult = {
    nodes: world.snapshot.nodes.length,
    algorithms: world.repo.algorithms.length,
    decisions: output.scaling.filter((d) => d.action !== 'hold').length,
    prs: results.filter((r) => ['created', 'updated', 'committed'].includes(r.action)).length,
    errors: world.repo.errors.length + failed,
    reasons: [
      ...output.pools.filter((p) => p.from !== p.to).map((p) => ({ kind: 'pools', reason: p.reason })),
      ...output.placements.map((p) => ({ kind: 'placement', reason: p.reason })),
      ...output.scaling.map((d) => ({ kind: 'scaling', reason: d.reason })),
    ],
    prActions: results.map((r) => r.action),
    snapshot: world.snapshot,
    plan: output,
    changeSets: desired.changeSets,
    writeBack: results,
    patches,
    ...(written.standby ? { standby: written.standby } : {}),
  };
  const { nodes, algorithms, decisions, prs, errors } = summary;
  log.info(
    { nodes, algorithms, decisions, prs, errors, dryRun, ...(standby ? { standby } : {}) },
    'reconcile pass',
  );
  return summary;
}
