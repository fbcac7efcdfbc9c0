/**
 * The whole decision of one pass, as data: repo + snapshot + what Git holds + benchmark outcomes +
 * one utilisation reading → the plan of docs/design.md ("The method") and one change set per
 * subject (node pools; placement per algorithm; scaling per algorithm). Pure: no clock, disk or
 * network; `gpuops plan` and the reconcile pass both call it, so what `plan` prints is what
 * `reconcile` writes.
 */
import type { FillStates } from './model-cache.js';
import type { FillFailure } from './fill-failure.js';
import type { FillHold } from './fill-hold.js';
import type { Snapshot } from '../cluster/index.js';
import { buildChangeSet, planFiles, type ChangeSetInput } from '../change-sets/index.js';
import type { ChangeSet, PlannedFile } from '../change-sets/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { UtilizationReading } from '../metrics/index.js';
import type { BenchmarkOutcome, Placement } from '../placement/index.js';
import type { BandProposals } from '../benchmark/index.js';
import { plainLookups, type PlanLookups } from './lookups.js';
import type { GitModel } from './git-model.js';
import { planPlacements } from './placement.js';
import { productNeeds, productsOf, productWarnings } from './products.js';
import { returnIdlePools } from './pool-changes.js';
import { planPools, type PoolsStep } from './pools.js';
import { runningReplicas } from './running-replicas.js';
import { keptRemovals, type KeptRemoval } from './deleted-specs.js';
import { planScaling, scaleChanges, type ScalingPlan } from './scaling.js';
import { standbyChanges } from './standby-changes.js';
import { standbySizeRecord } from './standby-hold.js';
import type { PoolAssignment } from '../pools/index.js';
import type {
  LoopTiming,
  MetricsReport,
  AlgorithmSample,
  DecisionRecord,
  HpaState,
  ScalingDecision,
  StandbyAction,
} from '../scaling/index.js';
import type { RolloutNote } from './rollout.js';
import type { BenchmarkRun } from '../store/index.js';
import type { LoadedRepo, SpecError } from '../definitions/index.js';
import { formatSpecError } from '../definitions/rules/format.js';
import { byString } from '../util/index.js';

/** `gpuops plan --output json` (docs/design.md, "Command-line contract"); fields may be added, these stay. */
export interface PlanOutput {
  cluster: string;
  errors: SpecError[];
  pools: PoolAssignment[];
  placements: Placement[];
  scaling: ScalingDecision[];
  files: PlannedFile[];
  /** Snapshot problems (objects that could not be read in full); absent when none. */
  warnings?: string[];
  /** The utilisation reading as the scaling step judged it: its time, clock skew, dropped series by reason. */
  metrics?: MetricsReport;
  /**
   * Deployments whose pod template a placement change replaces, and whether the rollout's surge
   * pod has a free GPU now (`plan/rollout.ts`); absent when no change starts a rollout.
   */
  rollouts?: RolloutNote[];
  /**
   * With `placement.onDeletedSpec: keep-and-report`: each algorithm that left `algorithms/` and
   * the live objects its folder keeps; absent when none.
   */
  kept?: KeptRemoval[];
}

/** Everything one pass decides on. */
export interface DesiredStateInput {
  cluster: string;
  repo: Pick<LoadedRepo, 'policy' | 'errors' | 'warnings' | 'algorithms'>;
  /** The cluster as observed. */
  snapshot: Snapshot;
  /** Files under `clusters/<cluster>/` at the base branch head: repo-relative path → content. */
  base: ReadonlyMap<string, string>;
  /** Benchmark outcome at each algorithm's current spec hash; absent = not benchmarked. */
  benchmarks: ReadonlyMap<string, BenchmarkOutcome>;
  /** The pass's one utilisation reading (no data is `{ ok: false }`, never 0 %). */
  reading: UtilizationReading;
  /** Benchmark runs behind each algorithm's outcome, for the placement PR's evidence. */
  benchmarkRuns?: ReadonlyMap<
    string,
    readonly Pick<BenchmarkRun, 'run' | 'status' | 'durationSeconds' | 'node' | 'gpuProduct'>[]
  >;
  /** The band proposed from its benchmark (or why none) of each spec with `scaling.targets: fromBenchmark`. */
  bandProposals?: BandProposals;
  /** Recorded scaling decisions since `historySince(policy, now)`. */
  recent: readonly DecisionRecord[];
  templates: WorkloadTemplates;
  /** With `scaling.engine: hpa`: each algorithm's HorizontalPodAutoscaler status as the cluster reports it. */
  hpa?: ReadonlyMap<string, HpaState>;
  /**
   * Since when each node has held no GPU pod, from the stored snapshots (ISO-8601; see
   * `Store.nodesEmptySince`). Without it no node goes back to `unused` (`ReturnedIdle`).
   */
  emptySince?: ReadonlyMap<string, string>;
  /** Test nodes that run a benchmark now (never released from the test pool). */
  runningBenchmarks?: readonly string[];
  /**
   * Algorithms whose spec is in `algorithms/` but fails validation (by `metadata.name`). What Git
   * holds for them stays as it is: a broken edit never proposes deleting a running workload.
   */
  invalidAlgorithms?: readonly string[];
  /** The read model of `base` when the caller built it already (`readGitModel`); else built here. */
  git?: GitModel;
  /**
   * How the steps parse, render and index what they read; default `plainLookups` (a reconciler
   * passes the ones its memory builds, `rememberedLookups`: the same answers, derived once).
   */
  lookups?: PlanLookups;
  /** `gpuops run`'s loop delays: the windows follow them (`scaling/loop-windows.ts`); absent: the policy's. */
  loop?: LoopTiming;
  /** The model cache fill Jobs as the cluster reports them (`plan/model-cache.ts`); absent: none read. */
  modelCacheFills?: FillStates;
  /** The failed fill Jobs among them, with why, by the same key; absent: none failed. */
  modelCacheFailures?: ReadonlyMap<string, FillFailure>;
  /** The fills among them read `Unknown`, with why (`fill-hold.ts`), by the same key; absent: none. */
  modelCacheHolds?: ReadonlyMap<string, FillHold>;
  now: Date;
}

