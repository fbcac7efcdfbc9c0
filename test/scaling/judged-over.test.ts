/**
 * The Ready count a scaling decision was judged over, carried structured: `decideOne` sets
 * `readyPods` on the decisions that judged the Ready pods' utilisation (and names them in the
 * message, "over S of R Ready pod(s)"), `toDecisionRecord` stores it, and the readers of recorded
 * load (`recentPeak`, the standby hold's `pastStandbySizes`) read it from the record, not from the
 * message: a reworded message leaves the peak as it was. Decisions made before or without judging
 * the Ready pods (paused, replica limits, refused, the HPA's pool growth) carry no count and read
 * `replicasFrom`, as when the message was the carrier, also while pods start. A record stored
 * before migration 13 (no `readyPods`) is read from its message as then.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import { toDecisionRecord } from '../../src/scaling/decision-record.js';
import { recentPeak } from '../../src/scaling/history.js';
import { judgedOver, legacyReadyPods, podsJudged } from '../../src/scaling/judged-over.js';
import { pastStandbySizes } from '../../src/plan/standby-hold.js';
import type { DecisionRecord, ScalingInput } from '../../src/scaling/types.js';
import type { StandbySet } from '../../src/definitions/types.js';
import { algorithm, baseInput, pod, policy, policyNoWindows } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const SET: StandbySet = {
  name: 'llm',
  pool: 'short-task',
  namespace: 'algorithms',
  image: 'registry.example.com/ml/multi-model:2.1',
  port: 8080,
  readinessPath: '/ready',
  wakePath: '/wake',
  claimSeconds: 5,
  algorithms: ['resnet50-infer'],
  gpus: 1,
};

/** `ready` Ready pods at `u` % and `starting` pods not Ready yet (started just now), all replicas. */
function starting(ready: number, startingPods: number, u = 50): ScalingInput {
  const input = baseInput(Array.from({ length: ready }, () => u));
  const pods = [
    ...input.pods,
    ...Array.from({ length: startingPods }, (_, i) =>
      pod(`resnet50-infer-7d9f-s${i}`, { ready: false, startedAt: NOW.toISOString() }),
    ),
  ];
  return { ...input, pods, replicas: ready + startingPods };
}

/** The pods the peak window and the standby hold read for `d` recorded now. */
function readBack(d: ReturnType<typeof decideOne>, message?: string) {
  const r: DecisionRecord = { ...toDecisionRecord(d, NOW), ...(message === undefined ? {} : { message }) };
  const peak = recentPeak([r], NOW.getTime(), 60);
  const sizes = pastStandbySizes([r], SET, 1, 80);
  return { pods: podsJudged(r), peakPods: peak?.replicas ?? null, standby: sizes.get(NOW.getTime()) ?? null };
}

