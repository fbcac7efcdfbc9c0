/**
 * The write phase of a reconcile pass, after the plan: the snapshot and the PR host's refresh,
 * records (samples, decisions, the fleet status), then one pull request per subject, or with
 * `scaling.mode: patch` the scale patches plus a commit of the same change to the base branch,
 * then the spec errors to their pull requests. Dry-run is checked right where each write happens.
 */
import type { Logger } from 'pino';
import type { ClusterPatcher, NodeInfo, Snapshot } from '../cluster/index.js';
import {
  closeSupersededScalePullRequests,
  reportInvalidSpecs,
  writeBack,
  pullRequestRefusals,
  sameRefusals,
} from '../write-back/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { ChangeSet, WriteBackResult } from '../change-sets/index.js';
import type { WorkingCopy } from '../working-copy/index.js';
import type { GitModel, DesiredState, ReconcilerMemory } from '../plan/index.js';
import { heldByFailedFills, heldByFillHolds } from '../plan/index.js';
import { toDecisionRecord } from '../scaling/index.js';
import type { ScalingDecision } from '../scaling/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { fleetStatusRecord } from '../status/index.js';
import { historyPruneBefore } from './history-prune.js';
import { statusStoreOf } from '../store/index.js';
import type { FleetStatusRecord, GitWriteRefusalRecord, Store, PoolTaintRecord } from '../store/index.js';
import { patchPoolTaints, writePatchMode } from './patch-mode.js';
import { takeBackPoolTaints } from './pool-taint-handover.js';
import { handDeploymentsToGit, handFieldsToGit } from './field-handover.js';
import { checkKey, deploymentsToHandOver, type DeploymentChecks } from './handover-schedule.js';
import { saveNewSamples } from './remembered-reads.js';
import { rememberStoredDecisions } from './remembered-decisions.js';
import type { World } from './world.js';

/**
 * The whole write phase (see the module comment): with `dryRun` only what a person would see is
 * computed (`would …` patch lines, PR previews), nothing is stored, pushed or patched. The
 * permanent Git write refusals standing at the start (`standingRefusals`) go into the fleet
 * status; those the write leaves are stored again when they changed (`saveRefusals`).
 * @returns one result per change set written, and one line per patch
 * @throws when the snapshot or the records cannot be stored (the pass is retried)
 */
export async function writePhase(
  deps: WriteDeps,
  world: World,
  desired: DesiredState,
): Promise<{ results: WriteBackResult[]; patches: string[] }> {
  const { store, dryRun } = deps;
  const policy = world.repo.policy;
  const memory = deps.memory ?? { samples: [] };
  const refusals = await standingRefusals(store, deps.cluster, memory);
  const poolTaints = memory.poolTaints ?? null;
  let fleet: FleetStatusRecord | null = null;
  if (!dryRun) {
    // The plain git host learns that a person merged or deleted a branch (GitHub knows by itself).
    await Promise.all([store.saveSnapshot(world.snapshot), deps.host.refresh?.()]);
    fleet = await recordPass(store, {
      cluster: deps.cluster,
      desired,
      algorithms: world.repo.algorithms,
      policy,
      snapshot: world.snapshot,
      now: world.now,
      writeRefusals: refusals,
      poolTaints,
      memory,
      ...heldOf(world),
    });
  }
  const written = await writePass(deps, {
    changeSets: desired.changeSets,
    decisions: desired.output.scaling,
    algorithms: world.repo.algorithms,
    git: world.git,
    policy,
    refusals,
    poolTaints,
    nodes: world.snapshot.nodes,
  });
  if (fleet) await saveWriteRecords(store, fleet, written, memory);
  if (world.invalid.length > 0)
    await reportInvalidSpecs(world.invalid, {
      host: deps.host,
      cluster: deps.cluster,
      base: deps.workingCopy.baseBranch,
      dryRun,
      log: deps.log,
    });
  return { results: written.results, patches: written.patches };
}

