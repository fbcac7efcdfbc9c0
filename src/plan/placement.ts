/**
 * The placement step (pure): each algorithm's pool from its benchmark, then the placement change
 * sets: its Deployment (with the replica count Git holds) and HPA, or their deletion.
 */
import type { ChangeSetInput, FileChange } from '../change-sets/index.js';
import {
  isKustomizationFile,
  renderWorkloadFiles,
  workloadDeletions,
  type WorkloadInput,
  algorithmVendor,
} from '../manifests/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { AlgorithmProducts, BenchmarkOutcome, Placement } from '../placement/index.js';
import { place } from '../placement/index.js';
import type { BenchmarkRun } from '../store/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { specRequest } from '../scaling/index.js';
import type { NodeCapacity } from '../scaling/index.js';
import type { BandNotProposed, BandProposal } from '../benchmark/index.js';
import { rolloutNote } from './rollout.js';
import type { GitModel } from './git-model.js';
import { byString, NVIDIA } from '../util/index.js';
import { keepsDeletedSpecs } from './deleted-specs.js';
import { fillWait, holdUntilFilled, type FillStates } from './model-cache.js';
import { fillFailureText, type FillFailure } from './fill-failure.js';
import type { FillHold } from './fill-hold.js';

/**
 * One placement per algorithm, in the order given (`place`: run time above
 * `placement.longTaskThresholdSeconds` → long-task; a pinned pool wins; no benchmark → pending),
 * with the GPU products it runs on (`products`, by algorithm; a placement's Deployment gets their
 * required node affinity).
 * @param benchmarks outcome at each algorithm's current spec hash; absent = not benchmarked
 */
export function planPlacements(
  algorithms: readonly ResolvedAlgorithm[],
  benchmarks: ReadonlyMap<string, BenchmarkOutcome>,
  policy: Policy,
  products?: ReadonlyMap<string, AlgorithmProducts>,
): Placement[] {
  return algorithms.map((alg) => {
    const p = place(
      { algorithm: alg.name, pinned: alg.placement, benchmark: benchmarks.get(alg.name) ?? null },
      policy.spec.placement.longTaskThresholdSeconds,
    );
    const gpu = products?.get(alg.name);
    if (!gpu || gpu.source === 'none') return p;
    const vendor = algorithmVendor(alg.spec);
    return { ...p, gpu: vendor === NVIDIA ? gpu : { ...gpu, productLabel: vendor.productLabel } };
  });
}

/** Inputs of {@link placementChanges}. */
export interface PlacementChangesInput {
  algorithms: readonly ResolvedAlgorithm[];
  placements: readonly Placement[];
  git: Pick<GitModel, 'cluster' | 'files' | 'deployments' | 'algorithmFolders'>;
  policy: Policy;
  templates: WorkloadTemplates;
  /** Algorithms whose spec fails validation: what Git holds for them stays. */
  invalidAlgorithms?: readonly string[];
  /** Benchmark runs behind each outcome, for the PR body's evidence. */
  benchmarkRuns?: ReadonlyMap<
    string,
    readonly Pick<BenchmarkRun, 'run' | 'status' | 'durationSeconds' | 'node' | 'gpuProduct'>[]
  >;
  /** The band proposed from its benchmark (or why none), by algorithm, for the PR body's evidence. */
  bandProposals?: ReadonlyMap<string, BandProposal | BandNotProposed>;
  /** How an algorithm's workload files are rendered; default `renderWorkloadFiles` (a reconciler's keeps them). */
  workloadFiles?: (input: WorkloadInput) => FileChange[];
  /**
   * Every GPU node's room now (`nodeCapacity` of the snapshot): whether a rollout's surge pod fits
   * (`plan/rollout.ts`). Absent: no rollout is judged.
   */
  capacity?: readonly NodeCapacity[];
  /**
   * The model cache fill Jobs read this pass (`plan/model-cache.ts`): a Deployment that reads a
   * cache is written only once its fill is Complete. Absent: none read (none is Complete).
   */
  modelCacheFills?: FillStates;
  /** The failed fill Jobs among them, with why (the pull request says it); absent: none failed. */
  modelCacheFailures?: ReadonlyMap<string, FillFailure>;
  /** The fills read `Unknown` with why (`fill-hold.ts`; the pull request says it); absent: none. */
  modelCacheHolds?: ReadonlyMap<string, FillHold>;
}

/**
 * One `placement/<name>` change-set input per algorithm folder whose files are rendered or
 * deleted (sorted by name): the placed algorithms' workload files with the replica count Git
 * holds, and the deletion of folders whose algorithm left `algorithms/` (never of an invalid
 * spec's; none with `placement.onDeletedSpec: keep-and-report`). The old layout's kustomization files are left to the pools subject. A Deployment whose
 * pod template changes carries its rollout note (`placements[0].rollout`, `plan/rollout.ts`).
 */
