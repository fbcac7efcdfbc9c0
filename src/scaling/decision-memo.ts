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
 * When only the samples' values moved (a steady pass) and the kept decision is `withinBand`'s
 * hold, a new mean still inside `min..max` keeps that hold with the new utilisation, and no rule
 * runs (the same checks but the samples', the oldest records leaving the history window allowed,
 * since that hold reads no record). `fromKept` gives either answer, each field compared once for
 * both. Anything else decides again: when only the samples moved, on the pod facts kept with the
 * decision (`facts-again.ts`), every rule running again. `rememberingDecider` is the `Decide` of
 * `decideInTurn` that does this; it keeps the claim log itself, from the decisions and claims it
 * gives in turn.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PodInfo } from '../cluster/index.js';
import type { Policy, Pool, ResolvedAlgorithm } from '../definitions/index.js';
import { claimsOf, type Claim } from './claims.js';
import { decideOnFacts, decideOneTimed, inBandAgain } from './decide-one.js';
import { factsAgain, samePositions } from './facts-again.js';
import type { Decide } from './decide-in-turn.js';
import { onlyOwnRecordsSince, ownRecords } from './own-records.js';
import { sameItems } from './lookups.js';
import { podFactsOf, type DecisionClock, type Facts, type PodFacts } from './rules/facts.js';
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
  /**
   * Its decision is `withinBand`'s hold (not headroom's) with no stuck pod: on moved samples whose
   * mean stays in band it is kept with the new utilisation (`fromKept`).
   */
  inBand: boolean;
}

/** The kept decisions by algorithm name, and the digest of each pool of each capacity array. */
export interface DecisionMemo {
  decisions: Map<string, DecisionEntry>;
  /** How many decisions the last `decideInTurn` reused (the others it decided). */
  reused: number;
  /** How many of the others it decided on kept pod facts, only the samples having moved (`factsAgain`). */
  again: number;
  /** How many in-band holds it kept with the new utilisation, no rule run (`fromKept`). */
  kept: number;
  digests: WeakMap<readonly NodeCapacity[], Map<Pool | null, string>>;
  /** Each node's pool in each capacity array (where a claim on it is logged). */
  pools: WeakMap<readonly NodeCapacity[], ReadonlyMap<string, Pool | null>>;
}

/** An empty decision memo. */
export function createDecisionMemo(): DecisionMemo {
  return {
    decisions: new Map(),
    digests: new WeakMap(),
    pools: new WeakMap(),
    reused: 0,
    again: 0,
    kept: 0,
  };
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
  return sameScalars(a, b) && sameSamples(a.samples, b.samples) && sameData(a, b);
}

/** {@link sameInput} but the samples: every other field a decision reads. */
export function sameButSamples(a: DecidedInput, b: DecidedInput): boolean {
  return sameScalars(a, b) && sameData(a, b);
}

/** The scalar fields of {@link sameInput} (and the placer's key), by value. */
function sameScalars(a: DecidedInput, b: DecidedInput): boolean {
  return (
    a.pool === b.pool &&
    a.replicas === b.replicas &&
    (a.currentReplicaSet ?? null) === (b.currentReplicaSet ?? null) &&
    (a.dropped ?? null) === (b.dropped ?? null) &&
    (a.noDataMessage ?? null) === (b.noDataMessage ?? null) &&
    (a.partialData ?? null) === (b.partialData ?? null) &&
    (a.refusal ?? null) === (b.refusal ?? null) &&
    (a.placer?.key ?? null) === (b.placer?.key ?? null) &&
    (a.poolLoadGpus ?? null) === (b.poolLoadGpus ?? null)
  );
}

/** The data fields of {@link sameInput} (flags, other autoscalers, HPA, products, request, loop). */
function sameData(a: DecidedInput, b: DecidedInput): boolean {
  return (
    sameValue(a.flags, b.flags, NONE) &&
    sameValue(a.otherAutoscalers, b.otherAutoscalers, NONE) &&
    sameValue(a.hpa, b.hpa, null) &&
    sameValue(a.products, b.products, null) &&
    sameValue(a.request, b.request, null) &&
    sameValue(a.loop, b.loop, null)
  );
}

