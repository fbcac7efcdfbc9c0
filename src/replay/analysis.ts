/**
 * The analysis beside a replay's engines (pure): both frontiers, gpuops's lead over the HPA at
 * equal unserved load, the headroom factor chosen on the first half, and the model's figures at
 * the simulated engines' own parameters (so the model can be checked against the real controller).
 */
import type { Policy } from '../definitions/index.js';
import type { EngineFigures } from './figures.js';
import {
  ONE_SERVICE_LIMITS,
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
import { flagsLoop, loopContext, type FlagDelays } from './loop-scenarios.js';
import type { PolicySettings } from './replay-policy.js';
import type { Trace } from './trace.js';

export { ONE_SERVICE_LIMITS } from './frontier.js';

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
export interface AnalysisSettings extends PolicySettings, FlagDelays {
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  min: number;
  max: number;
  hpaTargets: number[];
  headroomFactors: number[];
  /** Scale-down margins the first-half choice tries with every factor, refined between two of them (`marginsTried`; empty: the policy's own). */
  headroomDownMargins: number[];
}

/** Runs the model for every frontier point, the first-half choice and the simulated engines' parameters. */
export function analyse(
  trace: Trace,
  s: AnalysisSettings,
  base: Policy,
  maxReplicas: number,
): ReplayAnalysis {
  // The replay's own loop: its tick, trigger and start-ups as the settings give them.
  const o: FrontierOptions = loopContext(flagsLoop(s), s, base, maxReplicas).options;
  const settings = o.settings;
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
