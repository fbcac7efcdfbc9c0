import { describe, expect, it } from 'vitest';
import { EventRate } from '../../src/cluster/event-rate.js';

const T0 = 1_800_000_000_000; // a whole second

describe('EventRate', () => {
  const rows: { name: string; events: [number, number][]; at: number; rate: number }[] = [
    { name: 'NoEventsIsZero', events: [], at: T0, rate: 0 },
    { name: 'EventsOfTheCurrentSecondCount', events: [[T0 + 999, 60]], at: T0 + 999, rate: 1 },
    {
      name: 'SpreadOverTheWindow',
      events: [
        [T0, 30],
        [T0 + 30_000, 30],
      ],
      at: T0 + 59_000,
      rate: 1,
    },
    // The window is [at − 59 s, at]: an event 59 s back counts, one 60 s back does not.
    { name: 'OldestSecondOfTheWindowCounts', events: [[T0, 60]], at: T0 + 59_999, rate: 1 },
    { name: 'OneSecondPastTheWindowIsGone', events: [[T0, 60]], at: T0 + 60_000, rate: 0 },
    // The ring reuses a bucket a minute later: the old count does not leak into the new second.
    {
      name: 'ReusedBucketStartsAfresh',
      events: [
        [T0, 600],
        [T0 + 60_000, 6],
      ],
      at: T0 + 60_000,
      rate: 0.1,
    },
  ];
  for (const row of rows)
    it(row.name, () => {
      const r = new EventRate(60);
      for (const [at, n] of row.events) r.record(at, n);
      expect(r.perSecond(row.at)).toBeCloseTo(row.rate, 10);
    });

  it('refuses a window that is not a whole number of seconds', () => {
    expect(() => new EventRate(0)).toThrow(/whole number/);
    expect(() => new EventRate(1.5)).toThrow(/whole number/);
  });
});
