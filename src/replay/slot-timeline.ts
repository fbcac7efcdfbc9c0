/**
 * Where a replay's wall time goes (issue 42): when each CPU-bound part asked for a slot, got it and
 * gave it back, and the instants a section marks (its start, its first ask, its end), in seconds
 * from the replay's start. Pure: the caller gives the clock. `npm run replay` prints the timeline on
 * stderr after the figures.
 */
import type { AcquireSlot } from './slots.js';

/** One part's slot: asked, granted and released (seconds from the start; undefined until then). */
export interface PartSpan {
  what: string;
  asked: number;
  granted?: number;
  released?: number;
}

/** One instant a caller marks (`one service: first ask`), seconds from the start. */
export interface TimelineMark {
  what: string;
  at: number;
}

/** Records the spans of the parts that acquire through {@link SlotTimeline.timed} and the marks. */
export class SlotTimeline {
  readonly spans: PartSpan[] = [];
  readonly marks: TimelineMark[] = [];

  /** `now`: seconds from the replay's start. */
  constructor(private readonly now: () => number) {}

  /** `acquire` recording each part's span, named `prefix: what` (or `what` without a prefix). */
  timed(acquire: AcquireSlot, prefix?: string): AcquireSlot {
    return async (what, priority) => {
      const span: PartSpan = { what: prefix ? `${prefix}: ${what}` : what, asked: this.now() };
      this.spans.push(span);
      const release = await acquire(what, priority);
      span.granted = this.now();
      return () => {
        if (span.released === undefined) span.released = this.now();
        release();
      };
    };
  }

  /** Marks an instant `what` now. */
  mark(what: string): void {
    this.marks.push({ what, at: this.now() });
  }
}

const s1 = (x: number | undefined) => (x === undefined ? '     –' : x.toFixed(1).padStart(6));

/**
 * The timeline as lines: each part (in the order granted) with its ask, its slot and the slot's
 * length, then the marks in time order, then the slot-seconds no part held between the start and
 * `end` on `slots` slots (slot-seconds left unused by the order; with more slots than cores, not
 * idle cores, and never the parts' own waits).
 */
export function formatTimeline(t: SlotTimeline, slots: number, end: number): string {
  const width = Math.max(4, ...t.spans.map((s) => s.what.length), ...t.marks.map((m) => m.what.length));
  const byGrant = [...t.spans].sort((a, b) => (a.granted ?? Infinity) - (b.granted ?? Infinity));
  const lines = byGrant.map((s) => {
    const held = s.granted !== undefined && s.released !== undefined ? s.released - s.granted : undefined;
    return `  ${s.what.padEnd(width)}  asked ${s1(s.asked)}  slot ${s1(s.granted)} → ${s1(s.released)}  (${held === undefined ? '–' : held.toFixed(1)} s)`;
  });
  const marks = [...t.marks].sort((a, b) => a.at - b.at);
  for (const m of marks) lines.push(`  ${m.what.padEnd(width)}  at    ${s1(m.at)}`);
  const held = t.spans.reduce(
    (sum, s) => sum + (s.granted === undefined ? 0 : (s.released ?? end) - s.granted),
    0,
  );
  const idle = Math.max(0, slots * end - held);
  lines.push(
    `  slots idle ${idle.toFixed(1)} slot-seconds of ${(slots * end).toFixed(1)} (${slots} slots × ${end.toFixed(1)} s)`,
  );
  return `timeline (seconds from the start):\n${lines.join('\n')}\n`;
}
