/**
 * What one reconciler remembers from one pass to the next (per reconciler, never per module: two
 * reconcilers in one process, or two tests, share nothing). The composition root creates one for
 * every reconciler (`compose/compose.ts`); a one-shot command (`gpuops plan`, `reconcile --once`, a
 * demo step) gets an empty one, so it reads and derives everything. Every memo entry is a pure
 * function's result for the same input, so a hit changes no decision: pure steps never see the
 * memory, only the functions built on it ({@link rememberedLookups}), which give what the plain
 * ones give (`plainLookups`).
 */
import type { RepoFiles, LoadedRepo, Policy, ResolvedAlgorithm, SpecError } from '../definitions/index.js';
import type { FileChange } from '../change-sets/index.js';
import type { WorkloadInput } from '../manifests/index.js';
import { renderWorkloadFiles, RenderCache } from '../manifests/index.js';
import type { UtilizationSource } from '../metrics/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import { createScalingMemo, rememberedScaling, samePooled, type ScalingMemo } from '../scaling/index.js';
import type {
  BenchmarkRun,
  DecisionRecord,
  GitWriteRefusalRecord,
  PoolTaintRecord,
  UtilizationSampleRecord,
} from '../store/index.js';
import { parseGenerated } from './git-model.js';
import type { PlanLookups } from './lookups.js';
import { keptProducts } from './kept-products.js';
import {
  keptAssignments,
  keptGitModel,
  keptPlacementChanges,
  keptPoolChanges,
  keptReplicaPod,
  createKeptSteps,
  type KeptSteps,
} from './kept-steps.js';

/** One algorithm's stored benchmark runs at one spec hash, and their summary at a number of runs. */
export interface RememberedRuns {
  runs: BenchmarkRun[];
  summary?: { wanted: number; outcome: BenchmarkOutcome | null };
}

/**
 * The recorded decisions the last pass read (`decisionsSince`) and what it stored after them, so
 * the next pass reads back only the records from the last stored pass on (`rememberedDecisions`
 * in pass/remembered-reads.ts) instead of twice the longest window of every algorithm.
 */
export interface RememberedDecisions {
  /** The `since` of the read (ms since the epoch): records before it were not read. */
  sinceMs: number;
  /** The subjects read. */
  subjects: ReadonlySet<string>;
  /** Each subject's records as read, oldest first (`decisionsSince`'s order); none: no entry. */
  bySubject: Map<string, DecisionRecord[]>;
  /** The store's `decisionsMark` read before the records (absent: the store has none). */
  mark?: number;
  /**
   * The records the same pass then stored: their time (every record of a pass has the pass's
   * `now`) and how many per subject. Absent: it stored none (dry run, a failed write, not yet).
   * `records` (by subject, as the store reads them back) and `mark` (the store's mark after the
   * write) only when the mark moved by exactly these records: no other writer's came in between.
   */
  stored?: {
    atMs: number;
    at: string;
    count: Map<string, number>;
    records?: Map<string, DecisionRecord[]>;
    mark?: number;
  };
}

