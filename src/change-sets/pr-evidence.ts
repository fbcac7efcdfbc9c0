/**
 * The evidence a pull request shows (pure types): the benchmark runs behind a placement and the
 * utilisation behind a scaling decision. Shared by the body (`pr-body.ts`), its sections
 * (`pr-sections.ts`) and the title (`pr-title.ts`).
 */
import type { BandNotProposed, BandProposal } from '../benchmark/index.js';
import type { Placement } from '../placement/index.js';
import type { PodSample, ScalingDecision } from '../scaling/index.js';
import type { BenchmarkRun } from '../store/index.js';

/** Benchmark evidence for one placement: the runs behind the median, and the threshold (seconds). */
export interface PlacementEvidence {
  placement: Placement;
  runs: Pick<BenchmarkRun, 'run' | 'status' | 'durationSeconds' | 'node' | 'gpuProduct'>[];
  /** `placement.longTaskThresholdSeconds` of the policy. */
  longTaskThresholdSeconds: number;
  /** The rollout merging it starts, when the Deployment's pod template changes (`plan/rollout.ts`). */
  rollout?: { reason: string; message: string };
  /**
   * What the spec asks for, as resolved (its own values, else the policy's defaults; both within
   * the policy's `limits`): replicas and GPUs per pod. Absent in evidence recorded before.
   */
  asks?: { minReplicas: number; maxReplicas: number; gpusPerPod: number };
  /** With `scaling.targets: fromBenchmark`: the band proposed from the benchmark, or why none was. */
  band?: BandProposal | BandNotProposed;
  /** The Deployment is held for its model cache fill (`plan/model-cache.ts`); absent when it is not. */
  fillWait?: FillWait;
}

/**
 * A Deployment held until its model cache fill Job is Complete: the Job (`namespace/name`), its
 * state as this pass read it (`Running`, `Failed`, `Absent`, `Unknown`; `NotRead`: the Job is not
 * in Git yet, so it was not looked for), and whether Git's Deployment stays as it is (`kept`) or
 * there is none yet (`none`).
 */
export interface FillWait {
  job: string;
  state: 'Running' | 'Failed' | 'Absent' | 'Unknown' | 'NotRead';
  deployment: 'kept' | 'none';
  /**
   * With `Failed`: the Job's `Failed` condition, `reason: message` (`BackoffLimitExceeded: …`);
   * with `Unknown`: why it could not be read (its namespace's list failed, Git's Job is unlabelled).
   */
  reason?: string;
}

/** Utilisation evidence for one scaling decision (percent) and the bounds it was compared with. */
export interface ScalingEvidence {
  decision: ScalingDecision;
  /** The per-pod ("first") utilisation samples the aggregate came from. */
  pods: PodSample[];
  /** `scaling.utilization.min` / `.max` (percent). */
  min: number;
  max: number;
  minReplicas: number;
  maxReplicas: number;
}

/**
 * What sizes a standby set (docs/standby.md): the load of the algorithms it serves and the pods
 * `ceil(β·√ΣL / (gpus × max/100))` that gives (`plan/standby-changes.ts`).
 */
export interface StandbyEvidence {
  set: string;
  pool: string;
  namespace: string;
  algorithms: string[];
  /** ΣL, GPUs; null when the reading failed or came in part (the set keeps at least Git's pods). */
  loadGpus: number | null;
  beta: number;
  gpus: number;
  /** `scaling.utilization.max` (percent). */
  max: number;
  /** Pods of the standby Deployment: in Git (null: no file yet) and planned. */
  replicas: { from: number | null; to: number };
}
