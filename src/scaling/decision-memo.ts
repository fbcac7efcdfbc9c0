/**
 * Deciding only the algorithms whose inputs moved (pure), so a steady pass at 10,000 nodes stays
 * within its time. A long-running reconciler keeps each algorithm's last decision with everything
 * it was decided on; `decideInTurn` reuses it only when the outcome is certain to be the same as
 * deciding again:
 * - the same policy and algorithm objects, the same pods (the same objects, in order: the cache
 *   hands out the same records while nothing changed), equal samples, flags, replicas, pool, HPA,
 *   products, dropped series, no-data and partial-data messages, refusal, other autoscalers,
 *   placer (`Placer.key`), the same shared pool load (`sameInput`);
 * - the same view of capacity at its turn (`roomToken`: a digest of its pool's and the unused
 *   pool's nodes as the pass began, plus every claim and move earlier algorithms made on them);
 * - the same recorded decisions, except records of the kept decision itself made since, and only
 *   (written at the time it was decided or later) when that decision is a hold that changed nothing and no rule it ran read recorded holds
 *   (stabilisation and peak windows do): cooldowns and the flap hold read only changes;
 * - the clock before the earliest time any time-based rule it evaluated could answer otherwise
 *   (`DecisionClock.untilMs`, reported by the rules), and not before the time it was decided.
 * Anything else decides again: when only the samples moved (a steady pass), on the pod facts kept
 * with the decision (`facts-again.ts`), every rule running again. `rememberingDecider` is the
 * `Decide` of `decideInTurn` that does this; it keeps the claim log itself, from the decisions and
 * claims it gives in turn.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PodInfo } from '../cluster/index.js';
import type { Policy, Pool, ResolvedAlgorithm } from '../definitions/index.js';
import { claimsOf, type Claim } from './claims.js';
import { decideOnFacts, decideOneTimed } from './decide-one.js';
import { factsAgain } from './facts-again.js';
import type { Decide } from './decide-in-turn.js';
import { toDecisionRecord } from './decision-record.js';
import { sameItems } from './lookups.js';
import { podFactsOf, type DecisionClock, type PodFacts } from './rules/facts.js';
import type { DecisionRecord, NodeCapacity, PodSample, ScalingDecision, ScalingInput } from './types.js';

/** One algorithm's kept decision and what it was decided on. */
export interface DecisionEntry {
  policy: Policy;
  algorithm: ResolvedAlgorithm;
  /**
   * The input it was decided on (its fields but pods, records and capacity are compared:
   * `sameInput`; the object `decideInTurn` gave, its capacity of that pass included, never read).
   */
  input: DecidedInput;
  pods: readonly PodInfo[];
  /** Its recorded decisions as they were (kind `scaling`, this algorithm). */
  records: readonly DecisionRecord[];
  room: string;
  decision: ScalingDecision;
  claims: Claim[];
  decidedAtMs: number;
  clock: DecisionClock;
  /** What it was decided on that holds while the pods do (`factsAgain`), and its Ready pods' samples. */
  podFacts: PodFacts;
  sampled: readonly PodSample[];
}

/** The kept decisions by algorithm name, and the digest of each pool of each capacity array. */
export interface DecisionMemo {
  decisions: Map<string, DecisionEntry>;
  /** How many decisions the last `decideInTurn` reused (the others it decided). */
  reused: number;
  /** How many of the others it decided on kept pod facts, only the samples having moved (`factsAgain`). */
  again: number;
  digests: WeakMap<readonly NodeCapacity[], Map<Pool | null, string>>;
  /** Each node's pool in each capacity array (where a claim on it is logged). */
  pools: WeakMap<readonly NodeCapacity[], ReadonlyMap<string, Pool | null>>;
}

/** An empty decision memo. */
export function createDecisionMemo(): DecisionMemo {
  return { decisions: new Map(), digests: new WeakMap(), pools: new WeakMap(), reused: 0, again: 0 };
}

/** A decision's input as `decideInTurn` receives it (capacity is added at its turn). */
export type DecidedInput = Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>;

/**
 * True when two inputs agree on every field a decision reads, but pods, records and capacity
 * (compared apart): the scalars (and the placer's `key`) by value, the rest (samples, flags, other
 * autoscalers, HPA, products, request, the loop's delays) as equal data, whatever their key order. The first field that differs ends it:
 * with real utilisation the samples differ on every pass, and nothing is built to find that out.
 */
