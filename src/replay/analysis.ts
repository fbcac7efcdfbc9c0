/**
 * The analysis beside a replay's engines (pure): both frontiers, gpuops's lead over the HPA at
 * equal unserved load, the headroom factor chosen on the first half, and the model's figures at
 * the simulated engines' own parameters (so the model can be checked against the real controller).
 */
import type { Policy } from '../definitions/types.js';
import type { EngineFigures } from './figures.js';
import {
  chooseOnFirstHalf,
  frontierGap,
  frontiers,
  gpuopsPoint,
  hpaPoint,
  type FirstHalfChoice,
  type FrontierGap,
  type FrontierOptions,
  type Frontiers,
} from './frontier.js';
import type { ModelSettings } from './model-engine.js';
import { patchPolicy, type PolicySettings } from './replay-policy.js';
import type { Trace } from './trace.js';

/** The one-service limits β (and the scale-down margin) are chosen under (the targets, percent). */
export const ONE_SERVICE_LIMITS = { aboveMaxPercent: 2, unservedPercent: 0.5 } as const;

/** What {@link analyse} finds. */
export interface ReplayAnalysis {
  frontiers: Frontiers;
  gap: FrontierGap;
  /** β (and the scale-down margin) chosen on the first half, and its figures on each half and the whole (model). */
  chosen: FirstHalfChoice;
  /** The model at the HPA target and β the simulated engines ran with. */
  model: { hpa: EngineFigures; gpuops: EngineFigures };
}

/** Settings {@link analyse} reads. */
export interface AnalysisSettings extends PolicySettings {
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  min: number;
  max: number;
  hpaTargets: number[];
  headroomFactors: number[];
  /** Scale-down margins the first-half choice tries with every factor (empty: the policy's own). */
  headroomDownMargins: number[];
}

/** The model's settings for the replay's delays and thresholds and the service's `maxReplicas`. */
export function modelSettingsOf(s: AnalysisSettings, maxReplicas: number): ModelSettings {
  return {
    startupSeconds: s.startupSeconds,
    sampleDelaySeconds: s.sampleDelaySeconds,
    passIntervalSeconds: s.passIntervalSeconds,
    min: s.min,
    max: s.max,
    maxReplicas,
  };
}

/** Runs the model for every frontier point, the first-half choice and the simulated engines' parameters. */
export function analyse(
  trace: Trace,
  s: AnalysisSettings,
  base: Policy,
  maxReplicas: number,
): ReplayAnalysis {
  const settings = modelSettingsOf(s, maxReplicas);
  const o: FrontierOptions = {
    hpaTargets: s.hpaTargets,
    headroomFactors: s.headroomFactors,
    headroomDownMargins: s.headroomDownMargins,
    policyFor: (beta, margin) => patchPolicy(base, s, beta, margin),
    settings,
  };
  const f = frontiers(trace, o);
  const at = <T extends { parameter: number }>(pts: T[], p: number) => pts.find((x) => x.parameter === p);
  return {
    frontiers: f,
    gap: frontierGap(f),
    chosen: chooseOnFirstHalf(trace, o, ONE_SERVICE_LIMITS),
    model: {
      hpa: (at(f.hpa, s.hpaTarget) ?? hpaPoint(trace, s.hpaTarget, settings)).figures,
      gpuops: (at(f.gpuops, s.headroomFactor) ?? gpuopsPoint(trace, s.headroomFactor, o)).figures,
    },
  };
}
