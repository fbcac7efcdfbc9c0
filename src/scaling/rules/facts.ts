/**
 * The facts every scaling rule reads (pure): one algorithm's replicas, the pods that count as
 * replicas, its utilisation and how it was judged, its room in the pool, its recorded decisions.
 * `decideOne` builds them once per algorithm and hands them to each rule in turn; a rule returns a
 * {@link Verdict} (the decision is made), a {@link Target} (a count for the next rule to bound or
 * hold) or null (not its case).
 */
import type { Pool, Policy } from '../../definitions/index.js';
import { podSlots, replicaRequest } from '../capacity.js';
import type { PodRequest } from '../fit.js';
import { countedPods, surgePods } from '../counted-pods.js';
import { readySamples } from './ready-samples.js';
import { splitUnready, startedMs, type StuckPod } from '../starting-pods.js';
import { judgedOver } from '../judged-over.js';
import { roundReading, signalOf } from '../signal-reading.js';
import { reversalHoldEndMs, type RecommendationBounds } from '../history.js';
import type { DecisionRecord, PodSample, ScalingAction, ScalingInput, ScalingReason } from '../types.js';
import type { PodInfo } from '../../cluster/index.js';
import { isoMs } from '../iso-ms.js';

/** What one algorithm is decided on. Counts are replicas or pods, `gpus` whole GPUs, `min`/`max` percent. */
export interface Facts {
  input: ScalingInput;
  /**
   * `policy.spec.scaling` with the windows in force at `nowMs`: the loop's (`windows.loop`), or the
   * policy's own (`windows.own`) within the policy's flap window of a reversal (`reversalHoldEndMs`).
   */
  scaling: Policy['spec']['scaling'];
  /**
   * The scaling with the windows sized to the loop (`withLoopWindows`) and the policy's own: the
   * same object without a loop.
   */
  windows: { loop: Policy['spec']['scaling']; own: Policy['spec']['scaling'] };
  name: string;
  /** The pool its Deployment is pinned to (null: none). */
  pool: Pool | null;
  /** Replicas in Git now. */
  from: number;
  /** The algorithm's utilisation band (percent). */
  min: number;
  max: number;
  minReplicas: number;
  maxReplicas: number;
  /** Replicas one decision moves at least (≥ 1). */
  step: number;
  /** GPUs per pod (≥ 1). */
  gpus: number;
  /** What one replica asks of its node (GPUs, cpu, memory: `replicaRequest`). */
  request: PodRequest;
  nowMs: number;
  /**
   * What the decision's outcome depends on beyond its inputs, filled in as the rules run (see
   * {@link DecisionClock}); a rule that reads the clock reports when its answer could change.
   */
  clock: DecisionClock;
  bounds: RecommendationBounds;
  /** Its recorded scaling decisions (kind `scaling`, subject this algorithm). */
  records: DecisionRecord[];
  /** Live pods that are replicas (`countedPods`). */
  counted: PodInfo[];
  ready: PodInfo[];
  /** Counted pods not Ready yet within `scaling.podStartupSeconds` of their start: capacity on its way. */
  starting: PodInfo[];
  /** Counted pods not Ready past that bound: neither capacity nor utilisation (`splitUnready`). */
  stuck: StuckPod[];
  /** Samples of the Ready counted pods. */
  sampled: PodSample[];
  /** Mean of `sampled` (percent); null without a sample. */
  utilization: number | null;
  /** Every Ready pod has a sample. */
  complete: boolean;
  /** The utilisation as a message shows it (`61.5%`, `n/a`). */
  u: string;
  /** "over S of R Ready pod(s)". */
  over: string;
  /** Replicas in Git not bound to a node yet: they take free GPUs first. */
  outstanding: number;
  /**
   * Replicas whose whole request still fits on the pool's nodes after the outstanding ones and the
   * rollout's surge pods not bound yet take theirs (may be < 0, never by a surge pod: a surge pod
   * takes only room that is left, it creates no need). Counted on first read: it walks every node
   * of the pool, and only a scale-up or a Pending replica asks (a pass of holds reads it for none).
   */
  readonly poolSlots: number;
  /** " (series dropped: …)" or "". */
  droppedNote: string;
}

/**
 * How long a decision stays what it is with its inputs unchanged and only the clock moving, as
 * the rules report it: `untilMs` is the earliest time (ms) any time-based rule it evaluated could
 * answer otherwise (a cooldown or flap hold ending, a record leaving a window, a starting pod
 * becoming stuck, a record dated in the future coming due; `Infinity`: never), and
 * `readsHolds` says whether a rule read the recorded holds (stabilisation window, peak window),
 * so that a new record of the same hold could change it. A decision that is reused
 * (`decideInTurn` with `rememberingDecider`) must have been decided at most `untilMs` ago: every rule that
 * compares a time with `nowMs` calls {@link changesAt} or {@link everyPass}.
 */
