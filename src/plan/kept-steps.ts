/**
 * Steps of the plan kept whole from one pass to the next while their inputs stay: the pool
 * assignments while the nodes are the same objects ({@link keptAssignments}), Git's read
 * model while the files under `clusters/<cluster>/` are the same, then the `pools` change set,
 * the `placement/<name>` change sets and each Deployment's replica pod while that model is the
 * same object and every other input is equal. In a steady pass (utilisation moved, no decision changed) the base branch head has not
 * moved, so none of them is planned again; a moved head that changes a file there (a merged pull
 * request, a person's commit, gpuops's own patch commit, a retried push that fetched another
 * writer's commit) gives a fresh model, so every step keyed on it is planned afresh.
 *
 * Each function gives exactly what the plain step gives for the same input (`readGitModel`,
 * `poolChanges`, `placementChanges`): a hit only skips the work. The other inputs are compared
 * by content (`isDeepStrictEqual`, which answers at once for the same object: an unchanged repo's
 * algorithms, the scaling memo's node capacity; {@link sameRecords} for the placements and pool
 * assignments every pass rebuilds), so a hit never rests on an object that merely looks the same.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ChangeSetInput } from '../change-sets/index.js';
import { readGitModel, type GitDeployment, type GitModel } from './git-model.js';
import { placementChanges, type PlacementChangesInput } from './placement.js';
import { poolChanges, type PoolChangesInput } from './pool-changes.js';
import { replicaPod, type ReplicaPod } from './scaling.js';
import { poolAssignments, type AssignmentsInput } from './assignments.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { PoolAssignment } from '../pools/index.js';
import type { AlgorithmProducts } from '../placement/index.js';

/** What {@link keptGitModel}, {@link keptPoolChanges}, {@link keptPlacementChanges} and {@link keptReplicaPod} keep. */
export interface KeptSteps {
  /** The last read model and what it was built from. */
  git?: { cluster: string; labelKey: string; files: ReadonlyMap<string, string>; model: GitModel };
  /** The last `pools` change-set input and the input it was planned from. */
  pools?: { input: PoolChangesInput; out: ChangeSetInput };
  /** The last placement change-set inputs and the input they were planned from. */
  placement?: { input: PlacementChangesInput; out: ChangeSetInput[] };
  /** What one replica is, by the Deployment of the kept model it was read from, and its namespace. */
  replicaPods: WeakMap<GitDeployment, { namespace: string; out: ReplicaPod }>;
  /** The last pass's GPU products by algorithm name, each frozen (`kept-products.ts`). */
  products?: ReadonlyMap<string, AlgorithmProducts>;
  /** The last pool assignments (frozen) and a copy of the input they were made from. */
  assignments?: { input: AssignmentsInput; out: readonly PoolAssignment[] };
}

/** Nothing kept yet: what a new reconciler memory holds. */
export function createKeptSteps(): KeptSteps {
  return { replicaPods: new WeakMap() };
}

/** Whether two file maps hold the same paths with the same content (a kept tree: the same strings). */
function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [path, text] of a) if (b.get(path) !== text) return false;
  return true;
}

/**
 * `readGitModel(cluster, files, labelKey, parse)`, the same object as last time while the cluster,
 * the label key and every file (path and content) are the same; else built afresh and kept.
 * @param parse how a file is parsed (a reconciler's parse memo)
 */
export function keptGitModel(
  kept: KeptSteps,
  cluster: string,
  files: ReadonlyMap<string, string>,
  labelKey: string,
  parse: (text: string) => unknown,
): GitModel {
  const last = kept.git;
  if (last && last.cluster === cluster && last.labelKey === labelKey && sameFiles(last.files, files))
    return last.model;
  const model = readGitModel(cluster, files, labelKey, parse);
  kept.git = { cluster, labelKey, files, model };
  return model;
}

/**
 * Whether two lists of records (pool assignments, placements: rebuilt every pass) are equal: the
 * same keys, each value the same or, for an object, deeply equal. As `isDeepStrictEqual` answers
 * for such records, without its per-object cost on the thousands of them a fleet has.
 */
export function sameRecords(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as Record<string, unknown>;
    const y = b[i] as Record<string, unknown>;
    if (x === y) continue;
    if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
    const keys = Object.keys(x);
    if (keys.length !== Object.keys(y).length) return false;
    for (const k of keys) {
      const u = x[k];
      const v = y[k];
      if (u === v && Object.hasOwn(y, k)) continue;
      if (typeof u !== 'object' || u === null || !isDeepStrictEqual(u, v)) return false;
    }
  }
  return true;
}

/** A change-set input whose file list the caller may change without touching the kept one. */
const copied = (c: ChangeSetInput): ChangeSetInput => ({ ...c, files: [...c.files] });

/** A kept step's last input and the answer planned from it. */
interface Kept<I, O> {
  input: I;
  out: O;
}

