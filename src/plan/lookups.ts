/**
 * What the plan's steps derive again and again from the same input (pure), as functions: parsing
 * Git's generated files and building its read model, rendering workloads and Node manifests, giving
 * a node the pool of this pass, the pools and placement change sets, and the scaling step's indexes
 * and decisions ({@link ScalingLookups}). A one-shot plan
 * uses {@link plainLookups}; a reconciler uses the ones its memory builds (`rememberedLookups`,
 * `plan/memory.ts`), which give the same answers and derive again only what moved.
 */
import type { NodeInfo } from '../cluster/index.js';
import type { Pool, ResolvedAlgorithm } from '../definitions/index.js';
import type { FileChange, ChangeSetInput } from '../change-sets/index.js';
import type { RenderCache } from '../manifests/index.js';
import { renderWorkloadFiles, type WorkloadInput } from '../manifests/index.js';
import { plainLookups as plainScaling, type ScalingLookups } from '../scaling/index.js';
import { parseGenerated, readGitModel, type GitDeployment, type GitModel } from './git-model.js';
import { placementChanges, type PlacementChangesInput } from './placement.js';
import { poolChanges, type PoolChangesInput } from './pool-changes.js';
import { replicaPod, type ReplicaPod } from './scaling.js';
import { poolAssignments, type AssignmentsInput } from './assignments.js';
import type { PoolAssignment } from '../pools/index.js';
import type { AlgorithmProducts } from '../placement/index.js';

/** See the module comment. Callers only read what the functions give. */
export interface PlanLookups extends ScalingLookups {
  /** A generated file parsed (`parseGenerated`: null when it is not YAML). */
  parse(text: string): unknown;
  /** An algorithm's workload files (`renderWorkloadFiles`). */
  workloadFiles(input: WorkloadInput): FileChange[];
  /** `node` with the pool Git gives it (`planPools`). */
  overlay(node: NodeInfo, pool: Pool | null): NodeInfo;
  /** `node` with the pool this pass's assignment gives it (`withAnswers`). */
  answer(node: NodeInfo, pool: Pool | null): NodeInfo;
  /** Every node's pool assignment (`poolAssignments`); callers never change the answer. */
  assignments(input: AssignmentsInput): PoolAssignment[];
  /** Node manifests rendered before, by their document (`renderYaml`); absent: render every one. */
  rendered?: RenderCache;
  /** Git's read model of `files` (`readGitModel` with {@link parse}). */
  gitModel(cluster: string, files: ReadonlyMap<string, string>, labelKey: string): GitModel;
  /** The `pools` change-set input (`poolChanges`). */
  poolChanges(input: PoolChangesInput): ChangeSetInput;
  /** The `placement/<name>` change-set inputs (`placementChanges`). */
  placementChanges(input: PlacementChangesInput): ChangeSetInput[];
  /** What one replica of a Deployment in Git is (`replicaPod`). */
  replicaPod(alg: ResolvedAlgorithm, git: GitDeployment): ReplicaPod;
  /**
   * The pass's GPU products by algorithm (`productsOf`'s answer), each entry equal to the last
   * pass's replaced by that very object (`keptProducts`); absent: `fresh` as it is.
   */
  products?(fresh: Map<string, AlgorithmProducts>): Map<string, AlgorithmProducts>;
}

/** Every answer derived afresh: what a one-shot plan uses. */
export const plainLookups: PlanLookups = {
  ...plainScaling,
  parse: (text) => parseGenerated(text),
  workloadFiles: (input) => renderWorkloadFiles(input),
  overlay: (node, pool) => ({ ...node, pool }),
  answer: (node, pool) => ({ ...node, pool }),
  assignments: poolAssignments,
  gitModel: (cluster, files, labelKey) => readGitModel(cluster, files, labelKey, parseGenerated),
  poolChanges,
  placementChanges,
  replicaPod,
};