/** The algorithms whose Deployment a model cache fill holds, with why: failed, or not readable. */
function heldOf(world: World): { held?: Map<string, { reason: string; message: string }> } {
  const held = new Map<string, { reason: string; message: string }>([
    ...heldByFailedFills(world.modelCacheFailures?.values() ?? []),
    ...heldByFillHolds(world.modelCacheHolds?.values() ?? []),
  ]);
  return held.size > 0 ? { held } : {};
}

/**
 * Stores what the pass saw and decided: samples, scaling decisions, the standby sets' size changes
 * (`DesiredState.standbySizes`), and what `gpuops status` shows;
 * deletes the decisions and samples older than the history kept (`historyPruneBefore`).
 */
export async function recordPass(
  store: Store,
  o: {
    cluster: string;
    desired: DesiredState;
    algorithms: ResolvedAlgorithm[];
    policy: Policy;
    snapshot: Snapshot;
    now: Date;
    /** Permanent Git write refusals standing at the start of the pass (kept in the record). */
    writeRefusals?: readonly GitWriteRefusalRecord[];
    /** The nodes patch mode tainted, as at the start of the pass (kept in the record). */
    poolTaints?: PoolTaintRecord | null;
    /**
     * The reconciler's memory: only samples its last pass did not store are stored
     * (`saveNewSamples`), and the decisions stored are noted for the next read
     * (`rememberStoredDecisions`); absent: all stored, nothing noted.
     */
    memory?: Pick<ReconcilerMemory, 'samples' | 'samplesStoredAtMs' | 'decisions'>;
    /** Algorithms whose Deployment is held, with why (the status page shows it). */
    held?: ReadonlyMap<string, { reason: string; message: string }>;
  },
): Promise<FleetStatusRecord> {
  const { output } = o.desired;
  // At the store's resolution of history: not on every pass (`SAMPLE_INTERVAL_SECONDS`).
  await saveNewSamples(store, o.desired.samples, o.memory ?? { samples: [] }, o.now.getTime());
  // The scaling decisions, and the standby sets' size changes (their hold reads them back).
  const records = [...output.scaling.map((d) => toDecisionRecord(d, o.now)), ...o.desired.standbySizes];
  if (store.recordDecisions) await store.recordDecisions(records);
  else for (const r of records) await store.recordDecision(r);
  if (o.memory) {
    // The mark after the write: moved by exactly these records, the next pass keeps them unread.
    const mark = store.decisionsMark && records.length > 0 ? await store.decisionsMark() : undefined;
    rememberStoredDecisions(o.memory, records, mark);
  }
  // What has aged out goes, a pass's worth at a time (`history-prune.ts`).
  await store.pruneHistory?.(historyPruneBefore(o.policy, o.now));
  // Pools and placement are not stored as decisions: the fleet status holds them.
  const fleet = fleetStatusRecord({
    cluster: o.cluster,
    now: o.now,
    longTaskThresholdSeconds: o.policy.spec.placement.longTaskThresholdSeconds,
    podStartupSeconds: o.policy.spec.scaling.podStartupSeconds,
    algorithms: o.algorithms,
    pools: output.pools,
    placements: output.placements,
    scaling: output.scaling,
    snapshot: o.snapshot,
    ...(o.held ? { held: o.held } : {}),
  });
  if (o.writeRefusals && o.writeRefusals.length > 0) fleet.writeRefusals = [...o.writeRefusals];
  if (o.poolTaints) fleet.poolTaints = o.poolTaints;
  await statusStoreOf(store)?.saveFleetStatus(fleet);
  return fleet;
}

/**
 * The permanent Git write refusals standing when a reconciler starts: read once from the stored
 * fleet status (a `reconcile --once` process sees the last process's), then kept in `memory`,
 * with the nodes patch mode tainted (`memory.poolTaints`) read from the same record.
 */
