import { describe, expect, it } from 'vitest';
import { place } from '../../src/placement/place.js';
import type { BenchmarkOutcome, PlacementInput } from '../../src/placement/types.js';

const THRESHOLD = 600;
const ok = (medianSeconds: number): BenchmarkOutcome => ({ status: 'Succeeded', medianSeconds, message: '' });
const ended = (status: BenchmarkOutcome['status'], message = 'exit code 1'): BenchmarkOutcome => ({
  status,
  medianSeconds: null,
  message,
});

describe('place', () => {
  it.each<{
    name: string;
    input: Omit<PlacementInput, 'algorithm'>;
    pool: string | null;
    reason: string;
    runTime: number | null;
  }>([
    {
      name: 'LongRunAboveThreshold',
      input: { pinned: 'auto', benchmark: ok(601) },
      pool: 'long-task',
      reason: 'AboveThreshold',
      runTime: 601,
    },
    {
      name: 'ShortRunBelowThreshold',
      input: { pinned: 'auto', benchmark: ok(42.5) },
      pool: 'short-task',
      reason: 'BelowThreshold',
      runTime: 42.5,
    },
    {
      name: 'ExactlyAtThresholdIsShort',
      input: { pinned: 'auto', benchmark: ok(600) },
      pool: 'short-task',
      reason: 'BelowThreshold',
      runTime: 600,
    },
    {
      name: 'PinnedLongDespiteShortRun',
      input: { pinned: 'long-task', benchmark: ok(10) },
      pool: 'long-task',
      reason: 'Pinned',
      runTime: 10,
    },
    {
      name: 'PinnedShortWithoutBenchmark',
      input: { pinned: 'short-task', benchmark: null },
      pool: 'short-task',
      reason: 'Pinned',
      runTime: null,
    },
    {
      name: 'PinnedButBenchmarkFailed',
      input: { pinned: 'long-task', benchmark: ended('Failed') },
      pool: null,
      reason: 'BenchmarkFailed',
      runTime: null,
    },
    {
      name: 'NoBenchmarkYet',
      input: { pinned: 'auto', benchmark: null },
      pool: null,
      reason: 'BenchmarkPending',
      runTime: null,
    },
    {
      name: 'BenchmarkStillRunning',
      input: { pinned: 'auto', benchmark: ended('Pending', '1 of 3 runs done') },
      pool: null,
      reason: 'BenchmarkPending',
      runTime: null,
    },
    {
      name: 'FailedRun',
      input: { pinned: 'auto', benchmark: ended('Failed') },
      pool: null,
      reason: 'BenchmarkFailed',
      runTime: null,
    },
    {
      name: 'TimedOutRun',
      input: { pinned: 'auto', benchmark: ended('TimedOut') },
      pool: null,
      reason: 'BenchmarkFailed',
      runTime: null,
    },
    {
      name: 'UnschedulablePod',
      input: { pinned: 'auto', benchmark: ended('Unschedulable') },
      pool: null,
      reason: 'BenchmarkFailed',
      runTime: null,
    },
  ])('$name', ({ input, pool, reason, runTime }) => {
    const p = place({ algorithm: 'algo', ...input }, THRESHOLD);
    expect(p).toMatchObject({ algorithm: 'algo', pool, reason, runTimeSeconds: runTime });
    expect(p.message.length).toBeGreaterThan(0);
  });

  it('messages carry the figures', () => {
    expect(place({ algorithm: 'a', pinned: 'auto', benchmark: ok(601) }, THRESHOLD).message).toBe(
      'median run time 601 s > long-task threshold 600 s',
    );
    expect(
      place({ algorithm: 'a', pinned: 'auto', benchmark: ended('Unschedulable', '0/3 nodes') }, THRESHOLD)
        .message,
    ).toContain('Unschedulable: 0/3 nodes');
  });

  it.each([
    // a pin with a measured run time names it; a pin before any benchmark does not
    [
      { pinned: 'long-task', benchmark: ok(42) },
      'spec.placement.pool pins it to long-task (median run time 42 s)',
    ],
    [{ pinned: 'short-task', benchmark: null }, 'spec.placement.pool pins it to short-task'],
    // a failed benchmark with and without the runner's message
    [
      { pinned: 'auto', benchmark: ended('Failed', 'OOMKilled') },
      'benchmark ended Failed: OOMKilled; not placed until the spec changes',
    ],
    [
      { pinned: 'auto', benchmark: ended('Failed', '') },
      'benchmark ended Failed; not placed until the spec changes',
    ],
  ] as const)('message of %j', (input, message) => {
    expect(place({ algorithm: 'a', ...input }, THRESHOLD).message).toBe(message);
  });
});
