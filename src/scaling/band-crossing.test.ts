import { describe, expect, it } from 'vitest';
import { bandCrossing, crossingSide, type BandView } from './band-crossing.js';

const view = (o: Partial<BandView> = {}): BandView => ({
  sizing: 'step',
  min: 30,
  max: 80,
  replicas: 4,
  minReplicas: 1,
  maxReplicas: 10,
  gpus: 1,
  headroomFactor: 1,
  headroomDownMargin: 0.25,
  ...o,
});

describe('bandCrossing, step and load sizing: min..max, both ends in band', () => {
  it.each<[string, Partial<BandView>, number, 'up' | 'down' | null]>([
    ['ExactlyMaxIsIn', {}, 80, null],
    ['AboveMaxIsUp', {}, 80.1, 'up'],
    ['ExactlyMinIsIn', {}, 30, null],
    ['BelowMinIsDown', {}, 29.9, 'down'],
    ['AtMaxReplicasNeverUp', { replicas: 10 }, 95, null],
    ['AtMinReplicasNeverDown', { replicas: 1 }, 5, null],
    ['LoadSizingToo', { sizing: 'load' }, 81, 'up'],
    ['NaNIsNoCrossing', {}, NaN, null],
    // Not a reading (a broken exporter's +Inf): no crossing, though it is "above" max.
    ['InfinityIsNoCrossing', {}, Infinity, null],
  ])('%s', (_name, o, u, want) => {
    expect(bandCrossing(view(o), u, 4)).toBe(want);
  });
});

describe('bandCrossing, headroom sizing: the targets at β (up) and at the scale-down β (down)', () => {
  it.each<[string, Partial<BandView>, number, 'up' | 'down' | null]>([
    // 4 × 40 % = 1.6 GPUs: (1.6 + 1.26) / 0.8 = 3.58 → 4: in.
    ['FourHoldTheLoad', {}, 40, null],
    // 4 × 45 % = 1.8: (1.8 + 1.34) / 0.8 = 3.93 → 4: in.
    ['JustInside', {}, 45, null],
    // 4 × 46 % = 1.84: (1.84 + 1.356) / 0.8 = 3.995 → 4: in; 47 %: 1.88 + 1.371 = 4.06 → 5: up.
    ['JustOutsideUp', {}, 47, 'up'],
    // 4 × 20 % = 0.8, at β + 0.25 (20 < min 30: β alone): (0.8 + 0.894) / 0.8 = 2.1 → 3 < 4: down.
    ['BelowMinDownAtBeta', {}, 20, 'down'],
    // 4 × 35 % = 1.4, β + 0.25: (1.4 + 1.479) / 0.8 = 3.6 → 4: in (at β alone: 3.23 → 4 as well).
    ['InBandTheMarginHolds', {}, 35, null],
    ['AtMaxReplicasNeverUp', { replicas: 4, maxReplicas: 4 }, 90, null],
  ])('%s', (_name, o, u, want) => {
    expect(bandCrossing(view({ sizing: 'headroom', ...o }), u, 4)).toBe(want);
  });
});

describe('bandCrossing, headroom sizing on 2-GPU pods: the load counts every GPU', () => {
  it.each<[string, number, 'up' | 'down' | null]>([
    // 4 pods × 2 GPUs × 40 % = 3.2 GPUs: (3.2 + 1.79) / 1.6 = 3.1 → 4: in (per GPU it would be 1.6: down).
    ['FourHoldTheLoad', 40, null],
    // 4 × 2 × 60 % = 4.8: (4.8 + 2.19) / 1.6 = 4.4 → 5: up.
    ['AboveIsUp', 60, 'up'],
    // 4 × 2 × 20 % = 1.6: (1.6 + 1.26) / 1.6 = 1.8 → 2 < 4: down.
    ['BelowIsDown', 20, 'down'],
  ])('%s', (_name, u, want) => {
    expect(bandCrossing(view({ sizing: 'headroom', gpus: 2 }), u, 4)).toBe(want);
  });
});

describe('crossingSide: the side the trigger watches, saturated apart from up (the flap hold lets a saturated scale-up through)', () => {
  it.each<[string, Partial<BandView>, number, 'up' | 'down' | 'saturated' | null]>([
    ['InBand', {}, 50, null],
    ['Below', {}, 10, 'down'],
    ['AboveNotSaturated', {}, 98.9, 'up'],
    // Exactly SATURATED_PERCENT (99 %) is saturated, as the flap hold counts it.
    ['ExactlySaturated', {}, 99, 'saturated'],
    ['Full', {}, 100, 'saturated'],
    ['HeadroomSaturated', { sizing: 'headroom' }, 99, 'saturated'],
    ['HeadroomJustBelow', { sizing: 'headroom' }, 98.9, 'up'],
    // At maxReplicas nothing can scale up: no side, however busy.
    ['AtMaxReplicasNone', { replicas: 10 }, 100, null],
  ])('%s', (_name, o, u, want) => {
    expect(crossingSide(view(o), u, 4)).toBe(want);
  });
});
