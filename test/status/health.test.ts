/**
 * The summary line's rules (src/status/health.ts), as table tests: each rule on both sides of its
 * threshold, the worst level wins, causes from other parts join as data, counts agree in number.
 */
import { describe, expect, it } from 'vitest';
import {
  HEALTH_DEFAULTS,
  healthCauses,
  plural,
  summarizeHealth,
  type HealthCause,
  type HealthFacts,
} from '../../src/status/health.js';

const NOW = 1_764_000_000;
const facts = (over: Partial<HealthFacts> = {}): HealthFacts => ({
  ...HEALTH_DEFAULTS,
  now: NOW,
  passAt: NOW - 20,
  algorithmsWithoutMetrics: [],
  failedBenchmarks: [],
  openPullRequests: [],
  ...over,
});

describe('health summary', () => {
  it.each([
    ['a fresh pass and nothing wrong is healthy', facts(), 'ok', 'Healthy: last pass 20 s ago'],
    [
      'no pass at all is unhealthy',
      facts({ passAt: null }),
      'critical',
      'Unhealthy: no reconcile pass recorded yet',
    ],
    [
      'a pass exactly 600 s old is not stale yet',
      facts({ passAt: NOW - 600 }),
      'ok',
      'Healthy: last pass 10 min ago',
    ],
    [
      'a pass 601 s old is stale',
      facts({ passAt: NOW - 601 }),
      'critical',
      'Unhealthy: last pass 10 min ago',
    ],
    [
      'one algorithm without metrics degrades, in the singular',
      facts({ algorithmsWithoutMetrics: ['bert-train'] }),
      'warning',
      'Degraded: no GPU metrics for 1 algorithm (bert-train) · last pass 20 s ago',
    ],
    [
      'algorithms held on a partial metrics answer degrade, naming them',
      facts({ algorithmsOnPartialMetrics: ['bert-train', 'resnet'] }),
      'warning',
      'Degraded: the metrics store answered in part: 2 algorithms held (bert-train, resnet) · last pass 20 s ago',
    ],
    [
      'no algorithm held on a partial answer is no cause',
      facts({ algorithmsOnPartialMetrics: [] }),
      'ok',
      'Healthy: last pass 20 s ago',
    ],
    [
      'four failed benchmarks: three named, the rest counted',
      facts({ failedBenchmarks: ['a', 'b', 'c', 'd'] }),
      'critical',
      'Unhealthy: 4 benchmarks failed (a, b, c and 1 more) · last pass 20 s ago',
    ],
    [
      'a pull request open exactly 24 h is not waiting too long',
      facts({ openPullRequests: [{ branch: 'gpuops/prod/pools', openedAt: NOW - 86_400 }] }),
      'ok',
      'Healthy: last pass 20 s ago',
    ],
    [
      'a pull request open 24 h and a second is waiting too long',
      facts({ openPullRequests: [{ branch: 'gpuops/prod/pools', openedAt: NOW - 86_401 }] }),
      'warning',
      'Degraded: 1 pull request waiting for review, the oldest for 24 h · last pass 20 s ago',
    ],
    [
      'a replica that cannot be placed for exactly the start-up allowance is still starting',
      facts({ unplaceable: [{ name: 'llm', since: NOW - 300, message: 'no node fits' }] }),
      'ok',
      'Healthy: last pass 20 s ago',
    ],
    [
      'a replica that cannot be placed for a second longer degrades, with the decision’s message',
      facts({ unplaceable: [{ name: 'llm', since: NOW - 301, message: 'no node fits' }] }),
      'warning',
      'Degraded: llm cannot place a replica for 5 min (NoCapacity: no node fits) · last pass 20 s ago',
    ],
    [
      'the allowance is the policy’s podStartupSeconds',
      facts({
        startupAllowanceSeconds: 900,
        unplaceable: [{ name: 'llm', since: NOW - 600, message: 'no node fits' }],
      }),
      'ok',
      'Healthy: last pass 20 s ago',
    ],
  ] as const)('%s', (_, f, level, line) => {
    const summary = summarizeHealth(healthCauses(f), f);
    expect(summary.level).toBe(level);
    expect(summary.line).toBe(line);
  });

  it('takes causes from other parts as data; a critical one wins over a warning', () => {
    const f = facts({ algorithmsWithoutMetrics: ['x'] });
    const cache: HealthCause = {
      level: 'critical',
      reason: 'CacheNotSynced',
      message: 'cluster cache not synced',
    };
    const s = summarizeHealth([...healthCauses(f), cache], f);
    expect(s.level).toBe('critical');
    expect(s.word).toBe('Unhealthy');
    expect(s.causes.map((c) => c.reason)).toEqual(['NoMetrics', 'CacheNotSynced']);
    expect(s.line).toBe(
      'Unhealthy: no GPU metrics for 1 algorithm (x) · cluster cache not synced · last pass 20 s ago',
    );
  });

  it.each([
    [0, '0 nodes'],
    [1, '1 node'],
    [2, '2 nodes'],
  ])('plural(%i) is "%s"', (n, text) => expect(plural(n, 'node')).toBe(text));
});
