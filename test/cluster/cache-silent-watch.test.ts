/**
 * The watch-driven cache behind a proxy that fails as stalled proxies and load balancers do (the
 * fault campaign's "silent watch"): streams stay open and nothing comes through. The cache must
 * not go on serving a view it cannot vouch for — past the stall bound it either proves itself
 * current by a list or refuses, naming why (and the status page's cause says so) — and a reconnect
 * after a long healthy stream must not wait out the backoff of failures long past.
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClusterCacheNotSyncedError,
  createClusterCache,
  type ClusterCache,
} from '../../src/cluster/cache.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { cacheHealthCauses } from '../../src/status/cache-health.js';
import { fixture } from '../support/cluster-mixed.js';
import { startStallingProxy, type StallingProxy } from '../support/stalling-proxy.js';
import { until } from '../support/wait.js';

const NOW = new Date('2026-12-01T10:00:00Z');
let sim: SimCluster | undefined;
let proxy: StallingProxy | undefined;
let cache: ClusterCache | undefined;

afterEach(async () => {
  if (proxy) {
    proxy.holdLists = false;
    proxy.silence(false);
  }
  await cache?.stop();
  await proxy?.close();
  await sim?.close();
  cache = proxy = sim = undefined;
});

async function world(o: { stallSeconds: number; backoff?: { baseMs: number; maxMs: number } }) {
  // Bookmarks every 0.2 s: a live stream is heard from well within the stall bound.
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    watchBookmarkSeconds: 0.2,
  });
  proxy = await startStallingProxy(sim.url);
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig({ plain: true }).replaceAll(sim.url, proxy.url));
  cache = createClusterCache({
    kc,
    client: createKubeClient(kc, { pageSize: 4 }),
    stallSeconds: o.stallSeconds,
    backoff: o.backoff ?? { baseMs: 20, maxMs: 200 },
  });
  cache.start();
  expect(await cache.waitForSync(20)).toBe(true);
  await until('four watch streams', () => sim!.watchFaults.open() === 4);
  return { sim, proxy, cache, kc };
}

const cordoned = (c: ClusterCache) => c.snapshot(NOW).nodes.find((n) => n.name === 'gpu-t4-01')?.cordoned;

describe('a watch a proxy holds open and silent', () => {
  it('is noticed within the stall bound: a node cordoned meanwhile is seen by a list, never missed', async () => {
    const w = await world({ stallSeconds: 1 });
    expect(cordoned(w.cache)).toBe(false);
    w.proxy.silence(true);
    await w.kc
      .makeApiClient(k8s.CoreV1Api)
      .patchNode(
        { name: 'gpu-t4-01', body: { spec: { unschedulable: true } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
    const silencedAt = Date.now();
    // Every read either refuses or shows the cordon; within a few stall bounds it shows it.
    const seen = await until(
      'the cordon seen through a list',
      () => {
        try {
          return cordoned(w.cache!) === true || undefined;
        } catch (err) {
          expect(err).toBeInstanceOf(ClusterCacheNotSyncedError);
          return undefined;
        }
      },
      6000,
    );
    expect(seen).toBe(true);
    expect(Date.now() - silencedAt).toBeLessThan(6000);
    const nodes = w.cache.state().find((s) => s.resource === 'nodes')!;
    expect(nodes.relists.stalled).toBeGreaterThanOrEqual(1);
    expect(nodes.reconnects.stalled).toBeGreaterThanOrEqual(1);
  });

  it('refuses, naming why, once nothing — no event, bookmark or list — came for longer than the bound', async () => {
    const w = await world({ stallSeconds: 1 });
    w.proxy.holdLists = true;
    w.proxy.silence(true);
    await until(
      'refused',
      () => {
        try {
          w.cache!.snapshot(NOW);
          return undefined;
        } catch (err) {
          return err as Error;
        }
      },
      5000,
    ).then((err) => {
      expect(err).toBeInstanceOf(ClusterCacheNotSyncedError);
      expect(err.message).toMatch(
        /(nodes|pods|replicasets): (nothing heard from the API server since .* for over 1 s: a stalled stream|watch disconnected since .*no event and no bookmark for 1 s)/,
      );
    });
    expect(w.cache.synced()).toBe(false);
    const causes = cacheHealthCauses(w.cache.state()).map((c) => c.message);
    expect(causes.join('\n')).toMatch(
      /passes refused: .*(nothing heard from the API server|no event and no bookmark)/,
    );
    // The proxy recovers: lists and streams come through again, and so does the cache.
    w.proxy.holdLists = false;
    w.proxy.silence(false);
    w.proxy.cut();
    await until('current again', () => w.cache!.synced(), 10_000);
    expect(cacheHealthCauses(w.cache.state())).toEqual([]);
  });

  it('reconnects at once after a long healthy stream is cut, whatever failures came long before', async () => {
    const w = await world({ stallSeconds: 30, backoff: { baseMs: 10, maxMs: 60_000 } });
    // Eight refused watches in a row: the backoff has grown to 10 ms × 2^8 ≈ 2.6 s.
    w.proxy.refuseWatches = true;
    w.proxy.cut();
    const pods = () => w.cache!.state().find((s) => s.resource === 'pods')!;
    await until('eight refused watches', () => pods().reconnects.error >= 8, 15_000);
    w.proxy.refuseWatches = false;
    // A healthy stream that is heard from (bookmarks every 0.2 s) …
    const bookmarks = await until('streams open again', () =>
      pods().connected ? pods().bookmarks : undefined,
    );
    await until('heard on the new stream', () => pods().bookmarks > bookmarks);
    // … then cut: the next watch goes out within the base backoff, not 2.6 s later.
    const before = w.proxy.watches.length;
    const cutAt = Date.now();
    w.proxy.cut();
    await until('a new watch', () => w.proxy!.watches.length >= before + 4, 5000);
    expect(Math.max(...w.proxy.watches.slice(before)) - cutAt).toBeLessThan(1000);
  });
});