export async function standingRefusals(
  store: Store,
  cluster: string,
  memory: Pick<ReconcilerMemory, 'refusals' | 'poolTaints'>,
): Promise<GitWriteRefusalRecord[]> {
  if (memory.refusals === undefined || memory.poolTaints === undefined) {
    const fleet = await statusStoreOf(store)?.fleetStatus(cluster);
    memory.refusals ??= fleet?.writeRefusals ?? [];
    memory.poolTaints ??= fleet?.poolTaints ?? null;
  }
  return memory.refusals;
}

/**
 * Stores what the write phase left for the next pass, in the pass's fleet status, when it changed:
 * the refusals, and the nodes patch mode tainted (`pool-taint-handover.ts`).
 */
export async function saveWriteRecords(
  store: Store,
  fleet: FleetStatusRecord,
  left: { refusals: GitWriteRefusalRecord[]; poolTaints: PoolTaintRecord | null },
  memory: Pick<ReconcilerMemory, 'refusals' | 'poolTaints'>,
): Promise<void> {
  const { refusals, poolTaints } = left;
  const sameTaints = JSON.stringify(fleet.poolTaints ?? null) === JSON.stringify(poolTaints);
  if (sameRefusals(fleet.writeRefusals ?? [], refusals) && sameTaints) return;
  const next: FleetStatusRecord = { ...fleet };
  if (refusals.length > 0) next.writeRefusals = refusals;
  else delete next.writeRefusals;
  if (poolTaints) next.poolTaints = poolTaints;
  else delete next.poolTaints;
  await statusStoreOf(store)?.saveFleetStatus(next);
  memory.refusals = refusals;
  memory.poolTaints = poolTaints;
}

/** The adapters and settings of the write phase. */
export interface WriteDeps {
  cluster: string;
  workingCopy: WorkingCopy;
  host: PullRequestHost;
  store: Store;
  patcher: ClusterPatcher;
  dryRun: boolean;
  now: () => Date;
  log: Logger;
  /**
   * The reconciler's memory: the standing refusals are read from the database once per
   * reconciler, samples are stored once a `SAMPLE_INTERVAL_SECONDS` (`history-prune.ts`) and
   * never twice, and the Deployments read
   * for the hand-over of replicas are read again only when due (`handover-schedule.ts`). Absent:
   * read and store all (the hand-over reads each Deployment, at most 100).
   */
  memory?: Pick<
    ReconcilerMemory,
    'refusals' | 'poolTaints' | 'samples' | 'samplesStoredAtMs' | 'deploymentChecks'
  >;
}

/** What the write phase writes from: the pass's change sets and decisions, and what it read. */
export interface WriteInputs {
  changeSets: ChangeSet[];
  decisions: readonly ScalingDecision[];
  algorithms: readonly ResolvedAlgorithm[];
  git: GitModel;
  policy: Policy;
  /** Permanent Git write refusals as the last pass stored them (patch mode). */
  refusals?: readonly GitWriteRefusalRecord[];
  /** The snapshot's nodes: in patch mode their pool taints follow their pool labels. */
  nodes?: readonly NodeInfo[];
  /** The nodes patch mode tainted, as the last pass stored them (`pool-taint-handover.ts`). */
  poolTaints?: PoolTaintRecord | null;
}

/** What the write phase did, and what it leaves for the next pass. */
export interface WritePassResult {
  results: WriteBackResult[];
  /** One line per write to the cluster (`would …` in dry-run). */
  patches: string[];
  /** The permanent write refusals to store. */
  refusals: GitWriteRefusalRecord[];
  /** The nodes carrying gpuops's pool taint after the pass; unchanged in dry-run. */
  poolTaints: PoolTaintRecord | null;
}

/**
 * Writes the change sets back: pull requests for every subject, except scale subjects in patch
 * mode, which are committed to the base branch first and patched in the cluster only once Git
 * holds them (`patch-mode.ts`). In pull-request mode a write to the cluster takes back the
 * pool taints patch mode set, which Git cannot hold (`pool-taint-handover.ts`). In both modes the
 * fields gpuops's manager shares with Git's applier are handed to it (`field-handover.ts`): the
 * Nodes', and the Deployments' where Git binds `gpuops-scale` ({@link deploymentsToHandOver}).
 */
