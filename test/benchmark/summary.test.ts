import { describe, expect, it } from 'vitest';
import { median, startRetryBackoffSeconds, summarizeRuns } from '../../src/benchmark/summary.js';
import type { BenchmarkRun } from '../../src/store/types.js';

function run(n: number, status: BenchmarkRun['status'], durationSeconds: number | null = null): BenchmarkRun {
  return {
    algorithm: 'a',
    specHash: 'h',
    run: n,
    status,
    durationSeconds: status === 'Succeeded' ? durationSeconds : null,
    node: status === 'Succeeded' ? 'gpu-1' : null,
    jobName: `a-bench-h-${n}`,
    startedAt: '2025-01-01T00:00:00.000Z',
    finishedAt: '2025-01-01T00:01:00.000Z',
    message: status,
  };
}

describe('median', () => {
  it.each([
    { name: 'odd count takes the middle', values: [30, 10, 20], want: 20 },
    { name: 'even count averages the two middle', values: [40, 10, 30, 20], want: 25 },
    { name: 'one outlier does not move it', values: [10, 11, 900], want: 11 },
    { name: 'single value', values: [7.5], want: 7.5 },
  ])('$name', ({ values, want }) => expect(median(values)).toBe(want));

  it('throws on no values', () => expect(() => median([])).toThrow(RangeError));
});

describe('summarizeRuns', () => {
  it.each([
    {
      name: 'no runs: pending, all runs left',
      runs: [],
      want: { status: 'Pending', medianSeconds: null, remaining: 3, nextRun: 1, final: false },
    },
    {
      name: 'two of three done: pending, one left, next run 3',
      runs: [run(1, 'Succeeded', 40), run(2, 'Succeeded', 50)],
      want: { status: 'Pending', remaining: 1, nextRun: 3, final: false },
    },
    {
      name: 'three successes: median counts, final',
      runs: [run(1, 'Succeeded', 40), run(2, 'Succeeded', 70), run(3, 'Succeeded', 50)],
      want: { status: 'Succeeded', medianSeconds: 50, remaining: 0, nextRun: 4, final: true },
    },
    {
      name: 'a failed run ends it for good at this spec',
      runs: [run(1, 'Succeeded', 40), run(2, 'Failed')],
      want: { status: 'Failed', medianSeconds: null, remaining: 0, final: true },
    },
    {
      name: 'a timed-out run ends it for good',
      runs: [run(1, 'TimedOut')],
      want: { status: 'TimedOut', final: true },
    },
    {
      name: 'unschedulable last: reported, retried next pass with a new run number',
      runs: [run(1, 'Unschedulable')],
      want: { status: 'Unschedulable', remaining: 3, nextRun: 2, final: false },
    },
    {
      name: 'successes after an unschedulable attempt still count',
      runs: [
        run(1, 'Unschedulable'),
        run(2, 'Succeeded', 10),
        run(3, 'Succeeded', 12),
        run(4, 'Succeeded', 14),
      ],
      want: { status: 'Succeeded', medianSeconds: 12, final: true },
    },
    {
      name: 'a disrupted run is no result: pending, retried at once, no retryAt',
      runs: [run(1, 'Succeeded', 40), run(2, 'Disrupted')],
      want: { status: 'Pending', remaining: 2, nextRun: 3, final: false, retryAt: null },
    },
    {
      name: 'four disrupted runs: still retried (one below the limit)',
      runs: [1, 2, 3, 4].map((n) => run(n, 'Disrupted')),
      want: { status: 'Pending', final: false },
    },
    {
      name: 'five disrupted runs (the limit): Failed, final',
      runs: [1, 2, 3, 4, 5].map((n) => run(n, 'Disrupted')),
      want: { status: 'Failed', final: true, remaining: 0 },
    },
    {
      name: 'a failed start: pending, retried 300 s after it ended',
      runs: [run(1, 'StartFailed')],
      want: { status: 'Pending', final: false, nextRun: 2, retryAt: new Date('2025-01-01T00:06:00.000Z') },
    },
    {
      name: 'three failed starts in a row: backoff doubles twice (1200 s)',
      runs: [run(1, 'StartFailed'), run(2, 'StartFailed'), run(3, 'StartFailed')],
      want: { status: 'Pending', final: false, retryAt: new Date('2025-01-01T00:21:00.000Z') },
    },
    {
      name: 'a success between failed starts resets the count',
      runs: [run(1, 'StartFailed'), run(2, 'Succeeded', 9), run(3, 'StartFailed')],
      want: { status: 'Pending', final: false, retryAt: new Date('2025-01-01T00:06:00.000Z') },
    },
  ])('$name', ({ runs, want }) => {
    expect(summarizeRuns(runs as BenchmarkRun[], 3)).toMatchObject(want);
  });
});

describe('startRetryBackoffSeconds', () => {
  it.each([
    { failures: 0, want: 0 },
    { failures: 1, want: 300 },
    { failures: 2, want: 600 },
    { failures: 4, want: 2400 },
    { failures: 5, want: 3600 }, // 4800 capped at one hour
    { failures: 9, want: 3600 },
  ])('$failures failed start(s) in a row → $want s', ({ failures, want }) =>
    expect(startRetryBackoffSeconds(300, failures)).toBe(want),
  );
});