export interface DecisionClock {
  untilMs: number;
  readsHolds: boolean;
  /**
   * The earliest time (ms) the action or the replica count could change with only the clock
   * moving (≥ `untilMs`): a message that shows an age changes every pass, its hold only when the
   * hold ends. The crossing trigger of `gpuops run` makes a pass again then, not every sample.
   */
  actionUntilMs: number;
}

/** Reports that the outcome may change at `ms` (ignored when not after `nowMs`). */
export function changesAt(f: Pick<Facts, 'nowMs' | 'clock'>, ms: number): void {
  if (ms > f.nowMs && ms < f.clock.untilMs) f.clock.untilMs = ms;
  if (ms > f.nowMs && ms < f.clock.actionUntilMs) f.clock.actionUntilMs = ms;
}

/**
 * Reports that the outcome changes with any move of the clock (a message that shows an age),
 * and that its action may change at `actionMs` (the hold's end; absent: only the message moves).
 */
export function everyPass(f: Pick<Facts, 'nowMs' | 'clock'>, actionMs?: number): void {
  if (f.nowMs + 1 < f.clock.untilMs) f.clock.untilMs = f.nowMs + 1;
  if (actionMs !== undefined && actionMs > f.nowMs && actionMs < f.clock.actionUntilMs)
    f.clock.actionUntilMs = actionMs;
}

/** A decision made: `to` replicas, reason, the message (without the algorithm's name), moved nodes. */
export interface Verdict {
  action: ScalingAction;
  to: number;
  reason: ScalingReason;
  message: string;
  nodes?: string[];
}

/**
 * A replica count a rule proposes for the next rule to bound or hold. `because` and `note` are
 * message parts: `because` follows the utilisation ("…, and below it for the whole window"),
 * `note` follows the count ("(not 1: …)").
 */
export interface Target {
  to: number;
  because?: string;
  note?: string;
}

/**
 * The facts of one algorithm (see {@link Facts}); `now` is the pass's time, `policy` the policy
 * with the windows the loop runs with and `own` the policy before them (the same by default).
 */
export function scalingFacts(input: ScalingInput, policy: Policy, now: Date, own: Policy = policy): Facts {
  const s = policy.spec.scaling;
  const alg = input.algorithm;
  const { min, max } = alg.scaling.utilization;
  const { minReplicas, maxReplicas } = alg.scaling;
  const step = Math.max(1, s.step);
  const request = replicaRequest(input);
  const gpus = request.gpus;
  const from = input.replicas;
  const counted = countedPods(input.pods, from, input.currentReplicaSet ?? null);
  const ready = counted.filter((p) => p.ready);
  const outstanding = Math.max(0, from - counted.filter((p) => p.nodeName !== null).length);
  const base: PodFacts = {
    windows: { loop: s, own: own.spec.scaling },
    name: alg.name,
    pool: input.pool,
    from,
    min,
    max,
    minReplicas,
    maxReplicas,
    step,
    gpus,
    request,
    bounds: {
      min,
      max,
      minReplicas,
      maxReplicas,
      step,
      sizing: s.sizing,
      // The policy's target is a percent, the GPU signals' unit: a service metric sizes for the
      // middle of its own band (its unit is not the policy's), as the default does for every signal.
      target:
        s.targetUtilization > 0 && signalOf(alg).kind !== 'serviceMetric' ? s.targetUtilization : undefined,
      headroomFactor: s.headroomFactor,
      gpus,
    },
    counted,
    ready,
    outstanding,
  };
  return factsOn(base, input, readySamples(ready, input.samples), now.getTime());
}

/**
 * What of {@link Facts} follows from the pods, the replicas in Git, the algorithm and the policy
 * alone: the same for two inputs that agree on those, whatever their samples, records, capacity
 * or clock (`factsAgain`).
 */
export type PodFacts = Omit<
  Facts,
  | 'input'
  | 'scaling'
  | 'nowMs'
  | 'clock'
  | 'records'
  | 'starting'
  | 'stuck'
  | 'sampled'
  | 'utilization'
  | 'complete'
  | 'u'
  | 'over'
  | 'poolSlots'
  | 'droppedNote'
>;

/**
 * The facts of `input` at `nowMs` on `base` (its pod facts) with `sampled` (the samples of its
 * Ready pods, in their order): the time-based split of the pods not Ready, the records and the
 * clock, the utilisation and its texts, and the pool's room, each derived as
 * {@link scalingFacts} derives it.
 */