const NONE: readonly never[] = [];

/** The same value, or equal data with an absent one read as `absent` (no object is made to compare). */
function sameValue(a: unknown, b: unknown, absent: unknown): boolean {
  return a === b || isDeepStrictEqual(a ?? absent, b ?? absent);
}

/**
 * True when two sample lists are equal data (`isDeepStrictEqual`). Each pod's value and time are
 * compared first (`Object.is` and `!==`, as `isDeepStrictEqual` compares numbers and strings): in
 * a steady pass every value moved, and one compare finds that out where a deep compare walks keys
 * and arrays first; a pod whose value did not move (one pinned at 0 or 100 %) has a new time.
 */
export function sameSamples(a: readonly PodSample[], b: readonly PodSample[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent; the loop only finds a moved value or time sooner, isDeepStrictEqual below compares both too
    if (!Object.is(x.utilization, y.utilization) || x.at !== y.at) return false;
  }
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

/**
 * The checks of both answers of {@link fromKept}: the same policy object, algorithm, room and pod
 * objects, at `nowMs` (ms since the epoch) from the decision's time up to (not at)
 * its clock's `untilMs`.
 */
function sameFrame(
  entry: DecisionEntry,
  input: Pick<DecidedInput, 'algorithm' | 'pods'>,
  o: { room: string; policy: Policy; nowMs: number },
): boolean {
  return (
    entry.policy === o.policy &&
    entry.algorithm === input.algorithm &&
    o.nowMs >= entry.decidedAtMs &&
    o.nowMs < entry.clock.untilMs &&
    entry.room === o.room &&
    sameItems(entry.pods, input.pods)
  );
}

/**
 * What `entry` gives for `input` at its turn (`nowMs`, ms since the epoch), every field compared once:
 * - `'reused'`: its decision is certainly what deciding `input` again gives (module comment): the
 *   same policy object, algorithm, room and pod objects, at `nowMs` from the decision's time up to
 *   (not at) its clock's `untilMs`, every field of the input equal (`sameInput`), and the same
 *   records but its own quiet hold recorded since (`onlyOwnRecordsSince`);
 * - else the entry of a new decision when the kept one is `withinBand`'s hold and `input` differs
 *   from what it was decided on only in its samples' values (their times and windows with them; the
 *   same pods at the same places), with the same frame and records but for the oldest records
 *   leaving the history window: then the rules before `withinBand` answer as they did (none reads
 *   a sample's value, a record or the room), and the hold with the new mean is the decision
 *   (`inBandAgain`; none when the mean left `min..max`). The clock is kept: a record leaving the
 *   window can only take an expiry out of it (its time is in the past, and a reversal it took part
 *   in is older than the flap hold), so the kept one ends no later than a fresh one would;
 * - else null (decide again).
 */
export function fromKept(
  entry: DecisionEntry | undefined,
  input: ScalingInput,
  o: { room: string; records: readonly DecisionRecord[]; policy: Policy; nowMs: number },
): 'reused' | DecisionEntry | null {
  if (!entry || !sameFrame(entry, input, o) || !sameButSamples(entry.input, input)) return null;
  if (sameSamples(entry.input.samples, input.samples) && onlyOwnRecordsSince(entry, o.records, o.nowMs))
    return 'reused';
  return entry.inBand ? inBandEntry(entry, input, o) : null;
}

/** The in-band answer of {@link fromKept} once the frame and every field but the samples compared equal. */
function inBandEntry(
  entry: DecisionEntry,
  input: ScalingInput,
  o: { room: string; records: readonly DecisionRecord[]; policy: Policy; nowMs: number },
): DecisionEntry | null {
  if (!onlyOwnRecordsSince(entry, o.records, o.nowMs, true)) return null;
  const sampled = samePositions(entry.sampled, entry.input.samples, input.samples);
  const decision = sampled && inBandAgain(entry.podFacts, input, sampled);
  if (!decision) return null;
  // Each field written out, no spread (see `rememberingDecider`).
  return {
    room: o.room,
    records: o.records,
    input,
    policy: o.policy,
    algorithm: entry.algorithm,
    pods: entry.pods,
    decision,
    claims: entry.claims,
    decidedAtMs: o.nowMs,
    clock: entry.clock,
    podFacts: entry.podFacts,
    sampled: sampled!,
    inBand: true,
  };
}

/**
 * A pass's claim logs over its pools' digests: `log(pool, what)` adds a claim or move to a pool's
 * log (`nextLog`), `room(pool)` is the view of a decision in `pool` (its pool's digest and log, then
 * the unused pool's). Each pool's room is kept as last built until a claim or move is logged on
 * it (on `unused`: every pool's, as every room holds the unused pool's log): one string per pool
 * and log, not one per algorithm (issue 42: built and compared 1,000 times a steady pass).
 */
function claimLogs(digests: ReadonlyMap<Pool | null, string>) {
  const logs = new Map<Pool | null, string>();
  const rooms = new Map<Pool | null, string>();
  const log = (pool: Pool | null, what: string) => {
    logs.set(pool, nextLog(logs.get(pool) ?? '', what));
    if (pool === 'unused') rooms.clear();
    else rooms.delete(pool);
  };
  const room = (pool: Pool | null) => {
    let out = rooms.get(pool);
    if (out === undefined) {
      out = `${digests.get(pool) ?? ''}|${logs.get(pool) ?? ''}\n${digests.get('unused') ?? ''}|${logs.get('unused') ?? ''}`;
      rooms.set(pool, out);
    }
    return out;
  };
  return { log, room };
}

/**
 * The `Decide` of one `decideInTurn` over `capacity` (as the pass began) that reuses `memo`'s kept
 * decision of an algorithm when it is certainly what deciding again gives (`fromKept`), and keeps
 * this pass's decisions in `memo` (the last pass's go; `memo.reused` counts the reused ones). Each
 * call's view of capacity (`room`) is its pool's and the unused pool's digest as the pass began
 * plus the log of every claim and move the decisions before it made on them.
 */
export function rememberingDecider(memo: DecisionMemo): (capacity: readonly NodeCapacity[]) => Decide {
  return (capacity) => {
    const digests = poolDigests(memo, capacity);
    const poolOf = nodePools(memo, capacity);
    const moved = new Map<string, Pool | null>();
    const { log, room } = claimLogs(digests);
    const last = memo.decisions;
    Object.assign(memo, { decisions: new Map<string, DecisionEntry>(), reused: 0, again: 0, kept: 0 });
    return (input, policy, now) => {
      const nowMs = now.getTime();
      // The input itself, not a copy without its capacity: every comparison reads named fields only
      // (`sameInput`, `factsAgain`), and the copy cost as much as the compare, per algorithm per pass.
      const decided: DecidedInput = input;
      const name = input.algorithm.name;
      const here = room(input.pool);
      const records = ownRecords(input.recent, name);
      const prev = last.get(name);
      const o = { room: here, records, policy, nowMs };
      let entry: DecisionEntry;
      const kept = fromKept(prev, input, o);
      if (kept === 'reused') {
        memo.reused++;
        entry = prev!;
      } else if (kept) {
        memo.kept++;
        entry = kept;
      } else {
        const again = factsAgain(prev, input, policy, nowMs);
        if (again) memo.again++;
        const { decision, clock, facts } = again ? decideOnFacts(again) : decideOneTimed(input, policy, now);
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
          podFacts: again && prev ? prev.podFacts : podFactsOf(facts),
          sampled: facts.sampled,
          inBand: isBandHold(decision, facts),
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
 * The decision is `withinBand`'s hold (kept in band by `fromKept`): `WithinRange` with step or load sizing (headroom's
 * own `WithinRange` reads the load), engine gpuops, and no pod stuck (its note names the pods' ages).
 */
function isBandHold(decision: ScalingDecision, facts: Facts): boolean {
  return (
    decision.reason === 'WithinRange' &&
    facts.scaling.sizing !== 'headroom' &&
    facts.scaling.engine !== 'hpa' &&
    facts.stuck.length === 0
  );
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