describe('readyPods: the Ready count of a decision, structured', () => {
  it.each([
    { name: 'within the band', input: starting(3, 2, 50), ready: 3, reason: 'WithinRange' },
    { name: 'above max, pods starting', input: starting(3, 2, 95), ready: 3, reason: 'PodsStarting' },
    { name: 'below min, a pod starting', input: starting(4, 1, 10), ready: 4, reason: 'BelowMin' },
  ])('$name: carried, and read back whatever the message says', ({ input, ready, reason }) => {
    const d = decideOne(input, policyNoWindows(), NOW);
    expect(d.reason).toBe(reason);
    expect(d.readyPods).toBe(ready);
    expect(d.message).toContain(judgedOver(ready, ready));
    const asWritten = readBack(d);
    expect(asWritten.pods).toBe(ready);
    expect(asWritten.peakPods).toBe(ready);
    // A reworded message: the count still comes from the record.
    const reworded = readBack(d, `${d.algorithm}: utilisation ${d.utilization}% (worded anew)`);
    expect(reworded).toEqual(asWritten);
    // ΣL = u × ready GPUs, never × the replicas still starting.
    const load = ((d.utilization ?? 0) / 100) * ready;
    expect(reworded.standby).toBe(Math.max(0, Math.ceil(Math.sqrt(load) / 0.8 - 1e-9)));
  });

  // Setting the count on these would change what they read while pods start (Ready < from):
  // each keeps reading replicasFrom, as when its message (which names no count) was read.
  it.each<{ name: string; input: ScalingInput; p?: ReturnType<typeof policy>; reason: string }>([
    {
      name: 'paused (replicas 0 in Git)',
      input: { ...starting(0, 0), replicas: 0 },
      reason: 'ScaledToZero',
    },
    {
      name: 'limited: below minReplicas',
      input: { ...starting(2, 1), algorithm: algorithm({ minReplicas: 4 }) },
      reason: 'BelowMinReplicas',
    },
    {
      name: 'limited: above maxReplicas',
      input: { ...starting(2, 2), algorithm: algorithm({ maxReplicas: 3 }) },
      reason: 'AboveMaxReplicas',
    },
    {
      name: 'refused by the API server',
      input: { ...starting(2, 1), replicas: 4, refusal: 'exceeded quota: gpu' },
      reason: 'ReplicasRefused',
    },
    {
      name: "the HPA's pool growth (a pod Pending)",
      input: {
        ...starting(2, 0),
        replicas: 3,
        pods: [
          ...starting(2, 0).pods,
          pod('resnet50-infer-7d9f-p', {
            nodeName: null,
            phase: 'Pending',
            ready: false,
            unschedulable: true,
          }),
        ],
        poolNodes: [],
        hpa: { currentReplicas: 3, desiredReplicas: 3, maxReplicas: 8 },
      },
      p: policyNoWindows({ engine: 'hpa' }),
      reason: 'RelabelUnusedNode',
    },
  ])('$name: no count, read as replicasFrom', ({ input, p, reason }) => {
    const d = decideOne(input, p ?? policyNoWindows(), NOW);
    expect(d.reason).toBe(reason);
    expect(d.readyPods).toBeUndefined();
    expect(legacyReadyPods(d.message)).toBeNull();
    const r = toDecisionRecord(d, NOW);
    expect('readyPods' in r).toBe(false);
    const got = readBack(d);
    expect(got.pods).toBe(d.replicas.from);
    if (d.utilization !== null && d.replicas.from > 0) expect(got.peakPods).toBe(d.replicas.from);
  });

  it('a record stored before migration 13 (no readyPods) is read from its message, as then', () => {
    const old: DecisionRecord = {
      kind: 'scaling',
      subject: 'resnet50-infer',
      action: 'hold',
      reason: 'WithinRange',
      message:
        'resnet50-infer: utilisation 50% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 5',
      replicasFrom: 5,
      replicasTo: 5,
      utilization: 50,
      at: NOW.toISOString(),
    };
    expect(podsJudged(old)).toBe(3);
    expect(recentPeak([old], NOW.getTime(), 60)?.replicas).toBe(3);
    expect(podsJudged({ ...old, message: 'no count named' })).toBe(5);
    // The column wins over the message; more than replicasFrom is capped at it.
    expect(podsJudged({ ...old, readyPods: 4 })).toBe(4);
    expect(podsJudged({ ...old, readyPods: 9 })).toBe(5);
    expect(podsJudged({ ...old, replicasFrom: null })).toBeNull();
  });

  it.each([
    { sampled: 0, ready: 0 },
    { sampled: 3, ready: 4 },
    { sampled: 9, ready: 105 },
  ])('the legacy reading takes R from "over $sampled of $ready Ready pod(s)"', ({ sampled, ready }) => {
    expect(legacyReadyPods(`18.5% over ${sampled} of ${ready} Ready pod(s); below min 30%`)).toBe(ready);
  });

  it.each([
    { name: 'no count at all', message: 'no usable GPU sample for any of 4 Ready pod(s)' },
    { name: 'the partial-data wording', message: 'but only 2 of 4 Ready pod(s) have a sample' },
    { name: 'an empty message', message: '' },
    { name: 'a word run into "over"', message: 'rollover 3 of 4 Ready pod(s)' },
  ])('the legacy reading is null when the message has $name', ({ message }) => {
    expect(legacyReadyPods(message)).toBeNull();
  });
});
