/**
 * The status page's times on one clock: the snapshot's and the pass's ages are measured on the
 * clock the health line is judged on (the newest pass's own time when a simulated clock ran ahead
 * of this machine's, as after `gpuops demo`), and the page says when that clock is not this
 * machine's, instead of printing the read time beside records from its future.
 */
import { describe, expect, it } from 'vitest';
import { renderStatusHtml } from '../../src/status/html.js';
import { buildStatusView } from '../../src/status/model.js';
import { renderStatusText } from '../../src/status/text.js';
import { statusTimes } from '../../src/status/times.js';

const READ = '2026-12-07T01:56:04.000Z';

/** [what, snapshot time, pass time, the records' line, the clock's line (null: this machine's)]. */
const ROWS: [string, string | null, string | null, string, string | null][] = [
  [
    'a simulated clock 79 min ahead (after gpuops demo)',
    '2026-12-07T03:14:30.000Z',
    '2026-12-07T03:14:39.000Z',
    'snapshot 2026-12-07T03:14:30.000Z (9 s old) · last pass 2026-12-07T03:14:39.000Z (0 s ago)',
    "the records are 79 min ahead of this machine's clock (a simulated clock wrote them: gpuops demo or sim); ages are on their clock",
  ],
  [
    'one second ahead',
    READ,
    '2026-12-07T01:56:05.000Z',
    `snapshot ${READ} (1 s old) · last pass 2026-12-07T01:56:05.000Z (0 s ago)`,
    "the records are 1 s ahead of this machine's clock (a simulated clock wrote them: gpuops demo or sim); ages are on their clock",
  ],
  [
    'the pass at the read time: this machine’s clock',
    READ,
    READ,
    `snapshot ${READ} (0 s old) · last pass ${READ} (0 s ago)`,
    null,
  ],
  [
    'a pass a minute before the read (a controller on this clock)',
    '2026-12-07T01:54:04.000Z',
    '2026-12-07T01:55:04.000Z',
    'snapshot 2026-12-07T01:54:04.000Z (2 min old) · last pass 2026-12-07T01:55:04.000Z (60 s ago)',
    null,
  ],
  ['nothing recorded yet', null, null, 'snapshot none yet · last pass none yet', null],
];

describe('status times: each age on one clock, the clock named when it is not this machine’s', () => {
  it.each(ROWS)('%s', (_what, snapshotAt, passAt, records, clock) => {
    expect(statusTimes({ generatedAt: READ, snapshotAt, passAt })).toEqual({
      read: `read ${READ} (UTC, this machine's clock)`,
      records,
      clock,
    });
  });

  it('the text and the HTML say it under the title', () => {
    const empty = buildStatusView({
      cluster: 'demo',
      now: new Date(READ),
      snapshot: null,
      fleet: null,
      samples: new Map(),
      history: new Map(),
      pullRequests: [],
      recentDecisions: [],
    });
    const [, snapshotAt, passAt, records, clock] = ROWS[0]!;
    const v = { ...empty, snapshotAt, passAt };
    expect(renderStatusText(v).split('\n').slice(0, 3)).toEqual([
      `gpuops status · cluster demo · read ${READ} (UTC, this machine's clock)`,
      records,
      clock,
    ]);
    expect(renderStatusHtml(v)).toContain('79 min ahead of this machine&#39;s clock');
  });
});
