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
}
