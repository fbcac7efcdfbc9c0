/**
 * The replay's timeline (`slot-timeline.ts`): each part's ask, grant and release on the caller's
 * clock, the marks, and the slot-seconds no part held.
 */
import { describe, expect, it } from 'vitest';
import { formatTimeline, SlotTimeline } from './slot-timeline.js';
import { SlotPool } from './slots.js';

const settle = () => new Promise((r) => setImmediate(r));

describe('SlotTimeline', () => {
  it('records when each part asked, got its slot and gave it back, on the given clock', async () => {
    let now = 0;
    const t = new SlotTimeline(() => now);
    const pool = new SlotPool(1);
    const acquire = t.timed(pool.acquire, 'one service');
    const releaseFirst = await acquire('hpa', 2);
    now = 1;
    const second = acquire('model', 0);
    now = 5;
    releaseFirst();
    releaseFirst(); // a second release keeps the first instant
    await settle();
    now = 7;
    const releaseSecond = await second;
    now = 9;
    releaseSecond();
    t.mark('one service: end');
    expect(t.spans).toEqual([
      { what: 'one service: hpa', asked: 0, granted: 0, released: 5 },
      // Granted as the first gave its slot back, at 5.
      { what: 'one service: model', asked: 1, granted: 5, released: 9 },
    ]);
    expect(t.marks).toEqual([{ what: 'one service: end', at: 9 }]);
  });

  it('formats the parts in the order granted, the marks in time order and the idle slot-seconds', () => {
    const t = new SlotTimeline(() => 0);
    t.spans.push(
      { what: 'b', asked: 0, granted: 4, released: 10 },
      { what: 'a', asked: 0, granted: 2, released: 8 },
      { what: 'never', asked: 1 },
    );
    t.marks.push({ what: 'end', at: 12 }, { what: 'ask', at: 1.5 });
    const text = formatTimeline(t, 2, 12);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('timeline (seconds from the start):');
    expect(lines.slice(1, 4).map((l) => l.trim().split(/\s+/)[0])).toEqual(['a', 'b', 'never']);
    expect(lines[1]).toContain('slot    2.0 →    8.0  (6.0 s)');
    expect(lines[3]).toContain('slot      – →      –  (– s)');
    expect(lines.slice(4, 6).map((l) => l.trim().split(/\s+/)[0])).toEqual(['ask', 'end']);
    // 2 slots × 12 s = 24 slot-seconds, 6 + 6 held: 12 idle.
    expect(lines[6]).toBe('  slots idle 12.0 slot-seconds of 24.0 (2 slots × 12.0 s)');
  });
});
