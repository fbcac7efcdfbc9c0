import { describe, expect, it } from 'vitest';
import type { Policy } from '../../definitions/types.js';
import {
  brief,
  factsOf,
  policyNoWindows,
  scalingRecord,
  secondsAgo,
  evenLoad,
} from '../../../test/scaling/support.js';
import { bandCrossing } from '../band-crossing.js';
import { bandEdgeReplicas, downReplicas, recommendationOf } from '../history.js';
import { headroom } from './headroom.js';

// A fast loop's choice (β 0.5, margin 2; min 30 %, max 80 %): below min the scale-down keeps the
// margin's spare up to the band's edge, the most replicas that keep the pods at ≥ 30 %.
// 1.2 GPUs: up target ceil((1.2 + 0.5·√1.2) / 0.8) = ceil(2.18) = 3; at β + margin
// ceil((1.2 + 2.5·√1.2) / 0.8) = ceil(4.92) = 5; the edge 1.2 / 0.3 = 4 exactly (30 % each).
// 1.19 GPUs: the edge 3.97 → 3, the up target 3.

const load = evenLoad;
const fast = (extra: Parameters<typeof policyNoWindows>[0] = {}): Policy =>
  policyNoWindows({ sizing: 'headroom', headroomFactor: 0.5, headroomDownMargin: 2, ...extra });
const bounds = {
  min: 30,
  max: 80,
  minReplicas: 1,
  maxReplicas: 20,
  step: 1,
  sizing: 'headroom',
  gpus: 1,
  headroomFactor: 0.5,
  headroomDownMargin: 2,
} as const;

describe('bandEdgeReplicas: the most replicas that keep the load at or above min each', () => {
  it.each<[string, number, number, number, number]>([
    ['ExactlyFourAtMin', 1.2, 1, 30, 4],
    ['JustBelowFourAtMin', 1.19, 1, 30, 3],
    ['TwoGpusPerPod', 2.4, 2, 30, 4],
    ['UnderOneReplica', 0.25, 1, 30, 0],
    ['NoLoad', 0, 1, 30, 0],
    ['MinZeroEveryCount', 1, 1, 0, Infinity],
  ])('%s', (_name, l, gpus, min, want) => {
    expect(bandEdgeReplicas(l, gpus, min)).toBe(want);
  });
});

describe('downReplicas: the margin in band, below min the margin up to the band edge, never under the up target', () => {
  it.each<[string, number, number, Partial<typeof bounds> | object, number]>([
    // Below min (20 % on 6): the edge binds the margin's 5.
    ['EdgeExactlyFour', 1.2, 20, {}, 4],
    ['EdgeJustBelowFour', 1.19, 19.83, {}, 3],
    // The margin's target binds when it is under the edge: 3.3 GPUs, margin ceil(9.80) = 10, edge 11.
    ['MarginUnderTheEdge', 3.3, 19.4, {}, 10],
    // The edge under the up target: the up target (0.25 GPU at β 1 + 0.25: edge 0, up 1).
    ['EdgeUnderTheUpTarget', 0.25, 12.5, { headroomFactor: 1, headroomDownMargin: 0.25 }, 1],
    // In band (exactly min takes the margin): β + margin, 1.2 GPUs on 4 → 5.
    ['ExactlyMinTakesTheWholeMargin', 1.2, 30, {}, 5],
    // Margin 0: the up target on both sides.
    ['NoMargin', 1.2, 20, { headroomDownMargin: 0 }, 3],
    // minReplicas lifts the result above the edge.
    ['MinReplicasAboveTheEdge', 1.2, 20, { minReplicas: 6 }, 6],
  ])('%s', (_name, l, u, over, want) => {
    expect(downReplicas(l, u, { ...bounds, ...over })).toBe(want);
  });
});

describe('headroom below min keeps the margin up to the band edge (β 0.5, margin 2, no windows)', () => {
  it.each<[string, number, number, string]>([
    // Before, below min dropped the margin and went to the up target, 3: the next rise reversed it.
    ['SixPodsAtTwentyGoToTheEdge', 1.2, 6, 'scale-down HeadroomSpare 4'],
    ['JustBelowTheEdgeGoToThree', 1.19, 6, 'scale-down HeadroomSpare 3'],
    ['FourPodsJustBelowMinGoToThree', 1.19, 4, 'scale-down HeadroomSpare 3'],
    // Exactly min (30 % on 4) is in band: the margin's 5 is above 4, it holds.
    ['FourPodsExactlyAtMinHold', 1.2, 4, 'hold WithinRange 4'],
    ['SeventeenPodsKeepTheMarginsTen', 3.3, 17, 'scale-down HeadroomSpare 10'],
  ])('%s', (_name, gpus, pods, want) => {
    expect(brief(headroom(factsOf(load(gpus, pods), fast())))).toBe(want);
  });

  it('says where the margin stops', () => {
    expect(headroom(factsOf(load(1.2, 6), fast())).message).toBe(
      "load 1.2 GPU(s) over 6 of 6 Ready pod(s) + 0.5×√1.2 headroom needs 3 replica(s) at max 80%; utilisation 20% is below min 30%, so the margin stops at the band's edge, 4 replica(s) at ≥ min; scaling 6 → 4",
    );
  });

  it('the stabilisation window re-derives a below-min pass the same way', () => {
    const rec = (u: number) =>
      recommendationOf(scalingRecord(secondsAgo(1), 'hold', 'WithinRange', 6, 6, u), bounds);
    expect(rec(20)).toBe(4); // 1.2 GPUs: the edge
    expect(rec(19.8)).toBe(3); // 1.188 GPUs: the edge 3.96 → 3
  });

  it('the crossing trigger asks for a pass only when the rule would scale down', () => {
    const view = {
      sizing: 'headroom',
      min: 30,
      max: 80,
      minReplicas: 1,
      maxReplicas: 20,
      gpus: 1,
      headroomFactor: 0.5,
      headroomDownMargin: 2,
    } as const;
    // 1.2 GPUs seen over 6 Ready pods (20 %): 4 replicas are the edge (no pass), 5 go down.
    expect(bandCrossing({ ...view, replicas: 4 }, 20, 6)).toBe(null);
    expect(bandCrossing({ ...view, replicas: 5 }, 20, 6)).toBe('down');
  });
});
