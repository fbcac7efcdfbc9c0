import { describe, expect, it } from 'vitest';
import { baseInput, brief, factsOf } from '../../../test/scaling/support.js';
import { withinBand } from './within-band.js';

describe('withinBand: min and max are both in band (30–80)', () => {
  it.each<[string, number[], string]>([
    ['JustBelowMinIsOutside', [29.9], 'null'],
    ['ExactlyMinHolds', [30], 'hold WithinRange 1'],
    ['ExactlyMaxHolds', [80], 'hold WithinRange 1'],
    ['JustAboveMaxIsOutside', [80.1], 'null'],
    ['NoUtilisationIsNotThisRulesCase', [], 'null'],
  ])('%s', (_name, utils, want) => {
    const input = { ...baseInput(utils), replicas: 1 };
    expect(brief(withinBand(factsOf(input)))).toBe(want);
  });

  it('names the utilisation, the pods it was judged over and the band', () => {
    expect(withinBand(factsOf(baseInput([50, 60, 70])))?.message).toBe(
      'utilisation 60% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 3',
    );
  });
});