/** What {@link keptStep} needs to know of one change-set step. */
interface StepShape<I, O> {
  /** The plain step. */
  plan: (input: I) => O;
  /** The field of records every pass rebuilds, compared with {@link sameRecords}. */
  records: keyof I;
  /** The field that is a memo of a pure render, not an input: never compared. */
  memo: keyof I;
  /** The answer to hand out: a copy whose file lists the caller may change, for this input. */
  copy: (out: O, input: I) => O;
  /** The kept input and answer, and where a new one is kept. */
  read: () => Kept<I, O> | undefined;
  write: (kept: Kept<I, O>) => void;
}

/**
 * A change-set step kept while the read model (`git`) is the same object, the `records` are
 * equal ({@link sameRecords}) and every other input but the `memo` is deeply equal; else planned
 * afresh and kept. A hit returns what the plain step would: only the work is skipped.
 */
function keptStep<I extends { git: object }, O>(step: StepShape<I, O>): (input: I) => O {
  const blank = (input: I): I => ({ ...input, git: null, [step.records]: null, [step.memo]: null });
  return (input) => {
    const last = step.read();
    if (
      last &&
      last.input.git === input.git &&
      sameRecords(last.input[step.records] as object[], input[step.records] as object[]) &&
      isDeepStrictEqual(blank(last.input), blank(input))
    )
      return step.copy(last.out, input);
    const out = step.plan(input);
    step.write({ input, out });
    return step.copy(out, input);
  };
}

/**
 * `poolChanges`, kept while the read model is the same object and the pool assignments, nodes,
 * algorithms, policy and the nodes scaling moves are equal (the render cache is a memo, not an
 * input). The answer carries this pass's assignments (`pools`), equal to the kept ones.
 */
export function keptPoolChanges(kept: KeptSteps): (input: PoolChangesInput) => ChangeSetInput {
  return keptStep({
    plan: poolChanges,
    records: 'pools',
    memo: 'renderCache',
    copy: (out, input) => ({ ...copied(out), pools: input.pools }),
    read: () => kept.pools,
    write: (k) => (kept.pools = k),
  });
}

/**
 * `placementChanges`, kept while the read model is the same object and every other input is equal
 * (placements, algorithms, policy, templates, invalid specs, benchmark runs, proposed bands, node
 * capacity, model cache fills); `workloadFiles` is a memo of a pure render, not an input.
 */
export function keptPlacementChanges(kept: KeptSteps): (input: PlacementChangesInput) => ChangeSetInput[] {
  return keptStep({
    plan: placementChanges,
    records: 'placements',
    memo: 'workloadFiles',
    copy: (out) => out.map(copied),
    read: () => kept.placement,
    write: (k) => (kept.placement = k),
  });
}

/**
 * `replicaPod`, kept per Deployment of the read model (the same object while the model is kept)
 * and the algorithm's namespace (the rest of the algorithm is not read). The answer is shared
 * pass to pass: no step changes a replica's constraints or requests.
 */
export function keptReplicaPod(kept: KeptSteps): (alg: ResolvedAlgorithm, git: GitDeployment) => ReplicaPod {
  return (alg, git) => {
    const last = kept.replicaPods.get(git);
    if (last?.namespace === alg.namespace) return last.out;
    const out = replicaPod(alg, git);
    kept.replicaPods.set(git, { namespace: alg.namespace, out });
    return out;
  };
}

/**
 * `poolAssignments`, the same (frozen) answer as last time while the nodes are the same objects in
 * the same order (the watch cache and the overlay memo hand them out again while a node stays),
 * the policy's `pools` is the same object, and the running benchmarks and the product needs are
 * equal (values in order); else assigned afresh and kept. Those four are all it reads. Callers
 * never change the answer (`returnIdleNodes` and `coverTestProducts` change copies): it is frozen,
 * so one that did would throw.
 */
export function keptAssignments(kept: KeptSteps): (input: AssignmentsInput) => PoolAssignment[] {
  return (input) => {
    const last = kept.assignments;
    if (last && sameAssignmentsInput(last.input, input)) return last.out as PoolAssignment[];
    const out = Object.freeze(poolAssignments(input).map((a) => Object.freeze(a)));
    // A copy: the caller's arrays are not kept (the needs are built anew each pass anyway).
    kept.assignments = {
      input: {
        nodes: [...input.nodes],
        pools: input.pools,
        runningBenchmarks: [...input.runningBenchmarks],
        productNeeds: input.productNeeds.map((n) => ({ algorithm: n.algorithm, products: [...n.products] })),
      },
      out,
    };
    return out as PoolAssignment[];
  };
}

/** Whether {@link keptAssignments}' kept answer holds for `b` (see there). */
function sameAssignmentsInput(a: AssignmentsInput, b: AssignmentsInput): boolean {
  return (
    a.pools === b.pools &&
    sameValues(a.nodes, b.nodes) &&
    sameValues(a.runningBenchmarks, b.runningBenchmarks) &&
    a.productNeeds.length === b.productNeeds.length &&
    a.productNeeds.every(
      (n, i) =>
        n.algorithm === b.productNeeds[i]!.algorithm && sameValues(n.products, b.productNeeds[i]!.products),
    )
  );
}

/** The same values (`===`) in the same places. */
function sameValues<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
