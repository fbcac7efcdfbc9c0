/**
 * Deciding how to scale one algorithm (pure): the rules of `rules/`, composed in order. The
 * Kubernetes HPA (autoscaling/v2) is the model,
 * https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/; each rule's file says
 * which side of each boundary it takes and why.
 */
import type { Policy, ResolvedSignal } from '../definitions/index.js';
import { roundReading, signalOf } from './signal-reading.js';
import { aboveText, atMaxReplicas, scaleUpOnCapacity } from './rules/above-max.js';
import { belowMin, belowText, scaledDown } from './rules/below-min.js';
import { cooldown } from './rules/cooldown.js';
import {
  isVerdict,
  scalingFacts,
  type DecisionClock,
  type Facts,
  type PodFacts,
  type Verdict,
} from './rules/facts.js';
import { headroom } from './rules/headroom.js';
import { hpaGrowsPool, hpaOwns } from './rules/hpa-engine.js';
import { noData } from './rules/no-data.js';
import { notPlaced } from './rules/not-placed.js';
import { paused } from './rules/paused.js';
import { peakWindow } from './rules/peak-window.js';
import { podsStarting } from './rules/pods-starting.js';
import { otherAutoscaler } from './rules/other-autoscaler.js';
import { refused } from './rules/refused.js';
import { replicaLimits } from './rules/replica-limits.js';
import { desiredReplicas } from './rules/sizing.js';
import { stabilise } from './rules/stabilization-window.js';
import { stuckNote } from './starting-pods.js';
import { loopPolicy, ownPolicyOf } from './rules/claim.js';
import { withinBand } from './rules/within-band.js';
import { judgedOver } from './judged-over.js';
import type { PodSample, ScalingDecision, ScalingInput } from './types.js';

/**
 * Decides how to scale one algorithm: `{ action, replicas: {from, to}, utilization, nodes,
 * reason, message }`, the message carrying the numbers it was decided on. The rules, in order:
 * `paused` (replicas 0 in Git) → `notPlaced` → `otherAutoscaler` (another owner of the replicas) →
 * `replicaLimits` (back inside min..maxReplicas) →
 * `refused` (the API server refuses replicas) → `noData` (or nodes for Pending pods) → `hpaEngine` (the HPA owns replicas:
 * `hpaGrowsPool`, then `hpaOwns`) → `withinBand`; then
 * below min: `belowMin` → `peakWindow` → `cooldown` → `stabilise` → `scaledDown`; above max:
 * `atMaxReplicas` → `podsStarting` → `cooldown` → `stabilise` → `scaleUpOnCapacity` (or `relabel`).
 * With `scaling.sizing: headroom`, `headroom` takes the place of the band and both directions
 * after `hpaEngine`: one target up and down (see `rules/headroom.ts`). With `input.loop` the
 * windows follow the loop's delays (`loop-windows.ts`), each at most the policy's, but within the
 * policy's flap hold of a recorded reversal, where the policy's own stand (`reversalHoldEndMs`).
 * The rules from `hpaOwns` on judge the Ready pods' utilisation, and their decisions carry the
 * count (`readyPods`); the ones before them (through `hpaGrowsPool`) do not.
 */
export function decideOne(input: ScalingInput, policy: Policy, now: Date): ScalingDecision {
  return decideOneTimed(input, policy, now).decision;
}

/**
 * {@link decideOne}, and how long its outcome holds with only the clock moving (`DecisionClock`:
 * the earliest expiry of every time-based rule it evaluated), for a reconciler's remembered
 * decisions (`rememberingDecider`).
 */
export function decideOneTimed(
  input: ScalingInput,
  policy: Policy,
  now: Date,
): { decision: ScalingDecision; clock: DecisionClock; facts: Facts } {
  // The policy's own windows stand after a reversal; a claim's are final (its scale-down windows
  // the policy's), the others follow the loop.
  return decideOnFacts(scalingFacts(input, loopPolicy(policy, input.loop), now, ownPolicyOf(policy)));
}

/**
 * The rules of {@link decideOne} on facts already built: what `decideOneTimed` gives for the
 * input and time they were built from (`scalingFacts`, or `factsOn` over kept pod facts).
 */
export function decideOnFacts(f: Facts): { decision: ScalingDecision; clock: DecisionClock; facts: Facts } {
  // Decided before, or without, judging the Ready pods' utilisation: no Ready pod count recorded.
  const unjudged =
    paused(f) ??
    notPlaced(f) ??
    otherAutoscaler(f) ??
    replicaLimits(f) ??
    refused(f) ??
    noData(f) ??
    hpaGrowsPool(f);
  if (unjudged) return { decision: decision(f, unjudged), clock: f.clock, facts: f };
  const verdict =
    hpaOwns(f) ??
    (f.scaling.sizing === 'headroom' ? headroom(f) : null) ??
    withinBand(f) ??
    // Stryker disable next-line EqualityOperator: equivalent; a utilisation exactly at min is within the band, so withinBand has already held
    (f.utilization! < f.min ? scaleDown(f) : scaleUp(f));
  return { decision: decision(f, verdict, f.ready.length), clock: f.clock, facts: f };
}