/** The result of {@link planDesiredState}. */
export interface DesiredState {
  output: PlanOutput;
  /** One per subject whose files differ from the base branch, in the order pools, placement, scale. */
  changeSets: ChangeSet[];
  /** Per-pod samples the scaling step counted (to store). */
  samples: AlgorithmSample[];
  /**
   * The standby pods to claim and give back that the scaling decisions count on (`planStandby`;
   * runtime state, never in Git: the pass carries them out after writing); `[]` without standby sets.
   */
  standby: StandbyAction[];
  /**
   * The standby sets' planned size changes, as records to store (`standbySizeRecord`, kind
   * `standby`): the set's own history of sizes, which its hold reads back (`standby-hold.ts`).
   */
  standbySizes: DecisionRecord[];
}

/** Nodes a scaling decision of the pass moves: their manifest belongs to that scale change set alone. */
const movedNodes = (decisions: readonly ScalingDecision[]): Set<string> =>
  new Set(decisions.flatMap((d) => (d.action === 'relabel' ? d.nodes : [])));

/**
 * Plans one pass (pure, deterministic): the composition of the method's steps over one read
 * model of Git (`plan/git-model.ts`). Subjects and their files:
 * - `pools`: every node manifest, one Namespace file per algorithm namespace, and once the
 *   deletion of the old layout's kustomization files (`plan/pool-changes.ts`);
 * - `placement/<name>`: the algorithm's Deployment (with the replica count Git holds) and HPA, or
 *   their deletion when the algorithm left `algorithms/` (`plan/placement.ts`);
 * - `scale/<name>`: the Deployment as Git holds it with only `spec.replicas` changed (engine
 *   gpuops), and the manifests of `unused` nodes moved into its pool (`plan/scaling.ts`). A pending
 *   placement never holds scaling back; an algorithm placed but with no Deployment in Git yet gets
 *   `hold PlacementPending`.
 * - `standby/<set>`: each standby set's Deployment, sized to its share of the pool's spare
 *   (`plan/standby-changes.ts`).
 * Change sets come in the order pools, placement (by name), scale (in the scaling pass's order),
 * standby (by set name).
 */
export function planDesiredState(input: DesiredStateInput): DesiredState {
  const { cluster, repo, now } = input;
  const policy = repo.policy;
  const lookups = input.lookups ?? plainLookups;
  const git = input.git ?? lookups.gitModel(cluster, input.base, policy.spec.pools.labelKey);

  const fresh = productsOf(repo.algorithms, input.benchmarkRuns, input.snapshot);
  const products = lookups.products ? lookups.products(fresh) : fresh;
  const needs = productNeeds(repo.algorithms, input.benchmarks);
  const observed = planPools(input.snapshot, git, policy, input.runningBenchmarks, needs, lookups);
  const placements = planPlacements(repo.algorithms, input.benchmarks, policy, products);
  const scaling = planScaling({
    algorithms: repo.algorithms,
    placements,
    git,
    // One answer per node: scaling judges the pools this pass gives, not Git's alone.
    snapshot: observed.decided,
    reading: input.reading,
    recent: input.recent,
    hpa: input.hpa,
    policy,
    now,
    products,
    lookups,
    replicaPods: lookups.replicaPod,
    ...(input.loop ? { loop: input.loop } : {}),
  });
  // A node returns to unused only when no scale-up of this pass counts on it, on a whole answer.
  const pools = returnIdlePools({
    pools: observed.pools,
    nodes: observed.nodes,
    git,
    decisions: scaling.decisions,
    states: scaling.states,
    emptySince: input.emptySince,
    partialData: scaling.pass.metrics.partial,
    policy,
    now,
  });

  const steps: PassSteps = { git, lookups, observed, placements, scaling, pools };
  const inputs = subjectChanges(input, steps);
  // What a removal takes down: each Deployment's Running pods, for the pull request's first line.
  const running = runningReplicas(input.snapshot, lookups);
  const changeSets = inputs
    .map((i) => buildChangeSet({ ...i, running, parseOne: lookups.parse }))
    .filter((c): c is ChangeSet => c !== null);
  const output = planOutput(input, steps, { inputs, changeSets, running });
  const standbySizes = inputs
    .map((i) => (i.kind === 'standby' && i.standby ? standbySizeRecord(i.standby, now) : null))
    .filter((r): r is DecisionRecord => r !== null);
  return { output, changeSets, samples: scaling.pass.samples, standby: scaling.standby, standbySizes };
}

