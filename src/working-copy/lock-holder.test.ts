/** Table test of `holderGone`: each row one holder a lock file can name, and the side it falls on. */
import { describe, expect, it } from 'vitest';
import { formatHolder, holderGone, parseHolder, type LockHolder, type ProcessProbe } from './lock-holder.js';

const here = { pid: 1, host: 'gpuops-7d9f', boot: 'boot-a', token: 'me' };
/** PID 42 runs with start time 900; PID 1 is this process (start 500); nothing else runs. */
const probe: ProcessProbe = {
  startOf: (pid) => ({ 1: '500', 42: '900' })[pid] ?? null,
  answers: (pid) => pid === 1 || pid === 42,
};
const noProc: ProcessProbe = { startOf: () => undefined, answers: probe.answers };
const h = (o: Partial<LockHolder>): LockHolder => ({
  pid: 42,
  host: 'gpuops-7d9f',
  boot: 'boot-a',
  start: '900',
  token: 'other',
  ...o,
});

describe('holderGone', () => {
  it.each([
    ['a live process of this host, same start time', h({}), probe, 0, false],
    ['the same PID reused by a later process (other start time)', h({ start: '1200' }), probe, 0, true],
    ['a PID no process has', h({ pid: 77 }), probe, 0, true],
    [
      'this PID, this process (another working copy of it)',
      h({ pid: 1, start: '500', token: 'me' }),
      probe,
      0,
      false,
    ],
    [
      'this PID, a predecessor: a container restarted in its Pod',
      h({ pid: 1, start: '500' }),
      probe,
      0,
      true,
    ],
    ['this PID in an older gpuops record (pid@host)', parseHolder('1@gpuops-7d9f'), probe, 0, true],
    ['an older record of a live PID', parseHolder('42@gpuops-7d9f'), probe, 0, false],
    ['an older record of a dead PID', parseHolder('77@gpuops-7d9f'), probe, 0, true],
    ['another boot of this host', h({ boot: 'boot-b' }), probe, 0, true],
    ['no /proc: judged by a signal 0', h({ pid: 42, start: '1' }), noProc, 0, false],
    ['another host, renewed 59 s ago', h({ host: 'other-node' }), probe, 59_000, false],
    ['another host, not renewed for 61 s', h({ host: 'other-node' }), probe, 61_000, true],
    ['an empty record, 59 s old', null, probe, 59_000, false],
    ['an empty record, 61 s old', null, probe, 61_000, true],
  ])('%s → gone: %s', (_what, holder, p, ageMs, gone) => {
    expect(holderGone(holder, here, p, ageMs, 60_000)).toBe(gone);
  });

  it('reads back what it writes, and nothing from a record cut short', () => {
    expect(parseHolder(formatHolder(h({})))).toEqual(h({}));
    expect(parseHolder('')).toBeNull();
    expect(parseHolder('{"pid":42,"host":"x"')).toBeNull();
    expect(parseHolder('{"pid":"42","host":"x"}')).toBeNull();
  });
});
