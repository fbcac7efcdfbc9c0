/**
 * What a pass prints and logs of its standby pod changes: one line per pod (claimed, given back,
 * deleted, refused with the reason, or what a dry run would do), and the counts of the pass's
 * summary log line; nothing when there were none.
 */
import { describe, expect, it } from 'vitest';
import { formatStandbyOutcomes, standbyCounts, type StandbyOutcome } from '../../src/pass/standby.js';

const outcome = (kind: StandbyOutcome['kind'], pod: string, ok: boolean, message = ''): StandbyOutcome => ({
  kind,
  set: 'llm',
  algorithm: 'bert',
  namespace: 'algorithms',
  pod,
  ok,
  message,
});

describe('the standby lines of a pass', () => {
  it('one line per pod: done, or refused with the reason', () => {
    const outcomes = [
      outcome('claim', 'p1', true),
      outcome('give-back', 'p2', true),
      outcome('delete', 'p3', true),
      outcome('claim', 'p4', false, 'pod algorithms/p4: wake http://x/wake for bert failed (answered 503)'),
    ];
    expect(formatStandbyOutcomes(outcomes, false)).toEqual([
      'standby pods:',
      '  claimed    algorithms/p1 → bert (set llm)',
      '  given back algorithms/p2 → bert (set llm)',
      '  deleted    algorithms/p3 → bert (set llm)',
      '  refused claim algorithms/p4 → bert (set llm): pod algorithms/p4: wake http://x/wake for bert failed (answered 503)',
    ]);
    expect(standbyCounts(outcomes)).toEqual({ claimed: 1, givenBack: 1, deleted: 1, refused: 1 });
  });

  it('a dry run says what it would do; none: no line and no counts', () => {
    expect(formatStandbyOutcomes([outcome('give-back', 'p2', false, 'would …')], true)).toEqual([
      'standby pods (dry run: nothing sent):',
      '  would give-back algorithms/p2 → bert (set llm)',
    ]);
    expect(formatStandbyOutcomes([], false)).toEqual([]);
    expect(standbyCounts([])).toBeNull();
  });
});
