/**
 * The write phase of a reconcile pass, after the plan: the snapshot and the PR host's refresh,
 * records (samples, decisions, the fleet status), then one pull request per subject, or with
 * `scaling.mode: patch` the scale patches plus a commit of the same change to the base branch,
 * then the spec errors to their pull requests. Dry-run is checked right where each write happens.
 */
import type { Logger } from 'pino';
import type { ClusterPatcher } from '../cluster/patch.js';
import type { Snapshot } from '../cluster/types.js';
import { closeSupersededScalePullRequests } from '../gitops/close-superseded.js';
import type { PullRequestHost } from '../gitops/pr-host.js';
import type { ChangeSet, WriteBackResult } from '../gitops/types.js';
import type { WorkingCopy } from '../gitops/working-copy.js';
import { reportInvalidSpecs } from '../gitops/spec-errors.js';
import { writeBack } from '../gitops/write-back.js';
import type { GitModel } from '../plan/git-model.js';
import { toDecisionRecord } from '../scaling/decision-record.js';
import type { ScalingDecision } from '../scaling/types.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/types.js';
import { fleetStatusRecord } from '../status/fleet-record.js';
import { statusStoreOf } from '../store/index.js';
import type { Store } from '../store/types.js';
import type { DesiredState } from '../controller/desired-state.js';
import type { World } from './world.js';

/**
 * The whole write phase (see the module comment): with `dryRun` only what a person would see is
 * computed (`would …` patch lines, PR previews), nothing is stored, pushed or patched.
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
  if (!dryRun) {
    // The plain git host learns that a person merged or deleted a branch (GitHub knows by itself).
    await Promise.all([store.saveSnapshot(world.snapshot), deps.host.refresh?.()]);
    await recordPass(store, {
      cluster: deps.cluster,
      desired,
      algorithms: world.repo.algorithms,
      policy,
      snapshot: world.snapshot,
      now: world.now,
    });
  }
  const written = await writePass(deps, {
    changeSets: desired.changeSets,
    decisions: desired.output.scaling,
    algorithms: world.repo.algorithms,
    git: world.git,
    policy,
  });
  if (world.invalid.length > 0)
    await reportInvalidSpecs(world.invalid, {
      host: deps.host,
      cluster: deps.cluster,
      base: deps.workingCopy.baseBranch,
      dryRun,
      log: deps.log,
    });
  return written;
}

/** Stores what the pass saw and decided: samples, scaling decisions, and what `gpuops status` shows. */
export async function recordPass(
  store: Store,
  o: {
    cluster: string;
    desired: DesiredState;
    algorithms: ResolvedAlgorithm[];
    policy: Policy;
    snapshot: Snapshot;
    now: Date;
  },
): Promise<void> {
  const { output } = o.desired;
  await store.saveSamples(o.desired.samples);
  const records = output.scaling.map((d) => toDecisionRecord(d, o.now));
  if (store.recordDecisions) await store.recordDecisions(records);
  else for (const r of records) await store.recordDecision(r);
  // Pools and placement are not stored as decisions: the fleet status holds them.
  await statusStoreOf(store)?.saveFleetStatus(
    fleetStatusRecord({
      cluster: o.cluster,
      now: o.now,
      longTaskThresholdSeconds: o.policy.spec.placement.longTaskThresholdSeconds,
      algorithms: o.algorithms,
      pools: output.pools,
      placements: output.placements,
      scaling: output.scaling,
      snapshot: o.snapshot,
    }),
  );
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
}

/** What the write phase writes from: the pass's change sets and decisions, and what it read. */
export interface WriteInputs {
  changeSets: ChangeSet[];
  decisions: readonly ScalingDecision[];
  algorithms: readonly ResolvedAlgorithm[];
  git: GitModel;
  policy: Policy;
}

/**
 * Writes the change sets back: pull requests for every subject, except scale subjects in patch
 * mode, which are patched in the cluster first and committed only when every patch took.
 * @returns one result per change set written, and one line per patch (`would …` in dry-run)
 */
export async function writePass(
  deps: WriteDeps,
  o: WriteInputs,
): Promise<{ results: WriteBackResult[]; patches: string[] }> {
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
  if (!patchMode) {
    await closeSuperseded(deps, o.decisions);
    return { results, patches: [] };
  }
  const { patched, patches } = await patchScale(deps, {
    ...o,
    changeSets: o.changeSets.filter((c) => c.kind === 'scale'),
  });
  results.push(...(await writeBack(patched, { ...common, mode: 'patch' })));
  return { results, patches };
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

/**
 * Patch mode: labels the nodes a decision moves with the pool of the Deployment in Git (the pool
 * the decision scaled in; this pass's placement may be pending) and, with engine gpuops, scales
 * the Deployment. A change set whose patches all took is returned to be committed; a failed one
 * is logged and retried next pass.
 */
async function patchScale(
  deps: WriteDeps,
  o: WriteInputs,
): Promise<{ patched: ChangeSet[]; patches: string[] }> {
  const decisions = new Map(o.decisions.map((d) => [d.algorithm, d]));
  const algorithms = new Map(o.algorithms.map((a) => [a.name, a]));
  const labelKey = o.policy.spec.pools.labelKey;
  const patches: string[] = [];
  const patched: ChangeSet[] = [];
  for (const cs of o.changeSets) {
    const d = decisions.get(cs.subject);
    const alg = algorithms.get(cs.subject);
    if (!d || !alg) continue; // a scale change set is built from a decision of an algorithm
    const pool = o.git.deployments.get(cs.subject)?.pool ?? null;
    if (deps.dryRun) {
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
    if (o.policy.spec.scaling.engine === 'gpuops' && outcome.every((r) => r.ok)) {
      outcome.push(await deps.patcher.scaleDeployment(alg.namespace, alg.name, d.replicas.to));
    }
    for (const r of outcome)
      patches.push(`${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}: ${r.message}`);
    if (outcome.every((r) => r.ok)) patched.push(cs);
    else
      deps.log.warn(
        { algorithm: cs.subject, patches: outcome.filter((r) => !r.ok) },
        'patch failed; commit skipped, retried next pass',
      );
  }
  return { patched, patches };
}
