/**
 * The cluster cache's cause on the status page's summary line (src/status/cache-health.ts): none
 * while every resource is current, one critical cause naming each resource that is not and why,
 * and the summary line it makes (the worst level wins).
 */
import { describe, expect, it } from 'vitest';
import { cacheHealthCauses, type CacheResourceHealth } from '../../src/status/cache-health.js';
import { summarizeHealth } from '../../src/status/health.js';

const current = (resource: string): CacheResourceHealth => ({ resource, current: true, reason: null });
const behind = (resource: string, reason: string | null): CacheResourceHealth => ({
  resource,
  current: false,
  reason,
});

describe('cluster cache health cause', () => {
  it.each([
    ['no cache at all (one-shot commands list)', [], []],
    ['every resource current', [current('nodes'), current('pods')], []],
    [
      'pods relisting after 410 Gone',
      [current('nodes'), behind('pods', 'pods: relisting after its watch expired (410 Gone)')],
      [
        'cluster cache not synced (1 resource), passes refused: pods: relisting after its watch expired (410 Gone)',
      ],
    ],
    [
      'two resources, one without a reason of its own',
      [behind('nodes', 'nodes: not listed yet'), behind('pods', null)],
      ['cluster cache not synced (2 resources), passes refused: nodes: not listed yet; pods: not synced'],
    ],
  ])('%s', (_name, resources, messages) => {
    const causes = cacheHealthCauses(resources);
    expect(causes.map((c) => c.message)).toEqual(messages);
    expect(causes.every((c) => c.level === 'critical' && c.reason === 'ClusterCacheNotSynced')).toBe(true);
  });

  it('makes the summary line unhealthy and says why, beside the age of the last pass', () => {
    const causes = cacheHealthCauses([behind('pods', 'pods: not listed yet')]);
    const s = summarizeHealth(causes, { now: 1000, passAt: 970 });
    expect(s.level).toBe('critical');
    expect(s.line).toBe(
      'Unhealthy: cluster cache not synced (1 resource), passes refused: pods: not listed yet · last pass 30 s ago',
    );
  });
});