export async function writePass(deps: WriteDeps, o: WriteInputs): Promise<WritePassResult> {
  const patchMode = o.policy.spec.scaling.mode === 'patch';
  const limits = o.policy.spec.pullRequests;
  const common = {
    workingCopy: deps.workingCopy,
    host: deps.host,
    store: deps.store,
    cluster: deps.cluster,
    dryRun: deps.dryRun,
    limits: { maxOpenedPerPass: limits.maxOpenedPerPass, maxOpen: limits.maxOpen },
    now: deps.now,
    log: deps.log,
    // `readWorld` synced at the start of the pass; the pushes' leases guard the rest.
    syncedThisPass: true,
  };
  const prSets = o.changeSets.filter((c) => !(patchMode && c.kind === 'scale'));
  const results = await writeBack(prSets, { ...common, mode: 'pull-request' });
  // A declined push of a gpuops branch is a refusal like patch mode's, recorded under the branch.
  const refusals = deps.dryRun
    ? [...(o.refusals ?? [])]
    : pullRequestRefusals(o.refusals ?? [], results, deps.workingCopy.baseBranch, deps.now());
  const recorded = o.poolTaints ?? null;
  if (!patchMode) {
    await closeSuperseded(deps, o.decisions);
    const back = await takeBackPoolTaints(deps.patcher, common, o.nodes ?? [], recorded);
    const handed = await handFieldsToGit(deps.patcher, common, o.nodes ?? []);
    const replicas = await handDeploymentsToGit(deps.patcher, common, deploymentsToHandOver(o), {
      checks: replicaChecks(deps),
      nowMs: deps.now().getTime(),
    });
    return {
      results,
      patches: [...back.lines, ...handed, ...replicas],
      refusals,
      poolTaints: deps.dryRun ? recorded : back.left,
    };
  }
  // Git first, then the cluster: only what the base branch holds is patched (patch-mode.ts).
  const patch = await writePatchMode(common, deps.patcher, {
    ...o,
    changeSets: o.changeSets.filter((c) => c.kind === 'scale'),
    refusals: [
      ...(o.refusals ?? []).filter((r) => r.ref === deps.workingCopy.baseBranch),
      ...refusals.filter((r) => r.ref !== deps.workingCopy.baseBranch),
    ],
  });
  results.push(...patch.results);
  const taints = await patchPoolTaints(deps.patcher, common, o.nodes ?? [], o.policy.spec.pools);
  // What Argo CD or Flux now applies too is Git's alone (field-handover.ts).
  const handed = await handFieldsToGit(deps.patcher, common, o.nodes ?? []);
  // A Deployment scaled this pass is read every pass for a while: Argo CD's sync of the commit
  // makes `spec.replicas` shared within minutes (`handover-schedule.ts`).
  const toHandOver = deploymentsToHandOver(o);
  const scaledNow = new Set(o.changeSets.filter((c) => c.kind === 'scale').map((c) => c.subject));
  const replicas = await handDeploymentsToGit(deps.patcher, common, toHandOver, {
    checks: replicaChecks(deps),
    nowMs: deps.now().getTime(),
    scaled: new Set(toHandOver.filter((d) => scaledNow.has(d.name)).map(checkKey)),
  });
  return {
    results,
    patches: [...patch.patches, ...taints.lines, ...handed, ...replicas],
    refusals: patch.refusals,
    poolTaints: deps.dryRun ? recorded : taints.record,
  };
}

/** The reconciler's memory of the hand-over's Deployment reads; without a memory, a new one (every Deployment due). */
function replicaChecks(deps: Pick<WriteDeps, 'memory'>): DeploymentChecks {
  if (!deps.memory) return new Map();
  return (deps.memory.deploymentChecks ??= new Map());
}

/** Pull-request mode: closes scale-down PRs a settled hold made stale (see `close-superseded.ts`); a host error is logged, the pass goes on. */
async function closeSuperseded(deps: WriteDeps, scaling: readonly ScalingDecision[]): Promise<void> {
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
