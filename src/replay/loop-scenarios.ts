/**
 * The replay's loops (pure): gpuops, the HPA and the causal bound on the same trace under one
 * set of loop delays each — the delays the flags give (today's: a 15 s sample, a pass every 30 s,
 * 60 s start-ups), a fast loop (event-driven on a 5 s signal, 30 s start-ups) and, with a latency
 * file, start-ups drawn from the service's model-load latencies on pre-pulled images — so that
 * the replay says how close gpuops is to what any reacting rule could do with that loop
 * (`causal-bound.ts`), and how far ahead of the HPA under the same delays.
 *
 * Each loop runs through the model (`model-engine.ts`): gpuops with its windows sized to the loop
 * (`scaling/loop-windows.ts`), β and the scale-down margin chosen on the first half within the
 * one-service limits and reported on the second half and the whole; flaps counted within the
 * loop's flap window (the derived `headroomFlapHoldSeconds`) and, beside them, within 300 s.
 */
import type { Policy } from '../definitions/index.js';
import { loopWindows } from '../scaling/index.js';
import { familyLead, type FamilyLead } from './bound-frontier.js';
import { causalBound, type CausalBound } from './causal-bound.js';
import {
  ONE_SERVICE_LIMITS,
  chooseOnFirstHalf,
  frontierGap,
  frontiers,
  gpuopsPoint,
  type FirstHalfChoice,
  type FrontierGap,
  type FrontierOptions,
  type FrontierPoint,
} from './frontier.js';
import type { ModelSettings } from './model-engine.js';
import { patchPolicy, type PolicySettings } from './replay-policy.js';
import { drawStartups, quantile } from './startup-latency.js';
import type { Trace } from './trace.js';
import { bestHpaTarget } from './verdict.js';

/** The loop the replay's settings describe (today's delays by default) is named this. */
export const FLAGS_LOOP = "the flags' loop";

/** One loop's delays (seconds). */
export interface LoopSpec {
  name: string;
  tickSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  eventDriven: boolean;
  /** Fixed start-up, or (with `startupLatencies`) unused. */
  startupSeconds: number;
  /** Start-ups to draw from (seconds); absent: `startupSeconds` for every pod. */
  startupLatencies?: readonly number[];
}

/** What one loop gave. */
export interface LoopResult {
  spec: LoopSpec;
  /** The start-up the windows were sized on (the fixed one, or the draws' 90th percentile). */
  startupSeconds: number;
  flapWindowSeconds: number;
  chosen: FirstHalfChoice;
  /** Flaps of the chosen β and margin over the whole trace within 300 s. */
  flaps300: number;
  gap: FrontierGap;
  /**
   * The HPA under the same delays at its best target within the same limits (≤ 2 % above max,
   * ≤ 0.5 % unserved; chosen with hindsight on the whole trace, as the verdict chooses it); null
   * when no target kept them. Beside `gap`, which compares at equal unserved load only.
   */
  hpaBest: FrontierPoint | null;
  bound: CausalBound;
  /**
   * The causal bound family's own frontier (its rules, `bound.points`) against the same HPA
   * frontier as `gap`, at equal unserved load and, held to the HPA's pod-time above max too, at
   * equal unserved load and no more pod-time above max (`bound-frontier.ts`): whether any rule of
   * the family could meet the frontier-lead target.
   */
  familyLead: FamilyLead;
}

/** Settings the loops share with the replay (percent, β lists, policy text). */
export interface LoopRunSettings extends PolicySettings {
  min: number;
  max: number;
  hpaTargets: number[];
  headroomFactors: number[];
  headroomDownMargins: number[];
}

/** The delays of the replay's own loop, as its settings give them (see {@link loopTick}). */
export interface FlagDelays {
  startupSeconds: number;
  sampleDelaySeconds: number;
  passIntervalSeconds: number;
  tickSeconds?: number;
  eventDriven?: boolean;
  startupLatencies?: readonly number[];
}

/**
 * The tick that represents the delays: `tickSeconds` when given, else the largest whole number of
 * seconds of at most 15 (the HPA's sync period) that divides the sample delay and the pass interval
 * (a delay of 0 divides by any), at least 1.
 */
export function loopTick(d: FlagDelays): number {
  if (d.tickSeconds !== undefined) return d.tickSeconds;
  const parts = [d.sampleDelaySeconds, d.passIntervalSeconds].filter((x) => x > 0);
  for (let t = 15; t > 1; t--) if (parts.every((x) => Number.isInteger(x / t))) return t;
  return 1;
}

