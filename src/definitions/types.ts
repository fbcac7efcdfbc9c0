/**
 * The documents people commit to a GitOps repo, as TypeScript types: the Algorithm
 * (`algorithm-types.ts`) and the Policy (`policy-types.ts`), both re-exported here, and what loading
 * makes of them (resolved algorithms, located errors, the loaded repo). The JSON Schemas in
 * `src/definitions/schema/` are the source of truth for validation; a compile-time check there proves
 * these types and the schemas agree.
 */
import type { AlgorithmSpec, ServiceMetricPolicy, SignalKind } from './algorithm-types.js';
import type { Policy } from './policy-types.js';

export * from './algorithm-types.js';
export * from './policy-types.js';

/**
 * An algorithm with every default filled from the policy: what the rest of gpuops works on.
 * `source` says where the document came from, for error messages and PR bodies.
 */
export interface ResolvedAlgorithm {
  name: string;
  namespace: string;
  spec: AlgorithmSpec;
  /**
   * Replica limits and the band: percent for the GPU signals, the metric's own unit for
   * `serviceMetric` (its spec's `serviceMetric.min`/`max`).
   */
  scaling: { minReplicas: number; maxReplicas: number; utilization: { min: number; max: number } };
  /** What it is scaled on, resolved against the policy; absent: `gpuUtil` (`signals.ts` `signalOf`). */
  signal?: ResolvedSignal;
  /** `queueName`: the spec's, else the policy's (absent: none). */
  benchmark: { args: string[] | undefined; runs: number; timeoutSeconds: number; queueName?: string };
  placement: 'auto' | 'long-task' | 'short-task';
  /**
   * The Algorithm's `metadata.annotations`, put on the pods of its benchmark Jobs (a sidecar
   * opt-out, a cost-centre tag; the simulated cluster reads `sim.gpuops.dev/run-seconds` there);
   * absent when the spec sets none.
   */
  annotations?: Record<string, string>;
  source: { file: string; line: number };
}

/** An algorithm's signal with the policy's metric template, when it is a service metric. */
export interface ResolvedSignal {
  kind: SignalKind;
  /** `%` for the GPU signals, the service metric's unit otherwise. */
  unit: string;
  /** With `serviceMetric`: the policy's entry. */
  serviceMetric?: ServiceMetricPolicy;
}

/**
 * One located problem in a file people wrote; the shape of `errors[]` in `validate` and `plan`
 * JSON output. `line` and `column` are 1-based.
 */
export interface SpecError {
  file: string;
  line: number;
  column: number;
  /** Dotted path of the offending field, e.g. `spec.resources.gpus`; `""` for the whole document. */
  field: string;
  message: string;
}

/**
 * Everything gpuops reads from a GitOps repo's `algorithms/` and `policies/`: the merged policy,
 * the valid algorithms (defaults filled), every located error, and how many files were read
 * (Algorithm and Policy files of the repo; the shipped default policy does not count).
 */
export interface LoadedRepo {
  policy: Policy;
  algorithms: ResolvedAlgorithm[];
  errors: SpecError[];
  /**
   * Values that are valid but most likely meant otherwise (a ratio-like utilisation band, an
   * empty test pool: `rules/spec-warnings.ts`) and, read from a folder, gpuops specs in places
   * gpuops does not read (`misplaced-specs.ts`); sorted like `errors`. They refuse nothing.
   * Absent: none.
   */
  warnings?: SpecError[];
  files: number;
  /**
   * Per Algorithm file (repo-relative path): the `metadata.name` of every document that has a
   * readable one, those that failed validation included; absent when not parsed from files.
   */
  names?: ReadonlyMap<string, readonly string[]>;
  /**
   * The `policies/` files merged over the shipped default into `policy`, in the order they apply
   * (a file whose every document was refused is not here); absent when not parsed from files.
   */
  policyFiles?: readonly string[];
}
