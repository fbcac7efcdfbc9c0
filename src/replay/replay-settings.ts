/**
 * The settings of a replay (its modelled delays, thresholds, frontier lists and loops), shared by
 * the simulated engines (`sim-engine.ts`), the model (`model-engine.ts`), the fleet and the report.
 */

/** The modelled delays and thresholds; each default is documented in the README's replay section. */
export interface ReplaySettings {
  /** Pod start-up until Ready: image pull and model load (seconds); default 60. */
  startupSeconds: number;
  /** dcgm-exporter / Prometheus sample delay (seconds); default 15. */
  sampleDelaySeconds: number;
  /** Time between two reconcile passes (seconds); default 30. */
  passIntervalSeconds: number;
  /** PR mode: time until a person merges a pull request (seconds); default 600. */
  mergeDelaySeconds: number;
  /** Utilisation thresholds of the algorithm (percent); default 30 and 80 (the policy's). */
  min: number;
  max: number;
  /** The HPA's target utilisation (percent); default the middle of min and max. */
  hpaTarget: number;
  /** Simulated time before the trace starts, where pull requests merge at once (seconds); default 900. */
  warmupSeconds: number;
  /** GPUs per node of the fleet; default 8. */
  gpusPerNode: number;
  /** β of patch mode's headroom sizing (`scaling.headroomFactor`), fixed before the run; default 1. */
  headroomFactor: number;
  /** The HPA targets (percent) of the frontier; default 40, 45, …, 75. */
  hpaTargets: number[];
  /** The headroom factors of gpuops's frontier; default 0.5 … 2.5. */
  headroomFactors: number[];
  /**
   * The scale-down margins (`scaling.headroomDownMargin`, units of √load) the first-half choice
   * tries with every factor; default 0, 0.25, 0.5, 1, 2. Empty: only the policy's own margin.
   */
  headroomDownMargins: number[];
  /**
   * Text of a Policy document to replay with (`--policy FILE`): committed as `policies/user.yaml`,
   * after the replay's own `policies/replay.yaml`, so its fields win (mode and engine excepted:
   * each simulated engine sets them). Absent: the shipped defaults and `replay.yaml` (`replay-policy.ts`).
   */
  policyText?: string;
  /**
   * The model's tick (seconds); absent: the largest of at most 15 s that represents the delays
   * (`loopTick`). The simulated engines keep their 15 s tick and periodic passes.
   */
  tickSeconds?: number;
  /** gpuops passes on the crossing too (`--event-driven`, the model's trigger); absent: periodic passes only. */
  eventDriven?: boolean;
  /** The replay's own loop draws each new pod's start-up (seconds) from these (`--startup-latency-file`). */
  startupLatencies?: number[];
  /** The loop beside it that draws start-ups on pre-pulled images draws from these (`--loops-latency-file`). */
  loopsLatencies?: number[];
  /** Run the fast loop (and, with latencies, the drawn loop) beside the replay's own; default true. */
  loops?: boolean;
  /**
   * The fleet's shared warm standby: a claim's wake or switch (seconds, claimed → Ready in the
   * service; `--claim-seconds`); absent: `CLAIM_SECONDS` of `standby-run.ts`.
   */
  claimSeconds?: number;
}

/** Defaults of {@link ReplaySettings}. */
export const DEFAULT_REPLAY_SETTINGS: ReplaySettings = {
  startupSeconds: 60,
  sampleDelaySeconds: 15,
  passIntervalSeconds: 30,
  mergeDelaySeconds: 600,
  min: 30,
  max: 80,
  hpaTarget: 55,
  warmupSeconds: 900,
  gpusPerNode: 8,
  headroomFactor: 1,
  hpaTargets: [40, 45, 50, 55, 60, 65, 70, 75],
  headroomFactors: [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5],
  headroomDownMargins: [0, 0.25, 0.5, 1, 2],
};
