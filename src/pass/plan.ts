/**
 * The plan step of a pass (pure): the world as read, and the benchmark outcomes of this pass,
 * into `planDesiredState`. `gpuops plan` and the reconcile pass both call it, so what `plan`
 * prints is what `reconcile` writes.
 */
import {
  planDesiredState,
  type DesiredState,
  rememberedLookups,
  type ReconcilerMemory,
} from '../plan/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { LoopTiming } from '../scaling/index.js';
import { worldWithBands } from './proposed-bands.js';
import type { PassBenchmarks, World } from './world.js';

/**
 * Plans the pass from `world`: pools, placement, scaling, rendering and change sets.
 * `benchmarks`: the outcomes after the benchmark step (`benchmarksOfPass`); default the stored
 * ones the world holds (`gpuops plan` starts no benchmark). `memory`: the reconciler's (the plan's
 * steps get the functions built on it); `loop`: `gpuops run`'s delays, which the scaling windows follow.
 */
export function planWorld(
  world: World,
  o: {
    templates: WorkloadTemplates;
    memory: ReconcilerMemory;
    benchmarks?: PassBenchmarks;
    loop?: LoopTiming;
  },
): DesiredState {
  const benchmarks = o.benchmarks ?? world.benchmarks;
  // Idempotent: the reconcile pass has put them in already (its write phase judges the same band).
  world = worldWithBands(world, benchmarks);
  return planDesiredState({
    cluster: world.cluster,
    repo: world.repo,
    invalidAlgorithms: world.kept,
    snapshot: world.snapshot,
    base: world.git.files,
    git: world.git,
    benchmarks: benchmarks.outcomes,
    benchmarkRuns: benchmarks.runs,
    ...(benchmarks.bands?.size ? { bandProposals: benchmarks.bands } : {}),
    templates: o.templates,
    lookups: rememberedLookups(o.memory),
    ...(o.loop ? { loop: o.loop } : {}),
    now: world.now,
    recent: world.recent,
    reading: world.reading,
    runningBenchmarks: world.runningBenchmarks,
    ...(world.hpa ? { hpa: world.hpa } : {}),
    ...(world.emptySince ? { emptySince: world.emptySince } : {}),
    ...(world.modelCacheFills ? { modelCacheFills: world.modelCacheFills } : {}),
    ...(world.modelCacheFailures ? { modelCacheFailures: world.modelCacheFailures } : {}),
    ...(world.modelCacheHolds ? { modelCacheHolds: world.modelCacheHolds } : {}),
  });
}