/**
 * The `WithinRange` hold {@link decideOnFacts} gives on `factsOn(pf, input, sampled, nowMs)`, for
 * a kept decision on `pf` that was `withinBand`'s hold (not headroom's) with no stuck pod, when
 * nothing but the samples' values moved since (`rememberingDecider` checks the rest: the inputs
 * but samples, the records, the room, the clock before the decision's `untilMs`): every rule
 * before `withinBand` reads none of what moved and still answers null, and the hold's message
 * needs only the new mean. `sampled`: the Ready pods' samples, in `pf.ready`'s order. Null when
 * that mean left `min..max` (or there is none): decide again.
 */
export function inBandAgain(
  pf: PodFacts,
  input: ScalingInput,
  sampled: readonly PodSample[],
): ScalingDecision | null {
  // The mean as `factsOn` takes it: the same sum in the same order, so the same number bit for bit.
  const utilization = sampled.reduce((a, x) => a + x.utilization, 0) / sampled.length;
  if (!(utilization >= pf.min && utilization <= pf.max)) return null;
  const f = {
    input,
    name: pf.name,
    from: pf.from,
    min: pf.min,
    max: pf.max,
    utilization,
    u: `${roundReading(utilization, signalOf(input.algorithm))}%`,
    over: judgedOver(sampled.length, pf.ready.length),
    // No pod was stuck (the kept decision's condition; one turning stuck ends its clock).
    stuck: [],
    scaling: pf.windows.loop,
  };
  const v = withinBand(f);
  return v && decision(f, v, pf.ready.length);
}

/** Below min: the target of `belowMin`, bounded by the peak window, then cooldown and stabilisation. */
function scaleDown(f: Facts): Verdict {
  const below = belowText(f);
  const wanted = belowMin(f);
  if (isVerdict(wanted)) return wanted;
  const bounded = peakWindow(f, wanted, below);
  if (isVerdict(bounded)) return bounded;
  const stable = cooldown(f, 'down', below) ?? stabilise(f, 'down', bounded, below);
  return isVerdict(stable) ? stable : scaledDown(f, stable);
}

/** Above max: limits, pods starting, cooldown and stabilisation, then capacity. */
function scaleUp(f: Facts): Verdict {
  const above = aboveText(f);
  const held = atMaxReplicas(f) ?? podsStarting(f, above) ?? cooldown(f, 'up', above);
  if (held) return held;
  const stable = stabilise(f, 'up', { to: desiredReplicas(f, 'up') }, above);
  return isVerdict(stable) ? stable : scaleUpOnCapacity(f, stable.to);
}

/**
 * The decision of a verdict: the algorithm's name, and the replicas stuck past their start-up
 * (`stuckNote`), the attribution's flags and a partial answer (unless the verdict already names
 * it) as notes, join the message. `readyPods`: the Ready pods a judged verdict's utilisation was
 * judged over (its message names them, "over S of R Ready pod(s)"); absent for the others.
 */
function decision(
  f: Pick<Facts, 'input' | 'stuck' | 'scaling' | 'name' | 'from' | 'utilization'>,
  v: Verdict,
  readyPods?: number,
): ScalingDecision {
  const notes = [
    v.reason === 'PartialData' ? '' : (f.input.partialData ?? ''),
    stuckNote(f.stuck, f.scaling.podStartupSeconds),
    // Stryker disable next-line ArrayDeclaration: equivalent; a string in place of the empty list has no message, and filter(Boolean) drops it
    ...(f.input.flags ?? []).map((x) => x.message),
  ].filter(Boolean);
  const flags = notes.length ? ` (note: ${notes.join('; ')})` : '';
  const signal = signalOf(f.input.algorithm);
  return {
    algorithm: f.name,
    action: v.action,
    replicas: { from: f.from, to: v.to },
    utilization: f.utilization === null ? null : roundReading(f.utilization, signal),
    nodes: v.nodes ?? [],
    reason: v.reason,
    message: `${f.name}: ${inSignalTerms(v.message, signal)}${flags}`,
    ...(readyPods === undefined ? {} : { readyPods }),
    ...(signal.kind === 'gpuUtil'
      ? {}
      : {
          signal: {
            kind: signal.kind,
            unit: signal.unit,
            ...(signal.serviceMetric ? { metric: signal.serviceMetric.name } : {}),
          },
        }),
  };
}

/** What the rules call "utilisation" and "%", said in the signal's terms. */
const SIGNAL_WORDS: Record<string, string> = {
  gpuEngineActive: 'GPU engine activity',
  gpuMemory: 'GPU memory use',
};

/**
 * A rule's message in the terms of the algorithm's signal: the rules speak of "utilisation" in
 * percent (`gpuUtil`); for another GPU signal the word is its own, and for a service metric the
 * word is the metric's name and every `N%` is `N <unit>` (its band and values are in that unit).
 */
export function inSignalTerms(message: string, signal: ResolvedSignal): string {
  if (signal.kind === 'gpuUtil') return message;
  if (signal.kind !== 'serviceMetric') return message.replace(/\butilisation\b/g, SIGNAL_WORDS[signal.kind]!);
  const name = signal.serviceMetric?.name ?? 'service metric';
  return message.replace(/\butilisation\b/g, name).replace(/(\d)%/g, `$1 ${signal.unit}`);
}
