import type { AlgorithmProducts } from './gpu-products.js';

/** Machine reasons of a placement. */
export type PlacementReason =
  'AboveThreshold' | 'BelowThreshold' | 'Pinned' | 'BenchmarkPending' | 'BenchmarkFailed';

/** Where one algorithm runs; one `placements[]` entry of `plan`. `pool` is null when not placed. */
export interface Placement {
  algorithm: string;
  pool: 'long-task' | 'short-task' | null;
  /** Median benchmark run time (seconds), or null without a successful benchmark. */
  runTimeSeconds: number | null;
  reason: PlacementReason;
  message: string;
  /**
   * The GPU products its pods run on (`algorithmProducts`): those `spec.gpu.product` names, else
   * those its benchmark was measured on; absent when none is known (any product of the pool).
   */
  gpu?: AlgorithmProducts;
}

/**
 * What placement needs of an algorithm's benchmark at its current spec hash (built by
 * `src/benchmark/` from the stored runs). `Pending`: not benchmarked yet, or still running, or
 * waiting for a free test GPU. `medianSeconds` is set only when `status` is `Succeeded`.
 */
export interface BenchmarkOutcome {
  status: 'Succeeded' | 'Failed' | 'TimedOut' | 'Unschedulable' | 'Pending';
  /** Median run time of the successful runs (seconds). */
  medianSeconds: number | null;
  /** Why, for the placement message (e.g. the failed run's termination message). */
  message: string;
}

/** The input of one placement decision. */
export interface PlacementInput {
  algorithm: string;
  /** `spec.placement.pool` resolved: `auto`, or a pool that forces the placement. */
  pinned: 'auto' | 'long-task' | 'short-task';
  /** The benchmark at the current spec hash, or null when none is known. */
  benchmark: BenchmarkOutcome | null;
}