export function placementChanges(input: PlacementChangesInput): ChangeSetInput[] {
  const { git, policy } = input;
  const cluster = git.cluster;
  const placementOf = new Map(input.placements.map((p) => [p.algorithm, p]));
  const algorithmOf = new Map(input.algorithms.map((a) => [a.name, a]));
  const { rendered, rollouts, waits } = renderPlaced(input, placementOf);
  // keep-and-report: a deleted spec's folder stays as if its spec were there (`plan/deleted-specs.ts`).
  const kept = keepsDeletedSpecs(policy) ? git.algorithmFolders : [];
  const deletions = workloadDeletions({
    cluster,
    algorithmsInGit: [...input.algorithms.map((a) => a.name), ...(input.invalidAlgorithms ?? []), ...kept],
    present: [...git.files.keys()],
    rendered,
  });
  const bySubject = new Map<string, FileChange[]>();
  const prefix = `clusters/${cluster}/algorithms/`;
  for (const f of [...rendered, ...deletions]) {
    if (isKustomizationFile(f.path)) continue;
    const name = f.path.slice(prefix.length).split('/')[0]!;
    bySubject.set(name, [...(bySubject.get(name) ?? []), f]);
  }
  return [...bySubject]
    .sort(([a], [b]) => byString(a, b))
    .map(([name, files]) => {
      const p = placementOf.get(name);
      return {
        cluster,
        kind: 'placement' as const,
        subject: name,
        files,
        current: git.files,
        labels: policy.spec.pullRequests.labels,
        ...(p
          ? {
              placements: [
                placementEvidence(input, p, algorithmOf.get(name), rollouts.get(name), waits.get(name)),
              ],
            }
          : {}),
      };
    });
}

type Rollout = NonNullable<ReturnType<typeof rolloutNote>>;
type Wait = NonNullable<ReturnType<typeof fillWait>>;

/**
 * Renders the workload files of every placed algorithm (those with a pool), with the replica count
 * Git holds, and judges the rollout of each Deployment whose pod template changes (only when
 * `input.capacity` is given). Returns the files in algorithm order, the rollout notes and the
 * Deployments held for their model cache fill (`plan/model-cache.ts`), by name.
 */
function renderPlaced(
  input: PlacementChangesInput,
  placementOf: ReadonlyMap<string, Placement>,
): { rendered: FileChange[]; rollouts: Map<string, Rollout>; waits: Map<string, Wait> } {
  const { git, policy } = input;
  const cluster = git.cluster;
  const rendered: FileChange[] = [];
  const rollouts = new Map<string, Rollout>();
  const waits = new Map<string, Wait>();
  const fills = input.modelCacheFills ?? new Map();
  for (const alg of input.algorithms) {
    const pool = placementOf.get(alg.name)?.pool;
    if (!pool) continue;
    const replicas = git.deployments.get(alg.name)?.replicas ?? undefined;
    const workload = {
      algorithm: alg,
      pool,
      gpuProducts: placementOf.get(alg.name)?.gpu?.products ?? [],
      policy: policy.spec,
      cluster,
      templates: input.templates,
      replicas,
    };
    const path = `clusters/${cluster}/algorithms/${alg.name}/deployment.yaml`;
    const all = (input.workloadFiles ?? renderWorkloadFiles)(workload);
    const inGit = git.deployments.get(alg.name);
    const files = holdUntilFilled(all, alg, path, inGit, fills);
    const wait = fillWait(alg, inGit, fills);
    if (wait) waits.set(alg.name, withWhy(wait, input));
    rendered.push(...files);
    const desired = files.find((f) => f.path === path)?.content;
    const note =
      input.capacity && desired
        ? rolloutNote({
            algorithm: alg.name,
            pool,
            current: git.files.get(path),
            desired,
            rollout: policy.spec.rollout,
            capacity: input.capacity,
            request: specRequest(alg),
          })
        : null;
    if (note) rollouts.set(alg.name, note);
  }
  return { rendered, rollouts, waits };
}

/**
 * `wait` with why its fill holds the Deployment, when the pass knows: a `Failed` Job's condition
 * (`reason: message`), or why an `Unknown` fill could not be read (`fill-hold.ts`).
 */
function withWhy(wait: Wait, input: PlacementChangesInput): Wait {
  const failure = wait.state === 'Failed' ? input.modelCacheFailures?.get(wait.job) : undefined;
  if (failure) return { ...wait, reason: fillFailureText(failure) };
  const hold = wait.state === 'Unknown' ? input.modelCacheHolds?.get(wait.job) : undefined;
  return hold ? { ...wait, reason: hold.why } : wait;
}

/**
 * The placement pull request's evidence for one placed algorithm: its placement, the benchmark
 * runs behind it, the long-task threshold (seconds), its rollout note, proposed band and model
 * cache wait when there are any, and what the spec asks (replica bounds, GPUs per pod) when the spec is valid.
 */
function placementEvidence(
  input: PlacementChangesInput,
  p: Placement,
  alg: ResolvedAlgorithm | undefined,
  rollout: Rollout | undefined,
  wait: Wait | undefined,
): NonNullable<ChangeSetInput['placements']>[number] {
  const name = p.algorithm;
  return {
    placement: p,
    runs: [...(input.benchmarkRuns?.get(name) ?? [])],
    longTaskThresholdSeconds: input.policy.spec.placement.longTaskThresholdSeconds,
    ...(rollout ? { rollout } : {}),
    ...(wait ? { fillWait: wait } : {}),
    ...(input.bandProposals?.has(name) ? { band: input.bandProposals.get(name)! } : {}),
    ...(alg
      ? {
          asks: {
            minReplicas: alg.scaling.minReplicas,
            maxReplicas: alg.scaling.maxReplicas,
            gpusPerPod: alg.spec.resources.gpus,
          },
        }
      : {}),
  };
}