/** What the method's steps decided in one pass, before it is written as files. */
interface PassSteps {
  git: GitModel;
  lookups: PlanLookups;
  /** The pools step on the observed nodes (Git's pool labels overlaid). */
  observed: PoolsStep;
  placements: Placement[];
  scaling: ScalingPlan;
  /** The pools once idle nodes return to `unused` (`returnIdlePools`). */
  pools: PoolAssignment[];
}

/**
 * The change-set inputs of every subject, in the order pools, placement (by name), scale (in the
 * scaling pass's order), standby (by set name); see {@link planDesiredState} for each one's files.
 */
function subjectChanges(input: DesiredStateInput, steps: PassSteps): ChangeSetInput[] {
  const { cluster, repo, now } = input;
  const policy = repo.policy;
  const { git, lookups, observed, placements, scaling, pools } = steps;
  return [
    lookups.poolChanges({
      pools,
      nodes: observed.nodes,
      algorithms: repo.algorithms,
      git,
      policy,
      renderCache: lookups.rendered,
      movedByScaling: movedNodes(scaling.decisions),
    }),
    ...lookups.placementChanges({
      algorithms: repo.algorithms,
      placements,
      git,
      policy,
      templates: input.templates,
      invalidAlgorithms: input.invalidAlgorithms,
      benchmarkRuns: input.benchmarkRuns,
      ...(input.bandProposals ? { bandProposals: input.bandProposals } : {}),
      workloadFiles: lookups.workloadFiles,
      capacity: lookups.capacity(observed.decided),
      ...(input.modelCacheFills ? { modelCacheFills: input.modelCacheFills } : {}),
      ...(input.modelCacheFailures ? { modelCacheFailures: input.modelCacheFailures } : {}),
      ...(input.modelCacheHolds ? { modelCacheHolds: input.modelCacheHolds } : {}),
    }),
    ...scaleChanges({
      step: scaling,
      git,
      pools: observed.pools,
      nodes: observed.nodes,
      policy,
      templates: input.templates,
      now,
      ...(lookups.rendered ? { renderCache: lookups.rendered } : {}),
    }),
    ...standbyChanges({
      cluster,
      policy,
      git,
      samples: new Map([...scaling.pass.attribution.byAlgorithm].map(([a, x]) => [a, x.samples])),
      whole: input.reading.ok && scaling.pass.metrics.partial === null,
      policyErrors: repo.errors.some((e) => e.file.startsWith('policies/')),
      algorithms: repo.algorithms,
      parse: lookups.parse,
      now,
      recent: input.recent,
    }),
  ];
}

/**
 * `gpuops plan`'s output for the pass: the decisions, the planned files (the last change set
 * writing a path wins; sorted by path), the removals kept by `placement.onDeletedSpec`, the
 * warnings (the specs' own as `file:line:column: field: message`, snapshot, GPU product, kept removals) and the rollouts the placement changes start.
 * Optional fields are absent when empty. `running`: each Deployment's Running pods.
 */
function planOutput(
  input: DesiredStateInput,
  steps: PassSteps,
  built: { inputs: ChangeSetInput[]; changeSets: ChangeSet[]; running: ReturnType<typeof runningReplicas> },
): PlanOutput {
  const { cluster, repo } = input;
  const { git, placements, scaling, pools } = steps;
  const { inputs, changeSets, running } = built;
  const policy = repo.policy;
  const planned = new Map<string, PlannedFile>();
  for (const cs of changeSets) for (const f of planFiles(cs.files, git.files)) planned.set(f.path, f);
  const output: PlanOutput = {
    cluster,
    errors: repo.errors,
    pools,
    placements,
    scaling: scaling.decisions,
    files: [...planned.values()].sort((a, b) => byString(a.path, b.path)),
    metrics: scaling.pass.metrics,
  };
  const kept = keptRemovals({
    git,
    inGit: [...repo.algorithms.map((a) => a.name), ...(input.invalidAlgorithms ?? [])],
    policy,
    running,
  });
  if (kept.length > 0) output.kept = kept;
  const warnings = [
    // The specs' own (a ratio-like band, an empty test pool, a spec where gpuops does not read it).
    ...(repo.warnings ?? []).map(formatSpecError),
    ...(input.snapshot.warnings ?? []),
    ...productWarnings(repo.algorithms, input.snapshot),
    ...kept.map((k) => k.message),
  ];
  if (warnings.length > 0) output.warnings = warnings;
  const rollouts = inputs.flatMap((i) => (i.placements ?? []).flatMap((p) => (p.rollout ? [p.rollout] : [])));
  if (rollouts.length > 0) output.rollouts = rollouts as RolloutNote[];
  return output;
}
