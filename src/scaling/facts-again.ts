/**
 * Deciding again cheaply when an algorithm's samples moved (pure): the steady pass of a running
 * reconciler, where every GPU's utilisation moved a little and nothing else did. The decision
 * memo (`decision-memo.ts`) cannot reuse such a decision (its samples are part of what it was
 * decided on), but most of what the rules read did not move: the pods that count as replicas,
 * which of them are Ready, what a replica asks for, the band and limits ({@link PodFacts}). Those
 * follow from the pods (the same objects, in order), the replicas in Git, the current ReplicaSet,
 * the pool, the request, the algorithm and policy objects and the loop's delays alone
 * (`scalingFacts`), so they are kept; everything else (the split of the pods not Ready at this
 * time, the records and the clock, the samples of the Ready pods, the utilisation, the pool's
 * room) is derived again (`factsOn`) and every rule runs again on the result, so the decision is
 * the fresh one whatever it is (a sample that crosses `min` or `max`, a window or hold that ends).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Policy } from '../definitions/index.js';
import { sameItems } from './lookups.js';
import { factsOn, type Facts, type PodFacts } from './rules/facts.js';
import type { PodSample, ScalingInput } from './types.js';

/** What a kept decision remembers to decide again on moved samples. */
export interface KeptFacts {
  policy: Policy;
  input: Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>;
  podFacts: PodFacts;
  /** The samples of its Ready pods, in their order (objects of `input.samples`). */
  sampled: readonly PodSample[];
}

/**
 * The facts `scalingFacts` builds for `input` at `nowMs` under `policy`, on `kept`'s pod facts
 * when they hold for `input` (see the module comment), else null (decide from scratch). The
 * samples may move in value, time and window; the same pods must be sampled in the same order.
 */
export function factsAgain(
  kept: KeptFacts | undefined,
  input: ScalingInput,
  policy: Policy,
  nowMs: number,
): Facts | null {
  if (!kept || kept.policy !== policy) return null;
  const was = kept.input;
  if (
    was.algorithm !== input.algorithm ||
    was.pool !== input.pool ||
    was.replicas !== input.replicas ||
    (was.currentReplicaSet ?? null) !== (input.currentReplicaSet ?? null) ||
    !sameItems(was.pods, input.pods) ||
    !sameData(was.request, input.request) ||
    !sameData(was.loop, input.loop)
  )
    return null;
  const sampled = samePositions(kept.sampled, was.samples, input.samples);
  return sampled && factsOn(kept.podFacts, input, sampled, nowMs);
}

/**
 * The samples of `now` at the positions `sampled` held in `before`, when `now` names the same
 * pods at every position (so the Ready pods' samples are picked from the same places:
 * `readySamples` keeps the last sample of each pod); null otherwise.
 */
export function samePositions(
  sampled: readonly PodSample[],
  before: readonly PodSample[],
  now: readonly PodSample[],
): PodSample[] | null {
  if (before.length !== now.length) return null;
  for (let i = 0; i < now.length; i++)
    if (before[i]!.pod !== now[i]!.pod || before[i]!.namespace !== now[i]!.namespace) return null;
  const out: PodSample[] = [];
  for (const x of sampled) {
    const i = before.indexOf(x);
    if (i < 0) return null;
    out.push(now[i]!);
  }
  return out;
}

/** The same object, or equal data (absent equals absent). */
function sameData(a: unknown, b: unknown): boolean {
  return a === b || isDeepStrictEqual(a ?? null, b ?? null);
}
