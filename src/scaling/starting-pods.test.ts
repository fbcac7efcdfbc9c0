/** Which not-Ready replicas are still starting (`scaling.podStartupSeconds`), at the bound and either side of it. */
import { describe, expect, it } from 'vitest';
import { pod, RULE_NOW, secondsAgo } from '../../test/scaling/support.js';
import { splitUnready, stuckNote } from './starting-pods.js';

const NOW = RULE_NOW.getTime();
const split = (p: Parameters<typeof pod>[1], bound = 300) => {
  const { starting, stuck } = splitUnready([pod('p', p)], NOW, bound);
  return starting.length ? 'starting' : stuck.length ? `stuck ${stuck[0]!.ageSeconds}` : 'neither';
};

describe('splitUnready', () => {
  it.each<[string, Parameters<typeof pod>[1], string]>([
    ['Ready: neither', { ready: true, startedAt: secondsAgo(9999) }, 'neither'],
    ['started just now', { ready: false, startedAt: secondsAgo(0) }, 'starting'],
    ['just inside the bound', { ready: false, startedAt: secondsAgo(299.999) }, 'starting'],
    ['at the bound (exclusive, as the HPA)', { ready: false, startedAt: secondsAgo(300) }, 'stuck 300'],
    ['just past the bound', { ready: false, startedAt: secondsAgo(300.001) }, 'stuck 300.001'],
    ['a day in CrashLoopBackOff', { ready: false, startedAt: secondsAgo(86400) }, 'stuck 86400'],
    [
      'unbound: judged from its creation, inside',
      { ready: false, nodeName: null, phase: 'Pending', startedAt: null, createdAt: secondsAgo(299) },
      'starting',
    ],
    [
      'unbound: judged from its creation, past',
      { ready: false, nodeName: null, phase: 'Pending', startedAt: null, createdAt: secondsAgo(301) },
      'stuck 301',
    ],
    [
      'the start time wins over the creation time',
      { ready: false, createdAt: secondsAgo(3600), startedAt: secondsAgo(10) },
      'starting',
    ],
    [
      'Unschedulable: neither (not on its way)',
      { ready: false, unschedulable: true, nodeName: null, startedAt: null, createdAt: secondsAgo(9999) },
      'neither',
    ],
    ['terminating: neither', { ready: false, terminating: true, startedAt: secondsAgo(9999) }, 'neither'],
    ['a time that cannot be read: starting', { ready: false, startedAt: 'not a time' }, 'starting'],
  ])('%s', (_, p, want) => expect(split(p)).toBe(want));

  it('the bound is the policy’s: 60 s makes a 90 s old pod stuck', () => {
    expect(split({ ready: false, startedAt: secondsAgo(90) }, 60)).toBe('stuck 90');
  });
});

describe('stuckNote', () => {
  const stuck = (name: string, ageSeconds: number) => ({ pod: pod(name), ageSeconds });
  it('nothing stuck: empty', () => expect(stuckNote([], 300)).toBe(''));
  it('names at most three, with their age', () => {
    expect(stuckNote([stuck('a', 301), stuck('b', 7200), stuck('c', 45), stuck('d', 1)], 300)).toBe(
      '4 replica(s) not Ready past the start-up bound of 300 s, left out of capacity and utilisation: ' +
        'algorithms/a (started 5 min ago), algorithms/b (started 2 h ago), algorithms/c (started 45 s ago) and 1 more',
    );
  });
});
