/**
 * `factsAgain`, row by row: kept pod facts are used only when every input they follow from is the
 * same (the same objects, or equal data where the field is data), and then the facts are exactly
 * the ones `scalingFacts` builds from scratch; one moved field of them decides from scratch (null).
 */
import { describe, expect, it } from 'vitest';
import { baseInput, pod, policyNoWindows, RULE_NOW, sample } from '../../test/scaling/support.js';
import { factsAgain, type KeptFacts } from './facts-again.js';
import { podFactsOf, scalingFacts } from './rules/facts.js';
import type { ScalingInput } from './types.js';

const p = policyNoWindows();
const NOW = RULE_NOW.getTime();

/** What a kept decision of `input` remembers (as `rememberingDecider` keeps it). */
function keep(input: ScalingInput): KeptFacts {
  const f = scalingFacts(input, p, RULE_NOW);
  const { poolNodes: _p, unusedNodes: _u, ...decided } = input;
  return { policy: p, input: decided, podFacts: podFactsOf(f), sampled: f.sampled };
}

/** The base input with each Ready pod's sample moved to `utils` (new sample objects). */
function movedTo(input: ScalingInput, utils: number[]): ScalingInput {
  return { ...input, samples: input.samples.map((x, i) => ({ ...x, utilization: utils[i]! })) };
}

/** Plain data of facts (the getter read), for a deep compare. */
function plain(f: ReturnType<typeof scalingFacts> | null): unknown {
  return f && { ...f, poolSlots: f.poolSlots };
}

describe('factsAgain', () => {
  it('with only the samples moved: exactly the facts built from scratch', () => {
    const was = baseInput([50, 50, 50]);
    for (const utils of [
      [50, 50, 50],
      [90, 95, 99],
      [5, 10, 20],
    ]) {
      const now = movedTo(was, utils);
      const again = factsAgain(keep(was), now, p, NOW + 30_000);
      expect(plain(again)).toEqual(plain(scalingFacts(now, p, new Date(NOW + 30_000))));
      expect(again!.utilization).toBeCloseTo(utils.reduce((a, x) => a + x, 0) / 3, 9);
    }
  });

  it('picks each Ready pod’s sample from its own position, not the first ones', () => {
    // Pod 1 is not Ready: the Ready pods' samples are positions 0 and 2.
    const was = baseInput([40, 50, 60]);
    const pods = was.pods.map((x, i) => (i === 1 ? { ...x, ready: false } : x));
    const before = { ...was, pods };
    const now = movedTo(before, [10, 99, 30]);
    const again = factsAgain(keep(before), now, p, NOW);
    expect(again!.sampled.map((x) => x.utilization)).toEqual([10, 30]);
    expect(again!.utilization).toBe(20);
    expect(plain(again)).toEqual(plain(scalingFacts(now, p, RULE_NOW)));
  });

  it('null without a kept decision', () => {
    expect(factsAgain(undefined, baseInput(), p, NOW)).toBeNull();
  });

  const was = baseInput([50, 50, 50]);
  const other = baseInput([50, 50, 50]);
  it.each<[string, (i: ScalingInput) => ScalingInput]>([
    ['another algorithm object (equal data)', (i) => ({ ...i, algorithm: { ...i.algorithm } })],
    ['another pool', (i) => ({ ...i, pool: 'short-task' })],
    ['another replica count', (i) => ({ ...i, replicas: 4 })],
    ['another current ReplicaSet', (i) => ({ ...i, currentReplicaSet: 'resnet50-infer-8e0a' })],
    ['equal pods, other objects', (i) => ({ ...i, pods: other.pods })],
    ['the pods in another order', (i) => ({ ...i, pods: [i.pods[1]!, i.pods[0]!, i.pods[2]!] })],
    ['one pod less', (i) => ({ ...i, pods: i.pods.slice(0, 2) })],
    ['another request', (i) => ({ ...i, request: { gpus: 2, cpuMillis: 0, memoryBytes: 0 } })],
    [
      'loop delays added',
      (i) => ({ ...i, loop: { sampleSeconds: 15, reactionSeconds: 30, startupSeconds: 60 } }),
    ],
    ['a sample more', (i) => ({ ...i, samples: [...i.samples, sample('resnet50-infer-7d9f-3', 50)] })],
    ['a sample less', (i) => ({ ...i, samples: i.samples.slice(1) })],
    [
      'another pod sampled at a position',
      (i) => ({
        ...i,
        samples: i.samples.map((x, k) => (k === 2 ? { ...x, pod: 'resnet50-infer-7d9f-9' } : x)),
      }),
    ],
    [
      'another namespace sampled at a position',
      (i) => ({ ...i, samples: i.samples.map((x, k) => (k === 0 ? { ...x, namespace: 'other' } : x)) }),
    ],
  ])('null when %s', (_, change) => {
    expect(factsAgain(keep(was), change(was), p, NOW)).toBeNull();
  });

  it('null under another policy object, even an equal one', () => {
    expect(factsAgain(keep(was), was, policyNoWindows(), NOW)).toBeNull();
    expect(factsAgain(keep(was), was, p, NOW)).not.toBeNull();
  });

  it('equal data and absent-or-null fields count as the same', () => {
    const withLoop = { ...was, loop: { sampleSeconds: 15, reactionSeconds: 30, startupSeconds: null } };
    const request = { gpus: 1, cpuMillis: 0, memoryBytes: 0 };
    for (const [before, now] of [
      [withLoop, { ...withLoop, loop: { ...withLoop.loop } }],
      [
        { ...was, request },
        { ...was, request: { ...request } },
      ],
      [
        { ...was, currentReplicaSet: null },
        { ...was, currentReplicaSet: undefined },
      ],
      [
        { ...was, currentReplicaSet: undefined },
        { ...was, currentReplicaSet: null },
      ],
      [
        { ...was, loop: undefined },
        { ...was, loop: undefined },
      ],
    ] as const)
      expect(
        factsAgain(keep(before), now, p, NOW),
        JSON.stringify(now.loop ?? now.request ?? null),
      ).not.toBeNull();
  });

  it('null when a kept Ready pod’s sample is not among the samples it was decided on', () => {
    const kept = keep(was);
    expect(factsAgain({ ...kept, sampled: [{ ...kept.sampled[0]! }] }, was, p, NOW)).toBeNull();
  });

  it('a pod not Ready then is still not sampled now: the pods are the same objects', () => {
    const pods = [pod('resnet50-infer-7d9f-0'), pod('resnet50-infer-7d9f-1', { ready: false })];
    const before: ScalingInput = {
      ...was,
      replicas: 2,
      pods,
      samples: [sample('resnet50-infer-7d9f-0', 70)],
    };
    const again = factsAgain(keep(before), movedTo(before, [20]), p, NOW);
    expect(again!.ready.map((x) => x.name)).toEqual(['resnet50-infer-7d9f-0']);
    expect(again!.utilization).toBe(20);
  });
});