/** The loop of the replay's own settings (named {@link FLAGS_LOOP}). */
export function flagsLoop(d: FlagDelays): LoopSpec {
  return {
    name: FLAGS_LOOP,
    tickSeconds: loopTick(d),
    sampleDelaySeconds: d.sampleDelaySeconds,
    passIntervalSeconds: d.passIntervalSeconds,
    eventDriven: d.eventDriven ?? false,
    startupSeconds: d.startupSeconds,
    ...(d.startupLatencies ? { startupLatencies: d.startupLatencies } : {}),
  };
}

/**
 * The fast loop the replay runs beside today's, to show what a loop that reacts in seconds gains
 * (docs/replay.md, "The loop: its delays, the causal bound, a fast loop"): event-driven on a 5 s
 * signal, 30 s start-ups.
 */
export const FAST_LOOP: LoopSpec = {
  name: 'fast loop',
  tickSeconds: 5,
  sampleDelaySeconds: 5,
  passIntervalSeconds: 30,
  eventDriven: true,
  startupSeconds: 30,
};

/** What a loop runs with: the model's settings, the frontier options, its start-up and flap window. */
export interface LoopContext {
  options: FrontierOptions;
  startupOf?: (n: number) => number;
  /** The start-up the windows are sized on (seconds). */
  startupSeconds: number;
  reactionSeconds: number;
  flapWindowSeconds: number;
}

/** The context of `spec` (see {@link LoopContext}). */
export function loopContext(
  spec: LoopSpec,
  s: LoopRunSettings,
  base: Policy,
  maxReplicas: number,
): LoopContext {
  const draws = spec.startupLatencies;
  const startupOf = draws ? drawStartups(draws) : undefined;
  const startupSeconds = draws ? Math.ceil(quantile(draws, 0.9)) : spec.startupSeconds;
  const settings: ModelSettings = {
    startupSeconds: spec.startupSeconds,
    sampleDelaySeconds: spec.sampleDelaySeconds,
    passIntervalSeconds: spec.passIntervalSeconds,
    min: s.min,
    max: s.max,
    maxReplicas,
    tickSeconds: spec.tickSeconds,
    eventDriven: spec.eventDriven,
    ...(startupOf ? { startupOf } : {}),
  };
  const reactionSeconds = spec.eventDriven ? spec.tickSeconds : spec.passIntervalSeconds;
  const windows = loopWindows(patchPolicy(base, s, s.headroomFactor), {
    sampleSeconds: spec.sampleDelaySeconds,
    reactionSeconds,
    startupSeconds,
  });
  const flapWindowSeconds = windows?.flapHoldSeconds || 300;
  const options: FrontierOptions = {
    hpaTargets: s.hpaTargets,
    headroomFactors: s.headroomFactors,
    headroomDownMargins: s.headroomDownMargins,
    policyFor: (beta, margin) => patchPolicy(base, s, beta, margin),
    settings,
    flapWindowSeconds,
  };
  return { options, ...(startupOf ? { startupOf } : {}), startupSeconds, reactionSeconds, flapWindowSeconds };
}

/**
 * Runs one loop over `trace`; `done` gives the choice, gap and HPA frontier already made under
 * `ctx` (the replay's analysis).
 */
export function runLoop(
  trace: Trace,
  spec: LoopSpec,
  ctx: LoopContext,
  done?: { chosen: FirstHalfChoice; gap: FrontierGap; hpa: readonly FrontierPoint[] },
): LoopResult {
  const o = ctx.options;
  const f = done ? null : frontiers(trace, o);
  const hpa = done?.hpa ?? f!.hpa;
  const best = bestHpaTarget(hpa, ONE_SERVICE_LIMITS);
  const chosen = done?.chosen ?? chooseOnFirstHalf(trace, o, ONE_SERVICE_LIMITS);
  const flaps300 =
    ctx.flapWindowSeconds === 300
      ? chosen.whole.flaps
      : gpuopsPoint(trace, chosen.beta, { ...o, flapWindowSeconds: 300 }, chosen.margin ?? undefined).figures
          .flaps;
  const bound = causalBound(trace, {
    tickSeconds: spec.tickSeconds,
    sampleDelaySeconds: spec.sampleDelaySeconds,
    decideEverySeconds: ctx.reactionSeconds,
    startupSeconds: spec.startupSeconds,
    ...(ctx.startupOf ? { startupOf: ctx.startupOf } : {}),
    max: o.settings.max,
    ...ONE_SERVICE_LIMITS,
  });
  return {
    spec,
    startupSeconds: ctx.startupSeconds,
    flapWindowSeconds: ctx.flapWindowSeconds,
    chosen,
    flaps300,
    gap: done?.gap ?? frontierGap(f!),
    hpaBest: best.fallback ? null : (hpa.find((p) => p.parameter === best.target) ?? null),
    bound,
    familyLead: familyLead(hpa, bound.points),
  };
}
