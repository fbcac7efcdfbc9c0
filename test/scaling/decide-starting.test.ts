/**
 * Rule 6 `PodsStarting`: replicas on their way count as capacity arriving (the HPA's "not-yet-Ready
 * pods use 0 %" on a scale-up), so a scale-up is not repeated while the last one's pods start.
 * Boundary: spread over Ready + arriving exactly max holds (in band); just above scales.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import { algorithm, baseInput, node, pod, policyNoWindows } from './support.js';

const NOW = new Date('2026-11-30T12:00:00Z');

/**
 * Ready pods at `utils`, plus `starting` bound pods not Ready that started `ageSeconds` ago (60 s:
 * well inside the default `podStartupSeconds` of 300), plus `notCreated` replicas in Git only.
 */
function withStarting(
  utils: number[],
  starting: number,
  notCreated = 0,
  extra: Partial<ScalingInput> = {},
  ageSeconds = 60,
): ScalingInput {
  const b = baseInput(utils);
  const startedAt = new Date(NOW.getTime() - ageSeconds * 1000).toISOString();
  const pods = [
    ...b.pods,
    ...Array.from({ length: starting }, (_, i) =>
      pod(`resnet50-infer-7d9f-s${i}`, { ready: false, startedAt }),
    ),
  ];
  return {
    ...b,
    algorithm: algorithm({ maxReplicas: 20 }),
    pods,
    replicas: pods.length + notCreated,
    poolNodes: [node('lt-1', 'long-task', 8)],
    ...extra,
  };
}

describe('decide: pods starting are capacity arriving', () => {
  it.each<[string, 'step' | 'load', ScalingInput, string, string, number]>([
    ['StartingPodCarriesTheLoadHolds', 'load', withStarting([90, 90, 90], 1), 'hold', 'PodsStarting', 4],
    ['SpreadExactlyMaxHolds', 'load', withStarting([100, 100, 100, 100], 1), 'hold', 'PodsStarting', 5],
    [
      'SpreadJustAboveMaxScalesUp',
      'load',
      withStarting([100, 100, 100, 100.5], 1),
      'scale-up',
      'AboveMax',
      8,
    ],
    [
      'SpreadJustAboveMaxStepScalesOneStep',
      'step',
      withStarting([100, 100, 100, 100.5], 1),
      'scale-up',
      'AboveMax',
      6,
    ],
    ['StepModeHoldsToo', 'step', withStarting([90, 90, 90], 1), 'hold', 'PodsStarting', 4],
    [
      'ReplicaNotCreatedYetCountsAsArriving',
      'load',
      withStarting([90, 90, 90], 0, 1),
      'hold',
      'PodsStarting',
      4,
    ],
    ['NothingStartingScalesUp', 'load', withStarting([90, 90, 90], 0), 'scale-up', 'AboveMax', 5],
    // podStartupSeconds 300 (issue 23 item 10): a pod not Ready for longer is stuck, not arriving.
    [
      'UnreadyJustInsideTheStartUpBoundHolds',
      'step',
      withStarting([90, 90, 90], 1, 0, {}, 299.999),
      'hold',
      'PodsStarting',
      4,
    ],
    [
      'UnreadyAtTheStartUpBoundHoldsNoMore',
      'step',
      withStarting([90, 90, 90], 1, 0, {}, 300),
      'scale-up',
      'AboveMax',
      5,
    ],
    [
      'UnreadyForAnHourHoldsNoScaleUp',
      'load',
      withStarting([90, 90, 90], 1, 0, {}, 3600),
      'scale-up',
      'AboveMax',
      5,
    ],
  ])('%s', (_name, sizing, input, action, reason, to) => {
    const d = decideOne(input, policyNoWindows({ sizing }), NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual([action, reason, to]);
  });

  it('a stuck pod beside a starting one: the starting one still holds, and the message names the stuck one', () => {
    const input = withStarting([90, 90, 90], 1);
    input.pods = [
      ...input.pods,
      pod('resnet50-infer-7d9f-stuck', {
        ready: false,
        startedAt: new Date(NOW.getTime() - 7200_000).toISOString(),
      }),
    ];
    input.replicas = 5;
    const d = decideOne(input, policyNoWindows({ sizing: 'step' }), NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual(['hold', 'PodsStarting', 5]);
    expect(d.message).toContain('but 1 replica(s) are starting');
    expect(d.message).toContain(
      '(note: 1 replica(s) not Ready past the start-up bound of 300 s, left out of capacity and utilisation: algorithms/resnet50-infer-7d9f-stuck (started 2 h ago))',
    );
  });

  it('an Unschedulable pod is not capacity arriving: the scale-up goes on', () => {
    const input = withStarting([90, 90, 90], 0);
    input.pods = [
      ...input.pods,
      pod('resnet50-infer-7d9f-u', { ready: false, nodeName: null, phase: 'Pending', unschedulable: true }),
    ];
    input.replicas = 4;
    const d = decideOne(input, policyNoWindows({ sizing: 'load' }), NOW);
    expect(d.reason).not.toBe('PodsStarting');
    expect(d.action).toBe('scale-up');
  });
});
