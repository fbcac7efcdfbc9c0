import type { LoadModel } from '../load-model.js';

/**
 * Settings of the simulated cluster's behaviour. Every field is optional; defaults are listed.
 */
export interface SimBehaviourConfig {
  /**
   * Simulated run time (seconds) of a run-to-completion container by image: an exact image
   * (`registry/ml/bert:1.0`) or an image prefix (`registry/ml/`); the longest matching key wins.
   * See {@link simulatedRun} for the whole rule.
   */
  durations?: Record<string, number>;
  /** Run time (seconds) when neither an argument nor `durations` says. Default 60. */
  defaultDurationSeconds?: number;
  /**
   * Seconds between a pod's binding and its containers' start (image pull). Default 0. A
   * benchmark that times `startedAt → finishedAt` must not count it.
   */
  startupSeconds?: number;
  /**
   * Seconds to pull one container image that the node does not hold yet, on top of
   * `startupSeconds` (`image-pull.ts`: pulls one after another; an image on the node, e.g. staged
   * by a pre-pull DaemonSet, takes none). Default 0: no image takes time.
   */
  imagePullSeconds?: number;
  /**
   * How the scheduler picks among feasible nodes: `LeastAllocated` (kube-scheduler's default:
   * the node with the most free GPUs) or `MostAllocated` (bin packing: the fewest free GPUs).
   * Ties go to the node name in alphabetical order. Default `LeastAllocated`.
   */
  scoring?: 'LeastAllocated' | 'MostAllocated';
  /** Offered load per algorithm; the HPA controller reads it. Without it HPAs only report. */
  loadModel?: LoadModel;
  /** Seconds between two evaluations of one HPA (kube-controller-manager's 15 s sync period). */
  hpaSyncSeconds?: number;
  /** Scale-down stabilisation of HPAs (seconds); default 300 as Kubernetes. */
  hpaScaleDownStabilizationSeconds?: number;
  /**
   * Include the pass-based garbage collector (`garbage-collector.ts`). Default false:
   * `startSimCluster` runs its own event-driven collector (`src/sim/gc.ts`); turn this on when
   * driving the controllers over a bare store.
   */
  garbageCollection?: boolean;
}

/** {@link SimBehaviourConfig} with every default filled in. */
export interface ResolvedConfig {
  durations: Record<string, number>;
  defaultDurationSeconds: number;
  startupSeconds: number;
  imagePullSeconds: number;
  scoring: 'LeastAllocated' | 'MostAllocated';
  loadModel: LoadModel | undefined;
  hpaSyncSeconds: number;
  hpaScaleDownStabilizationSeconds: number;
  garbageCollection: boolean;
}

/** Fills defaults. @throws Error naming the field when a number is negative or not finite. */
export function resolveConfig(config: SimBehaviourConfig = {}): ResolvedConfig {
  const num = (field: string, value: number | undefined, dflt: number): number => {
    const v = value ?? dflt;
    if (!Number.isFinite(v) || v < 0)
      throw new Error(`sim behaviour config: ${field}: expected a number ≥ 0, got ${value}`);
    return v;
  };
  for (const [image, s] of Object.entries(config.durations ?? {})) num(`durations["${image}"]`, s, 0);
  return {
    durations: { ...(config.durations ?? {}) },
    defaultDurationSeconds: num('defaultDurationSeconds', config.defaultDurationSeconds, 60),
    startupSeconds: num('startupSeconds', config.startupSeconds, 0),
    imagePullSeconds: num('imagePullSeconds', config.imagePullSeconds, 0),
    scoring: config.scoring ?? 'LeastAllocated',
    loadModel: config.loadModel,
    hpaSyncSeconds: num('hpaSyncSeconds', config.hpaSyncSeconds, 15),
    hpaScaleDownStabilizationSeconds: num(
      'hpaScaleDownStabilizationSeconds',
      config.hpaScaleDownStabilizationSeconds,
      300,
    ),
    garbageCollection: config.garbageCollection ?? false,
  };
}
