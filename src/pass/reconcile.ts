/**
 * One reconcile pass, as the method's steps (docs/design.md, "The method"), top to bottom: read the
 * world (specs, Git's read model, the cluster, stored benchmarks and decisions, node activity, one
 * utilisation reading, HPA status) → benchmarks (start or read Jobs, never wait) → the pure plan
 * (classify nodes → place → scale → files) → write (snapshot, records, PRs or patches, spec errors,
 * the PR host's refresh) → one summary line. Each step lives in `src/pass/`; adapters come in
 * `ReconcileDeps` (`compose/compose.ts` builds them).
 */
import type { Logger } from 'pino';
import type { RunnerClock, BenchmarkProgress } from '../benchmark/index.js';
import type { JobApi, KubeClient, ClusterPatcher, StandbyPods } from '../cluster/index.js';
import { listingSource, type ClusterSource } from '../cluster/index.js';
import type { Policy } from '../definitions/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { WorkingCopy } from '../working-copy/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { UtilizationSource } from '../metrics/index.js';
import { benchmarksOfPass } from './benchmarks.js';
import { worldWithBands } from './proposed-bands.js';
import { planWorld } from './plan.js';
import { readWorld } from './read-world.js';
import { workingCopySpecs } from './specs.js';
import { standbyStep, type StandbyOutcome } from './standby.js';
import {
  summarize,
  warnAboutFailedFills,
  warnAboutFillHolds,
  warnAboutKept,
  warnAboutMetrics,
  type PassResult,
} from './summary.js';
import { warnAboutMisplaced } from './misplaced-specs.js';
import type { WorldSources } from './world.js';
import { writePhase } from './write.js';
import { watchlistOf } from './watchlist.js';
import { heldUntilMs } from '../scaling/index.js';
import { rememberedLookups, type ReconcilerMemory } from '../plan/index.js';
import type { LoopTiming } from '../scaling/index.js';
import type { Store } from '../store/index.js';

export type { PassResult, StandbyOutcome };

/**
 * Checks that this replica may write now, given the write it is about to make (`push`,
 * `pull request of <branch>`, …). `gpuops run` binds it to its leader election
 * (`controller/write-fence.ts`). @throws NotLeadingError (`controller/write-fence.ts`) when it may not
 */
export type WriteFence = (write: string) => void;

/** A reconciler bound to its adapters (cluster, Git, PR host, database, metrics). */
export interface Reconciler {
  /** One level-triggered pass: specs → snapshot → pools → benchmarks → placement → scaling → write-back. */
  pass(): Promise<PassResult>;
  /** Closes the database. */
  close(): Promise<void>;
  /**
   * What the loop runs after each pass, before it waits for the next (its time adds to the
   * interval): the database's checkpoint (`Store.checkpoint`; SQLite), so that no commit of a pass
   * copies the log into the file. A checkpoint a reader kept from finishing is logged at debug.
   * Absent: nothing.
   */
  afterPass?(): Promise<void>;
  /** The utilisation source the passes read (the crossing trigger reads it too); absent: none known. */
  metrics?: UtilizationSource | null;
}

/** The adapters one pass works with; `compose/compose.ts` builds them from settings, with overrides. */
export interface ReconcileDeps {
  cluster: string;
  kube: KubeClient;
  /**
   * How the pass reads the cluster: the watch-driven cache of `gpuops run` (`cacheSource`);
   * absent: lists through `kube` every pass (`listingSource`).
   */
  clusterRead?: ClusterSource;
  jobs: JobApi;
  patcher: ClusterPatcher;
  /**
   * Claims and gives back standby pods (docs/standby.md), behind the same write fence as `patcher`;
   * used only when the policy declares standby sets. Absent: planned changes are logged, not sent.
   */
  standby?: StandbyPods;
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
  /** What this reconciler remembers from pass to pass (`createReconcilerMemory()`). */
  memory: ReconcilerMemory;
  /**
   * `gpuops run`'s loop delays (its signal's interval and its reaction): the scaling windows
   * follow them (`scaling/loop-windows.ts`). Absent: the policy's.
   */
  loop?: LoopTiming;
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
  /**
   * `gpuops run`'s leadership check (`controller/write-fence.ts`), already wrapped around `jobs`, `patcher`,
   * `host` and the working copy's pushes; the pass also checks it before its write phase, so a
   * replica that lost the Lease mid-pass writes nothing. Absent: one-shot commands write freely.
   */
  fence?: WriteFence;
}

/** The sources `readWorld` reads a reconcile pass from: the working copy, the cluster, the database. */
export function passSources(deps: ReconcileDeps): WorldSources {
  return {
    cluster: deps.cluster,
    specs: workingCopySpecs(deps.workingCopy),
    clusterRead: deps.clusterRead ?? listingSource(deps.kube),
    store: deps.store,
    metrics: deps.metrics,
    defaults: deps.defaults,
    memory: deps.memory,
    jobs: deps.jobs,
  };
}

/**
 * One reconcile pass (level-triggered, idempotent): reads the world once (`readWorld`), steps the
 * benchmarks of new or changed specs, plans (`planWorld`, pure: what `gpuops plan` prints), then
 * writes only the difference: the snapshot and records, one pull request per subject (or, with
 * `scaling.mode: patch`, scale/label patches plus a commit to the base branch), spec errors. A
 * second pass with nothing changed writes nothing. Errors of one subject are reported in its
 * result; the others go on.
 * @throws when the cluster cannot be read or the repo cannot be fetched (the pass is retried);
 *   NotLeadingError when `fence` refuses the write phase (this replica lost the leader Lease);
 *   ClusterCacheNotSyncedError when `clusterRead` is a cache that is not synced: the pass decides
 *   and writes nothing, and the error names each resource and why
 */
export async function reconcileOnce(deps: ReconcileDeps): Promise<PassResult> {
  const read = await readWorld(passSources(deps), deps.clock.now());
  const benchmarks = await benchmarksOfPass(deps, read);
  // A band proposed from a benchmark is judged by every decision and shown in the pull request.
  const world = worldWithBands(read, benchmarks);
  const desired = planWorld(world, {
    templates: deps.templates,
    memory: deps.memory,
    benchmarks,
    ...(deps.loop ? { loop: deps.loop } : {}),
  });
  warnAboutMetrics(deps.log, desired);
  warnAboutKept(deps.log, desired);
  await warnAboutFailedFills(deps.log, world, deps.memory, { store: deps.store, cluster: deps.cluster });
  warnAboutFillHolds(deps.log, world, deps.memory);
  warnAboutMisplaced(deps.log, deps.memory);
  // A replica that lost the Lease while it read and decided stops here: nothing of it is written.
  deps.fence?.('the write phase of this pass');
  const written = await writePhase({ ...deps, now: () => deps.clock.now() }, world, desired);
  // Claims are runtime state: after Git's writes, in pull-request and patch mode alike.
  const standby = await standbyStep(deps, desired);
  const result = summarize(deps.log, deps.dryRun, world, desired, { ...written, standby });
  return {
    ...result,
    watch: watchlistOf(
      world,
      desired,
      (name) => heldUntilMs(deps.memory.scaling.decisions, name),
      rememberedLookups(deps.memory),
    ),
  };
}
