/**
 * The cluster cache's state on /metrics, read from a cache that watches the simulated cluster over
 * HTTP: synced per resource, the last relist, the relists and reconnects by reason, events.
 */
import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterCache, type ClusterCache } from '../../src/cluster/cache.js';
import { registerClusterCacheMetrics } from '../../src/cluster/cache-metrics.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { fixture } from '../support/cluster-mixed.js';
import { until } from '../support/wait.js';

let sim: SimCluster;
let cache: ClusterCache;
const registry = new Registry();

/** The value of one series in the Prometheus text, or undefined. */
async function value(series: string): Promise<number | undefined> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  sim = await startSimCluster({ nodes: fixture('nodes.json'), pods: fixture('pods.json') });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  cache = createClusterCache({ kc, client: createKubeClient(kc), backoff: { baseMs: 20, maxMs: 200 } });
  registerClusterCacheMetrics(registry, cache);
});

afterAll(async () => {
  await cache.stop();
  await sim.close();
});

describe('cluster cache metrics', () => {
  it('say not synced before the first list, then synced with its relist time and object counts', async () => {
    expect(await value('gpuops_cluster_cache_synced{resource="pods"}')).toBe(0);
    expect(
      await value('gpuops_cluster_cache_last_relist_timestamp_seconds{resource="pods"}'),
    ).toBeUndefined();
    const before = Date.now() / 1000;
    cache.start();
    await cache.waitForSync(20);
    for (const r of ['nodes', 'pods', 'horizontalpodautoscalers'])
      expect(await value(`gpuops_cluster_cache_synced{resource="${r}"}`)).toBe(1);
    expect(await value('gpuops_cluster_cache_objects{resource="nodes"}')).toBe(13);
    expect(await value('gpuops_cluster_cache_objects{resource="pods"}')).toBe(10); // every fixture pod is live
    expect(await value('gpuops_cluster_cache_relists_total{resource="pods",reason="initial"}')).toBe(1);
    const relist = (await value('gpuops_cluster_cache_last_relist_timestamp_seconds{resource="pods"}'))!;
    expect(relist).toBeGreaterThanOrEqual(Math.floor(before));
  });

  it('count events and their rate, reconnects by reason, relists after 410 Gone', async () => {
    await until('four watch streams', () => sim.watchFaults.open() === 4);
    for (let i = 0; i < 6; i++)
      sim.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `counted-${i}`, namespace: 'algorithms' },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      });
    await until(
      'six events',
      async () => (await value('gpuops_cluster_cache_events_total{resource="pods"}'))! >= 6,
    );
    expect(await value('gpuops_cluster_cache_events_per_second{resource="pods"}')).toBeGreaterThanOrEqual(
      0.1,
    );
    sim.watchFaults.stall();
    sim.store.delete('pods', 'algorithms', 'counted-0');
    sim.watchFaults.compact();
    sim.watchFaults.drop();
    await until(
      'a relist after 410',
      async () => (await value('gpuops_cluster_cache_relists_total{resource="pods",reason="expired"}')) === 1,
    );
    await until('synced again', () => cache.synced());
    expect(await value('gpuops_cluster_cache_synced{resource="pods"}')).toBe(1);
    expect(
      await value('gpuops_cluster_cache_reconnects_total{resource="nodes",reason="error"}'),
    ).toBeGreaterThanOrEqual(1);
  });
});