export function sameInput(a: DecidedInput, b: DecidedInput): boolean {
  return (
    a.pool === b.pool &&
    a.replicas === b.replicas &&
    (a.currentReplicaSet ?? null) === (b.currentReplicaSet ?? null) &&
    (a.dropped ?? null) === (b.dropped ?? null) &&
    (a.noDataMessage ?? null) === (b.noDataMessage ?? null) &&
    (a.partialData ?? null) === (b.partialData ?? null) &&
    (a.refusal ?? null) === (b.refusal ?? null) &&
    (a.placer?.key ?? null) === (b.placer?.key ?? null) &&
    (a.poolLoadGpus ?? null) === (b.poolLoadGpus ?? null) &&
    sameSamples(a.samples, b.samples) &&
    isDeepStrictEqual(a.flags ?? [], b.flags ?? []) &&
    isDeepStrictEqual(a.otherAutoscalers ?? [], b.otherAutoscalers ?? []) &&
    isDeepStrictEqual(a.hpa ?? null, b.hpa ?? null) &&
    isDeepStrictEqual(a.products ?? null, b.products ?? null) &&
    isDeepStrictEqual(a.request ?? null, b.request ?? null) &&
    isDeepStrictEqual(a.loop ?? null, b.loop ?? null)
  );
}

/**
 * True when two sample lists are equal data (`isDeepStrictEqual`). Each pod's value is compared
 * first (`Object.is`, as `isDeepStrictEqual` compares numbers): in a steady pass every value moved,
 * and one compare of numbers finds that out where a deep compare walks keys and arrays first.
 */
export function sameSamples(a: readonly PodSample[], b: readonly PodSample[]): boolean {
  if (a.length !== b.length) return false;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent; the loop only finds a moved value sooner, isDeepStrictEqual below compares the values with Object.is too
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i]!.utilization, b[i]!.utilization)) return false;
  return isDeepStrictEqual(a, b);
}

/**
 * The next value of a pool's claim log in a pass: a digest of the last one and `what`, so the log
 * a decision's turn saw is compared in constant time however many claims came before it.
 */
export function nextLog(log: string, what: string): string {
  return createHash('sha256').update(log).update('\0').update(what).digest('base64');
}

/** SHA-256 of each pool's node records in `capacity` (kept per array). */
export function poolDigests(memo: DecisionMemo, capacity: readonly NodeCapacity[]): Map<Pool | null, string> {
  let out = memo.digests.get(capacity);
  if (out) return out;
  const byPool = new Map<Pool | null, NodeCapacity[]>();
  for (const n of capacity) byPool.set(n.pool, [...(byPool.get(n.pool) ?? []), n]);
  out = new Map(
    [...byPool].map(([p, nodes]) => [p, createHash('sha256').update(JSON.stringify(nodes)).digest('hex')]),
  );
  memo.digests.set(capacity, out);
  return out;
}

/** The scaling records of `name` among `recent`, in their order (what the rules read). */
export function ownRecords(recent: readonly DecisionRecord[], name: string): readonly DecisionRecord[] {
  // `decideScaling` hands each algorithm only its own scaling records: no copy then.
  const own = (r: DecisionRecord) => r.kind === 'scaling' && r.subject === name;
  return recent.every(own) ? recent : recent.filter(own);
}

/** True when `entry`'s decision is certainly what deciding `input` again at `nowMs` gives (module comment). */
export function reusable(
  entry: DecisionEntry | undefined,
  input: DecidedInput,
  o: { room: string; records: readonly DecisionRecord[]; policy: Policy; nowMs: number },
): entry is DecisionEntry {
  if (!entry || entry.policy !== o.policy || entry.algorithm !== input.algorithm) return false;
  if (o.nowMs < entry.decidedAtMs || o.nowMs >= entry.clock.untilMs) return false;
  if (entry.room !== o.room || !sameItems(entry.pods, input.pods)) return false;
  if (!sameInput(entry.input, input)) return false;
  return onlyOwnRecordsSince(entry, o.records, o.nowMs);
}

/** `records` is the entry's records followed only by records of its own quiet hold made since. */
function onlyOwnRecordsSince(
  entry: DecisionEntry,
  records: readonly DecisionRecord[],
  nowMs: number,
): boolean {
  const kept = entry.records;
  if (records.length < kept.length) return false;
  for (let i = 0; i < kept.length; i++) if (!sameRecord(records[i]!, kept[i]!)) return false;
  if (records.length === kept.length) return true;
  const d = entry.decision;
  if (
    entry.clock.readsHolds ||
    d.action !== 'hold' ||
    d.replicas.to !== d.replicas.from ||
    d.nodes.length > 0
  )
    return false;
  const own = toDecisionRecord(d, new Date(0));
  for (let i = kept.length; i < records.length; i++) {
    const r = records[i]!;
    const at = Date.parse(r.at);
    if (!(at >= entry.decidedAtMs && at <= nowMs) || !sameRecord({ ...r, at: own.at }, own)) return false;
  }
  return true;
}