/** See the module comment. */
export interface ReconcilerMemory {
  /**
   * The last specs parsed: the same defaults and files give the same repo, so a pass over an
   * unchanged repo (the usual case) skips parsing and validating 1,000 files (~0.7 s at fleet scale).
   */
  specs: { defaults: Policy; files: RepoFiles; repo: LoadedRepo } | undefined;
  /**
   * The YAML files outside the spec folders looked at for misplaced gpuops specs
   * (`pass/misplaced-specs.ts`), by repo-relative path: the blob (or text hash) looked at, its
   * warnings, and whether they were logged. A file whose blob is the same is not read again, and
   * its warnings are logged once per content, not every pass. Absent: none looked at yet.
   */
  misplaced?: Map<string, { key: string; warnings: SpecError[]; logged: boolean }>;
  /**
   * Parsed generated files by their text (null when not YAML). Git's generated files rarely
   * change between passes and the `yaml` parser costs about 1 ms per Deployment. Bounded: the
   * oldest entries go first past {@link PARSED_KEPT}.
   */
  parsed: Map<string, unknown>;
  /**
   * Rendered workload files by algorithm object, the last two renders each (its placement and,
   * when it scales, the new replica count). The specs of an unchanged repo are the same objects
   * pass after pass (see `specs`), so unchanged algorithms are not rendered again.
   */
  workloads: WeakMap<ResolvedAlgorithm, { input: WorkloadInput; files: FileChange[] }[]>;
  /** Rendered YAML documents by their sorted JSON (the Node manifests every pass renders again). */
  rendered: RenderCache;
  /** Spec hashes by algorithm object (an unchanged repo keeps its objects, `specs`). */
  specHashes: WeakMap<ResolvedAlgorithm, string>;
  /**
   * The stored benchmark runs as of the database's `version` (`benchmarkRunsVersion`: it moves
   * with a run recorded by any process), by `algorithm\0specHash` (the keys the last pass asked for).
   */
  benchmarks?: { version: string; byKey: Map<string, RememberedRuns> };
  /** The utilisation samples the last stored pass held (`saveNewSamples`): not stored again. */
  samples: readonly UtilizationSampleRecord[];
  /** When (ms since the epoch) the pass that stored `samples` ran; undefined: none stored yet. */
  samplesStoredAtMs?: number;
  /**
   * Not a memo: the requests of the last pass's utilisation read (`utilizationRequests`) and the
   * source, policy and algorithms they came from (`pass/early-reading.ts`). The next pass sends
   * them again at its start, beside the specs read, and uses that answer only when its own specs
   * give the same requests to the same source. Absent: no read yet (or no source).
   */
  utilization?: {
    source: UtilizationSource;
    policy: Policy;
    algorithms: readonly ResolvedAlgorithm[];
    requests: string;
  };
  /** The recorded decisions the last pass read and stored (`RememberedDecisions`); absent: read all. */
  decisions?: RememberedDecisions;
  /** The scaling step's indexes over the cache's arrays and the decisions whose inputs did not move. */
  scaling: ScalingMemo;
  /**
   * Git's read model while the files under `clusters/<cluster>/` stay, and the pools and placement
   * change sets planned on it while their other inputs stay (`plan/kept-steps.ts`).
   */
  kept: KeptSteps;
  /**
   * Not a memo of a pure function: the permanent Git write refusals (a protected base branch in
   * patch mode) as this reconciler last stored them; undefined until the first pass reads them
   * from the database (`standingRefusals` in pass/write.ts).
   */
  refusals?: GitWriteRefusalRecord[];
  /**
   * Not a memo: the nodes whose pool taint gpuops set in patch mode and has not taken back
   * (`pass/pool-taint-handover.ts`), read with `refusals`; null: none; undefined: not read yet.
   */
  poolTaints?: PoolTaintRecord | null;
  /** Not a memo: the failed model cache fill Jobs already warned about (`newFillFailures`), by `namespace/name`. */
  fillFailuresWarned?: Set<string>;
  /**
   * Not a memo: the fill holds warned about (`newFillHolds`), scope → code (`list <namespace>` →
   * `HTTP 403`): this pass's holds only, so a hold that clears and comes back warns again.
   */
  fillHoldsWarned?: Map<string, string>;
  /**
   * Not a memo: when the pass last read each algorithm's Deployment for the hand-over of
   * `spec.replicas` (`checkedAtMs`, a read that succeeded) and when gpuops's scale patch of it
   * last ran (`scaledAtMs`), epoch milliseconds by `namespace/name` (`pass/handover-schedule.ts`);
   * absent: none read yet.
   */
  deploymentChecks?: Map<string, { checkedAtMs?: number; scaledAtMs?: number }>;
}

/** Entries of {@link ReconcilerMemory.parsed} kept at most. */
export const PARSED_KEPT = 20_000;

/** An empty memory, for one reconciler or one one-shot command. */
export function createReconcilerMemory(): ReconcilerMemory {
  return {
    specs: undefined,
    parsed: new Map(),
    workloads: new WeakMap(),
    rendered: new RenderCache(),
    specHashes: new WeakMap(),
    samples: [],
    scaling: createScalingMemo(),
    kept: createKeptSteps(),
  };
}

/** The plan's functions over `memory`: each gives what `plainLookups`'s gives, kept while its input stays. */
export function rememberedLookups(memory: ReconcilerMemory): PlanLookups {
  const parse = (text: string): unknown => {
    if (memory.parsed.has(text)) return memory.parsed.get(text);
    const doc = parseGenerated(text);
    if (memory.parsed.size >= PARSED_KEPT) memory.parsed.delete(memory.parsed.keys().next().value as string);
    memory.parsed.set(text, doc);
    return doc;
  };
  return {
    ...rememberedScaling(memory.scaling),
    parse,
    gitModel: (cluster, files, labelKey) => keptGitModel(memory.kept, cluster, files, labelKey, parse),
    poolChanges: keptPoolChanges(memory.kept),
    placementChanges: keptPlacementChanges(memory.kept),
    replicaPod: keptReplicaPod(memory.kept),
    workloadFiles: (input) => rememberedWorkloadFiles(memory, input),
    overlay: samePooled(memory.scaling, 'overlays'),
    answer: samePooled(memory.scaling, 'answers'),
    assignments: keptAssignments(memory.kept),
    products: (fresh) => (memory.kept.products = keptProducts(memory.kept.products, fresh)),
    rendered: memory.rendered,
  };
}

/** The workload files of `input`, rendered once per algorithm object and input (the last two inputs each). */
function rememberedWorkloadFiles(memory: ReconcilerMemory, input: WorkloadInput): FileChange[] {
  const seen = memory.workloads.get(input.algorithm) ?? [];
  const hit = seen.find(
    ({ input: x }) =>
      x.pool === input.pool &&
      x.replicas === input.replicas &&
      x.policy === input.policy &&
      x.templates === input.templates &&
      x.cluster === input.cluster &&
      (x.gpuProducts ?? []).join() === (input.gpuProducts ?? []).join(),
  );
  if (hit) return [...hit.files];
  const files = renderWorkloadFiles(input);
  memory.workloads.set(input.algorithm, [{ input, files }, ...seen].slice(0, 2));
  return [...files];
}
