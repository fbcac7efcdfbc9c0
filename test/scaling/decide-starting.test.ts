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

/** Ready pods at `utils`, plus `starting` bound pods not Ready yet, plus `notCreated` replicas in Git only. */
function withStarting(
  utils: number[],
  starting: number,
  notCreated = 0,
  extra: Partial<ScalingInput> = {},
): ScalingInput {
  const b = baseInput(utils);
  const pods = [
    ...b.pods,
    ...Array.from({ length: starting }, (_, i) => pod(`resnet50-infer-7d9f-s${i}`, { ready: false })),
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
  ])('%s', (_name, sizing, input, action, reason, to) => {
    const d = decideOne(input, policyNoWindows({ sizing }), NOW);
    expect([d.action, d.reason, d.replicas.to]).toEqual([action, reason, to]);
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
