/**
 * Issue 26 item 2: the status page says why the cluster cache refuses passes. The running
 * controller gives its cache's state (`ClusterCache.state()`): the view has one row per resource
 * (synced, watch, last relist, objects, events per second, why not) and, while a resource is not
 * synced, the `ClusterCacheNotSynced` cause on its summary line; read from the database alone the
 * section says the cache is not known there and where to ask.
 */
import { describe, expect, it } from 'vitest';
import { NO_CACHE, type CacheResourceState } from '../../src/status/cache-health.js';
import { renderStatusHtml } from '../../src/status/html.js';
import { buildStatusView, type StatusInput } from '../../src/status/model.js';
import { renderStatusText } from '../../src/status/text.js';

const NOW = new Date('2026-12-02T21:00:00.000Z');
const RELIST = Date.parse('2026-12-02T20:58:30.000Z');

function input(cache?: CacheResourceState[]): StatusInput {
  return {
    cluster: 'prod',
    now: NOW,
    snapshot: null,
    fleet: null,
    samples: new Map(),
    history: new Map(),
    pullRequests: [],
    recentDecisions: [],
    ...(cache ? { cache } : {}),
  };
}

const synced = (resource: string, objects: number, eventsPerSecond = 0): CacheResourceState => ({
  resource,
  current: true,
  reason: null,
  connected: true,
  lastRelistAt: RELIST,
  objects,
  eventsPerSecond,
});

const RELISTING: CacheResourceState = {
  resource: 'pods',
  current: false,
  reason: 'pods: relisting after its watch expired (HTTP 410: too old resource version: 41 (57))',
  connected: false,
  lastRelistAt: RELIST,
  objects: 1980,
  eventsPerSecond: 12.345,
};

describe('the cluster cache section of the status view', () => {
  it('read from the database alone: not known, and the text says where to ask', () => {
    const v = buildStatusView(input());
    expect(v.cache).toBeNull();
    expect(v.health.causes.map((c) => c.reason)).toEqual(['NoPass']);
    const text = renderStatusText(v);
    expect(text).toContain(`CLUSTER CACHE\n  ${NO_CACHE}\n`);
    expect(text).toContain('gpuops status --controller-url with that address');
    expect(renderStatusHtml(v)).toMatch(
      /<section id="cluster-cache"><h2>Cluster cache<\/h2><p class="muted">Not known here/,
    );
  });

  it('every resource synced: rows with the last relist, objects and events per second; no cause', () => {
    const v = buildStatusView(input([synced('nodes', 210), synced('pods', 1980, 0.04)]));
    expect(v.cache).toEqual([
      {
        resource: 'nodes',
        synced: true,
        connected: true,
        lastRelistAt: '2026-12-02T20:58:30.000Z',
        objects: 210,
        eventsPerSecond: 0,
        reason: null,
      },
      {
        resource: 'pods',
        synced: true,
        connected: true,
        lastRelistAt: '2026-12-02T20:58:30.000Z',
        objects: 1980,
        eventsPerSecond: 0,
        reason: null,
      },
    ]);
    expect(v.health.causes.map((c) => c.reason)).toEqual(['NoPass']);
    expect(renderStatusText(v)).toContain(
      '  pods   synced  watch connected  last relist 2026-12-02T20:58:30.000Z  1980 objects  0 events/s',
    );
  });

  it('pods relisting after 410: the summary line says passes are refused and why; the row says NOT SYNCED', () => {
    const v = buildStatusView(input([synced('nodes', 210), RELISTING]));
    expect(v.health.level).toBe('critical');
    expect(v.health.causes[0]).toEqual({
      level: 'critical',
      reason: 'ClusterCacheNotSynced',
      message:
        'cluster cache not synced (1 resource), passes refused: pods: relisting after its watch expired (HTTP 410: too old resource version: 41 (57))',
    });
    expect(v.cache![1]).toMatchObject({
      resource: 'pods',
      synced: false,
      connected: false,
      eventsPerSecond: 12.3,
    });
    const text = renderStatusText(v);
    expect(text.split('\n')[2]).toBe(
      '✖ Unhealthy: cluster cache not synced (1 resource), passes refused: pods: relisting after its watch expired (HTTP 410: too old resource version: 41 (57)) · no reconcile pass recorded yet',
    );
    expect(text).toContain(
      '  pods   NOT SYNCED  watch disconnected  last relist 2026-12-02T20:58:30.000Z  1980 objects  12.3 events/s  pods: relisting after its watch expired',
    );
    const html = renderStatusHtml(v);
    expect(html).toContain('<td>pods</td><td><strong>no</strong></td><td>disconnected</td>');
    expect(html).toContain('data-level="critical"');
  });
});
