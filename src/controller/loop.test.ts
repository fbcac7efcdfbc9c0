import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { backoffSeconds, runLoop } from './loop.js';
import { createControllerMetrics } from './metrics.js';

describe('backoffSeconds', () => {
  it.each([
    [10, 0, 300, 10],
    [10, 1, 300, 20],
    [10, 3, 300, 80],
    [10, 10, 300, 300],
  ])('interval %d s after %d failures (cap %d) waits %d s', (interval, failures, cap, want) => {
    expect(backoffSeconds(interval, failures, cap)).toBe(want);
  });
});

describe('runLoop', () => {
  it('runs passes one at a time, counts results, and stops when aborted', async () => {
    const metrics = createControllerMetrics(false);
    const ac = new AbortController();
    let running = 0;
    let maxConcurrent = 0;
    let calls = 0;
    const passes = await runLoop({
      pass: async () => {
        running++;
        maxConcurrent = Math.max(maxConcurrent, running);
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (calls === 2) throw new Error('boom');
        if (calls === 4) ac.abort();
        return {
          nodes: 3,
          algorithms: 1,
          decisions: 2,
          prs: 0,
          errors: 0,
          reasons: [{ kind: 'scaling', reason: 'AboveMax' }],
        };
      },
      intervalSeconds: 0.001,
      maxBackoffSeconds: 0.01,
      log: pino({ level: 'silent' }),
      metrics,
      signal: ac.signal,
    });
    expect(passes).toBe(3);
    expect(maxConcurrent).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toContain('gpuops_reconcile_passes_total{result="success"} 3');
    expect(text).toContain('gpuops_reconcile_passes_total{result="error"} 1');
    expect(text).toContain('gpuops_decisions_total{kind="scaling",reason="AboveMax"} 3');
  });

  it('runs no pass while not leading', async () => {
    const ac = new AbortController();
    let calls = 0;
    setTimeout(() => ac.abort(), 50);
    await runLoop({
      pass: async () => {
        calls++;
        return { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };
      },
      intervalSeconds: 0.001,
      maxBackoffSeconds: 0.01,
      isLeader: () => false,
      log: pino({ level: 'silent' }),
      metrics: createControllerMetrics(false),
      signal: ac.signal,
    });
    expect(calls).toBe(0);
  });

  it('waits with the given sleep after a pass that succeeded, never after one that failed', async () => {
    const ac = new AbortController();
    const waits: string[] = [];
    let calls = 0;
    await runLoop({
      pass: async () => {
        calls++;
        if (calls === 3) ac.abort();
        if (calls === 2) throw new Error('boom');
        return { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };
      },
      intervalSeconds: 0.001,
      maxBackoffSeconds: 0.01,
      log: pino({ level: 'silent' }),
      metrics: createControllerMetrics(false),
      signal: ac.signal,
      sleep: (ms) => {
        waits.push(`after ${calls}: ${ms} ms`);
        return Promise.resolve();
      },
    });
    // Pass 1 succeeded: the given sleep; pass 2 failed: the backoff's own; pass 3: the given again.
    expect(waits).toEqual(['after 1: 1 ms', 'after 3: 1 ms']);
  });

  it('runs afterPass after every pass, failed ones too, outside its duration and before the wait', async () => {
    const ac = new AbortController();
    const events: string[] = [];
    const metrics = createControllerMetrics(false);
    let calls = 0;
    const passes = await runLoop({
      pass: async () => {
        calls++;
        events.push(`pass ${calls}`);
        if (calls === 3) ac.abort();
        if (calls === 2) throw new Error('boom');
        return { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };
      },
      afterPass: async () => {
        // The pass's duration was observed before this runs.
        const observed = (await metrics.passDuration.get()).values.find((v) =>
          v.metricName?.endsWith('_count'),
        );
        events.push(`after ${calls} (durations observed: ${observed?.value ?? 0})`);
        if (calls === 1) throw new Error('disk I/O error');
      },
      intervalSeconds: 0.001,
      maxBackoffSeconds: 0.001,
      log: pino({ level: 'silent' }),
      metrics,
      signal: ac.signal,
      sleep: () => {
        events.push(`wait after ${calls}`);
        return Promise.resolve();
      },
    });
    // afterPass failing (pass 1) fails neither the pass nor the loop.
    expect(passes).toBe(2);
    expect(events).toEqual([
      'pass 1',
      'after 1 (durations observed: 1)',
      'wait after 1',
      'pass 2',
      'after 2 (durations observed: 2)',
      'pass 3',
      'after 3 (durations observed: 3)',
      'wait after 3',
    ]);
  });
});
