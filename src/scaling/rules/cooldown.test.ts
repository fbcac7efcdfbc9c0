import { describe, expect, it } from 'vitest';
import type { DecisionRecord } from '../types.js';
import { brief, factsWith, policyNoWindows, recordAgo } from '../../../test/scaling/support.js';
import { cooldown } from './cooldown.js';

const change = (s: number, action = 'scale-up', from = 2, to = 3) =>
  recordAgo(s, action, 'AboveMax', from, to, 95);
/** Scale-up cooldown 120 s, scale-down 300 s. */
const p = policyNoWindows({ scaleUp: { cooldownSeconds: 120 }, scaleDown: { cooldownSeconds: 300 } });
const run = (recent: DecisionRecord[], direction: 'up' | 'down', policy = p) =>
  cooldown(factsWith(recent, policy), direction, 'why');

describe('cooldown: over at exactly cooldownSeconds after the last change', () => {
  it.each<[string, DecisionRecord[], 'up' | 'down', string]>([
    ['UpOneSecondBeforeItsEndHolds', [change(119)], 'up', 'hold CooldownActive 3'],
    ['UpExactlyAtItsEndIsOver', [change(120)], 'up', 'null'],
    ['DownOneSecondBeforeItsEndHolds', [change(299)], 'down', 'hold CooldownActive 3'],
    ['DownExactlyAtItsEndIsOver', [change(300)], 'down', 'null'],
    ['NoRecordNoCooldown', [], 'up', 'null'],
    ['AHoldIsNoChange', [recordAgo(10, 'hold', 'WithinRange', 3, 3, 50)], 'up', 'null'],
    ['ARelabelIsAChange', [change(10, 'relabel', 3, 3)], 'up', 'hold CooldownActive 3'],
    ['ARecordFromTheFutureIsNoChange', [change(-10)], 'up', 'null'],
    ['TheNewestChangeCounts', [change(500), change(60)], 'up', 'hold CooldownActive 3'],
    ['AnotherAlgorithmsChangeDoesNotCount', [{ ...change(10), subject: 'other' }], 'up', 'null'],
  ])('%s', (_name, recent, direction, want) => {
    expect(brief(run(recent, direction))).toBe(want);
  });

  it('zero seconds is off', () => {
    expect(run([change(1)], 'up', policyNoWindows())).toBeNull();
    expect(run([change(1)], 'down', policyNoWindows())).toBeNull();
  });

  it('says how long ago and how long the cooldown is, after why', () => {
    expect(run([change(60)], 'up')?.message).toBe('why; last change 60s ago, scale-up cooldown is 120s');
    expect(run([change(200)], 'down')?.message).toBe(
      'why; last change 200s ago, scale-down cooldown is 300s',
    );
  });
});