/** Field by field (every field a record has is a string, a number or null). */
function sameRecord(a: DecisionRecord, b: DecisionRecord): boolean {
  const keys = Object.keys(a) as (keyof DecisionRecord)[];
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/**
 * The `Decide` of one `decideInTurn` over `capacity` (as the pass began) that reuses `memo`'s kept
 * decision of an algorithm when it is certainly what deciding again gives (`reusable`), and keeps
 * this pass's decisions in `memo` (the last pass's go; `memo.reused` counts the reused ones). Each
 * call's view of capacity (`room`) is its pool's and the unused pool's digest as the pass began
 * plus the log of every claim and move the decisions before it made on them.
 */
export function rememberingDecider(memo: DecisionMemo): (capacity: readonly NodeCapacity[]) => Decide {
  return (capacity) => {
    const digests = poolDigests(memo, capacity);
    const poolOf = nodePools(memo, capacity);
    const moved = new Map<string, Pool | null>();
    const logs = new Map<Pool | null, string>();
    const log = (pool: Pool | null, what: string) => logs.set(pool, nextLog(logs.get(pool) ?? '', what));
    const room = (pool: Pool | null) =>
      `${digests.get(pool) ?? ''}|${logs.get(pool) ?? ''}\n${digests.get('unused') ?? ''}|${logs.get('unused') ?? ''}`;
    const last = memo.decisions;
    Object.assign(memo, { decisions: new Map<string, DecisionEntry>(), reused: 0, again: 0 });
    return (input, policy, now) => {
      const nowMs = now.getTime();
      // The input itself, not a copy without its capacity: every comparison reads named fields only
      // (`sameInput`, `factsAgain`), and the copy cost as much as the compare, per algorithm per pass.
      const decided: DecidedInput = input;
      const name = input.algorithm.name;
      const here = room(input.pool);
      const records = ownRecords(input.recent, name);
      const prev = last.get(name);
      let entry = prev;
      if (reusable(entry, decided, { room: here, records, policy, nowMs })) memo.reused++;
      else {
        const kept = factsAgain(prev, input, policy, nowMs);
        if (kept) memo.again++;
        const { decision, clock, facts } = kept ? decideOnFacts(kept) : decideOneTimed(input, policy, now);
        const claims = claimsOf(input, decision);
        const { algorithm, pods } = input;
        // Each field written out, no spread: an object literal with a spread defines the fields
        // after it one by one, and this runs once per algorithm per pass.
        entry = {
          room: here,
          records,
          input: decided,
          policy,
          algorithm,
          pods,
          decision,
          claims,
          decidedAtMs: nowMs,
          clock,
          // Stryker disable next-line ConditionalExpression: equivalent; podFactsOf of facts built on kept pod facts gives their values again (only a new object)
          podFacts: kept && prev ? prev.podFacts : podFactsOf(facts),
          sampled: facts.sampled,
        };
      }
      memo.decisions.set(name, entry);
      const { decision, claims } = entry;
      if (decision.action === 'relabel' && input.pool !== null) {
        for (const node of decision.nodes) {
          log('unused', `-${node}`);
          log(input.pool, `+${node}`);
          moved.set(node, input.pool);
        }
      }
      for (const c of claims) {
        const pool = moved.has(c.node) ? moved.get(c.node)! : (poolOf.get(c.node) ?? null);
        log(pool, `${c.node}:${c.pods}x${JSON.stringify(c.request)}`);
      }
      return { decision, claims };
    };
  };
}

/**
 * When the kept decision of `algorithm` can change with only the clock moving (its
 * `DecisionClock.actionUntilMs`); Infinity when none is kept (never by the clock alone).
 */
export function heldUntilMs(memo: DecisionMemo, algorithm: string): number {
  return memo.decisions.get(algorithm)?.clock.actionUntilMs ?? Infinity;
}

/** Each node's pool in `capacity` (kept per array). */
function nodePools(memo: DecisionMemo, capacity: readonly NodeCapacity[]): ReadonlyMap<string, Pool | null> {
  let out = memo.pools.get(capacity);
  if (!out) memo.pools.set(capacity, (out = new Map(capacity.map((n) => [n.node, n.pool]))));
  return out;
}