export function factsOn(base: PodFacts, input: ScalingInput, sampled: PodSample[], nowMs: number): Facts {
  const { loop, own } = base.windows;
  const { starting, stuck } = splitUnready(base.counted, nowMs, loop.podStartupSeconds);
  const records = input.recent.filter((r) => r.kind === 'scaling' && r.subject === base.name);
  const clock = decisionClock(nowMs, starting, stuck.length > 0, records, loop.podStartupSeconds);
  // After a reversal the policy's own windows, until its hold ends (then the loop's again).
  const held = loop === own ? null : reversalHoldEndMs(records, nowMs, own.headroomFlapHoldSeconds);
  if (held !== null) changesAt({ nowMs, clock }, held);
  const utilization = sampled.length ? sampled.reduce((a, x) => a + x.utilization, 0) / sampled.length : null;
  let poolSlots: number | undefined;
  const slotsNow = () => freeSlots(input, base.request, base.outstanding);
  // Field by field, not spread: V8 builds a literal with a getter fast only from its own fields.
  return {
    scaling: held === null ? loop : own,
    windows: base.windows,
    name: base.name,
    pool: base.pool,
    from: base.from,
    min: base.min,
    max: base.max,
    minReplicas: base.minReplicas,
    maxReplicas: base.maxReplicas,
    step: base.step,
    gpus: base.gpus,
    request: base.request,
    bounds: base.bounds,
    counted: base.counted,
    ready: base.ready,
    outstanding: base.outstanding,
    input,
    nowMs,
    clock,
    records,
    starting,
    stuck,
    sampled,
    utilization,
    // Read only once a utilisation exists, so with at least one Ready pod.
    complete: sampled.length === base.ready.length,
    u: utilization === null ? 'n/a' : `${roundReading(utilization, signalOf(input.algorithm))}%`,
    over: judgedOver(sampled.length, base.ready.length),
    get poolSlots() {
      return (poolSlots ??= slotsNow());
    },
    droppedNote: input.dropped ? ` (series dropped: ${input.dropped})` : '',
  };
}

/**
 * When the facts of one algorithm next change on their own (`DecisionClock`): when a starting pod
 * turns stuck (`since + podStartupSeconds`), every pass while a pod is stuck (its age is in the
 * message), and when a record dated after now (another clock's) comes due — every rule ignores it
 * until then. Times are epoch milliseconds.
 */
function decisionClock(
  nowMs: number,
  starting: readonly PodInfo[],
  anyStuck: boolean,
  records: readonly DecisionRecord[],
  podStartupSeconds: number,
): DecisionClock {
  const clock: DecisionClock = { untilMs: Infinity, readsHolds: false, actionUntilMs: Infinity };
  const timed = { nowMs, clock };
  for (const p of starting) changesAt(timed, startedMs(p) + podStartupSeconds * 1000);
  if (anyStuck) everyPass(timed);
  for (const r of records) changesAt(timed, isoMs(r.at));
  return clock;
}

/**
 * Replicas the pool has room for beyond those already asked for: the pool's pod slots (from the
 * placer when there is one, else `podSlots` of the request) less the `outstanding` replicas not
 * yet on a node, less the unscheduled surge pods of a rollout (as far as room is left).
 */
function freeSlots(input: ScalingInput, request: PodRequest, outstanding: number): number {
  const from = input.replicas;
  const surging = surgePods(input.pods, from, input.currentReplicaSet ?? null).filter(
    (p) => p.nodeName === null,
  ).length;
  // With a placer, replicas are placed one after another up to what any rule can ask for.
  const limit = outstanding + surging + Math.max(0, input.algorithm.scaling.maxReplicas - from) + 1;
  const room = input.placer
    ? input.placer.slots(input.poolNodes, input.pool, limit)
    : podSlots(input.poolNodes, request);
  const slots = room - outstanding;
  return slots - Math.min(surging, Math.max(0, slots));
}

/** A hold at the current count. */
export function hold(f: Pick<Facts, 'from'>, reason: ScalingReason, message: string): Verdict {
  return { action: 'hold', to: f.from, reason, message };
}

/** True when a rule's answer is a final {@link Verdict}. */
export function isVerdict(x: Verdict | Target): x is Verdict {
  return 'action' in x;
}

/** One decimal, as messages show percentages. */
export function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/** The {@link PodFacts} of `f` (its fields that follow from the pods, replicas, algorithm and policy). */
export function podFactsOf(f: Facts): PodFacts {
  const { windows, name, pool, from, min, max, minReplicas, maxReplicas, step, gpus, request, bounds } = f;
  const { counted, ready, outstanding } = f;
  return {
    windows,
    name,
    pool,
    from,
    min,
    max,
    minReplicas,
    maxReplicas,
    step,
    gpus,
    request,
    bounds,
    counted,
    ready,
    outstanding,
  };
}
