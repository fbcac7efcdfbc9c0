/**
 * The watch-driven cluster cache against the simulated cluster over HTTP, through the faults a
 * watch has: a connection cut mid-stream, a stream gone silent, history compacted so the resume
 * version is too old (410), an object deleted and recreated while the cache was away, bookmarks,
 * and the windows in which the cache must refuse a snapshot. After each, the cache's snapshot
 * must equal a fresh list of the same cluster (`readSnapshot`, what one-shot commands read).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClusterCacheNotSyncedError,
  createClusterCache,
  type ClusterCache,
} from '../../src/cluster/cache.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { readSnapshot } from '../../src/cluster/read-snapshot.js';
import { cacheHealthCauses } from '../../src/status/cache-health.js';
import { startSimCluster, type SimCluster, type SimClusterOptions } from '../../src/sim/index.js';
import { fixture } from '../support/cluster-mixed.js';
import { until } from '../support/wait.js';

const NOW = new Date('2026-12-01T10:00:00Z');
let sim: SimCluster | undefined;
let cache: ClusterCache | undefined;
let gate: Gate | undefined;

afterEach(async () => {
  if (gate) gate.holdPodLists = false;
  for (const release of gate?.held ?? []) release();
  await cache?.stop();
  await sim?.close();
  cache = undefined;
  sim = undefined;
});

/** Requests the test holds or refuses, by what they are. */
interface Gate {
  holdPodLists: boolean;
  refuseWatches: boolean;
  held: (() => void)[];
}

async function world(
  opts: { stallSeconds?: number } & Pick<SimClusterOptions, 'watchBookmarkSeconds'> = {},
): Promise<{ sim: SimCluster; kc: k8s.KubeConfig; cache: ClusterCache; gate: Gate }> {
  const g: Gate = (gate = { holdPodLists: false, refuseWatches: false, held: [] });
  // In front of the API: hold pod lists (to see the cache while it relists), refuse watches.
  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> => {
    const watch = url.searchParams.get('watch') === 'true';
    if (watch && g.refuseWatches) {
      res.writeHead(503, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', code: 503, message: 'the test refuses watches' }));
      return true;
    }
    if (!watch && url.pathname === '/api/v1/pods' && g.holdPodLists)
      await new Promise<void>((release) => g.held.push(release));
    void req;
    return false;
  };
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    routes: [route],
    ...(opts.watchBookmarkSeconds ? { watchBookmarkSeconds: opts.watchBookmarkSeconds } : {}),
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  cache = createClusterCache({
    kc,
    client: createKubeClient(kc, { pageSize: 4 }),
    stallSeconds: opts.stallSeconds ?? 120,
    backoff: { baseMs: 20, maxMs: 200 },
  });
  return { sim, kc, cache, gate: g };
}

/** What a one-shot command reads: Nodes and live Pods listed now. */
function fresh(kc: k8s.KubeConfig) {
  return readSnapshot(createKubeClient(kc), NOW);
}

const podState = (c: ClusterCache) => c.state().find((s) => s.resource === 'pods')!;

function pod(name: string, labels: Record<string, string> = {}): k8s.V1Pod {
  return {
    metadata: { name, namespace: 'algorithms', labels },
    spec: {
      nodeName: 'gpu-a100-01',
      containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
    },
  };
}

describe('cluster cache over a watch', () => {
  it('after one paged list, its snapshot equals a fresh list, warnings and order included', async () => {
    const w = await world();
    expect(() => w.cache.snapshot(NOW)).toThrow(ClusterCacheNotSyncedError);
    w.cache.start();
    expect(await w.cache.waitForSync(20)).toBe(true);
    const snap = w.cache.snapshot(NOW);
    expect(snap).toEqual(await fresh(w.kc));
    expect(snap.nodes.length).toBe(13);
    expect(podState(w.cache).relists).toEqual({ initial: 1, expired: 0, stalled: 0 });
  });

  it('follows creates, changes and deletes; the arrays stay the same object while nothing moves', async () => {
    const w = await world();
    w.cache.start();
    await w.cache.waitForSync(20);
    const before = w.cache.snapshot(NOW);
    expect(w.cache.snapshot(NOW).pods).toBe(before.pods);
    const core = w.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({ namespace: 'algorithms', body: pod('new-one') });
    await core.patchNamespacedPod(
      { name: 'new-one', namespace: 'algorithms', body: { metadata: { labels: { step: '2' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await core.patchNode(
      { name: 'gpu-t4-01', body: { metadata: { labels: { 'gpuops.dev/pool': 'unused' } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await until('the cache shows the label change', () =>
      w.cache!.snapshot(NOW).pods.some((p) => p.name === 'new-one' && p.labels.step === '2'),
    );
    await until('the cache shows the node label', () =>
      w.cache!.snapshot(NOW).nodes.some((n) => n.name === 'gpu-t4-01' && n.pool === 'unused'),
    );
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
    await core.deleteNamespacedPod({ name: 'new-one', namespace: 'algorithms' });
    await until(
      'the cache drops the pod',
      () => !w.cache!.snapshot(NOW).pods.some((p) => p.name === 'new-one'),
    );
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
    expect(podState(w.cache).relists.expired).toBe(0);
  });

  it('resumes from its version after the connection is cut mid-stream: no relist, nothing missed', async () => {
    const w = await world();
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    expect(w.sim.watchFaults.drop()).toBe(4);
    // Written while the cache reconnects: the resumed watch replays them from history.
    w.sim.store.create('pods', pod('while-cut') as never);
    w.sim.store.delete('pods', 'media', 'video-decode-5c9d7-2xq8w');
    await until('the cache reconnected and shows the new pod', () =>
      w.cache!.snapshot(NOW).pods.some((p) => p.name === 'while-cut'),
    );
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
    const s = podState(w.cache);
    expect(s.reconnects.error + s.reconnects['stream-ended']).toBeGreaterThanOrEqual(1);
    expect(s.relists).toEqual({ initial: 1, expired: 0, stalled: 0 });
  });

  it('a stream silent for longer than the stall bound is aborted and the resource listed again', async () => {
    const w = await world({ stallSeconds: 1, watchBookmarkSeconds: 0.2 });
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    w.sim.watchFaults.stall();
    w.sim.store.create('pods', pod('during-stall') as never);
    // While the resource is listed again its records are refused (nothing heard for over 1 s).
    const seen = () => {
      try {
        return w.cache!.snapshot(NOW).pods.some((p) => p.name === 'during-stall');
      } catch (err) {
        expect(err).toBeInstanceOf(ClusterCacheNotSyncedError);
        return false;
      }
    };
    await until('the stalled stream replaced', seen, 10_000);
    expect(podState(w.cache).reconnects.stalled).toBeGreaterThanOrEqual(1);
    expect(podState(w.cache).relists.stalled).toBeGreaterThanOrEqual(1);
    expect(podState(w.cache).relists.expired).toBe(0);
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
  });

  it('relists after 410 Gone; an object deleted and recreated while away comes back with its new uid', async () => {
    const w = await world();
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    const core = w.kc.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedPod({ namespace: 'algorithms', body: pod('reborn', { gen: '1' }) });
    const first = await until('the first pod in the cache', () =>
      w.cache!.snapshot(NOW).pods.find((p) => p.name === 'reborn'),
    );
    // The cache goes deaf; meanwhile the pod is deleted and made again, and history is compacted.
    w.sim.watchFaults.stall();
    await core.deleteNamespacedPod({ name: 'reborn', namespace: 'algorithms' });
    await core.createNamespacedPod({ namespace: 'algorithms', body: pod('reborn', { gen: '2' }) });
    w.sim.watchFaults.compact();
    w.sim.watchFaults.drop();
    await until('relisted after 410', () => podState(w.cache!).relists.expired >= 1);
    const again = await until('synced again', () => (w.cache!.synced() ? w.cache!.snapshot(NOW) : undefined));
    const reborn = again.pods.find((p) => p.name === 'reborn')!;
    expect(reborn.uid).not.toBe(first.uid);
    expect(reborn.labels.gen).toBe('2');
    expect(again).toEqual(await fresh(w.kc));
  });

  it('refuses a snapshot while it relists, naming the resource and why; serves again once listed', async () => {
    const w = await world();
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    w.gate.holdPodLists = true;
    w.sim.watchFaults.stall();
    w.sim.store.create('pods', pod('after-compaction') as never);
    w.sim.watchFaults.compact();
    w.sim.watchFaults.drop();
    await until('the relist is held', () => w.gate.held.length > 0);
    expect(() => w.cache!.snapshot(NOW)).toThrow(
      /cluster cache not synced: .*pods: relisting after its watch expired \(watch pods: too old resource version/,
    );
    expect(w.cache.synced()).toBe(false);
    // The status page of `gpuops run` says so, naming the resource (the other resources' relists
    // are not held: they may or may not have ended yet).
    const causes = cacheHealthCauses(w.cache.state()).map((c) => c.message);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatch(/^cluster cache not synced \([1-4] resources?\), passes refused: /);
    expect(causes[0]).toMatch(
      /pods: relisting after its watch expired \(watch pods: too old resource version/,
    );
    w.gate.holdPodLists = false;
    for (const release of w.gate.held) release();
    await until('synced again', () => w.cache!.synced());
    expect(cacheHealthCauses(w.cache.state())).toEqual([]);
    expect(w.cache.snapshot(NOW).pods.some((p) => p.name === 'after-compaction')).toBe(true);
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
  });

  it('refuses a snapshot once its watch has been down longer than the stall bound', async () => {
    const w = await world({ stallSeconds: 1, watchBookmarkSeconds: 0.2 });
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    w.gate.refuseWatches = true;
    w.sim.watchFaults.drop();
    expect(w.cache.snapshot(NOW).nodes.length).toBe(13); // within the bound: still served
    await until('refused', () => !w.cache!.synced(), 10_000);
    expect(() => w.cache!.snapshot(NOW)).toThrow(/watch disconnected since .*HTTP 503/);
    w.gate.refuseWatches = false;
    await until('reconnected', () => w.cache!.synced(), 10_000);
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
  });

  it('moves its resume version with bookmarks, so a resume after a quiet spell needs no relist', async () => {
    const w = await world();
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('four watch streams', () => w.sim.watchFaults.open() === 4);
    const before = podState(w.cache).resourceVersion;
    // Many writes the pods watch does not see (Leases), then compaction past the pods' version.
    for (let i = 0; i < 50; i++)
      w.sim.store.create('leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `quiet-${i}`, namespace: 'default' },
      });
    expect(w.sim.watchFaults.bookmark()).toBe(4);
    await until(
      'the bookmark moved the version',
      () => podState(w.cache!).resourceVersion === w.sim.store.resourceVersion(),
    );
    expect(Number(podState(w.cache).resourceVersion)).toBeGreaterThan(Number(before));
    w.sim.watchFaults.compact();
    w.sim.watchFaults.drop();
    await until(
      'reconnected',
      () => podState(w.cache!).reconnects.error + podState(w.cache!).reconnects['stream-ended'] >= 1,
    );
    await until('streams open again', () => w.sim!.watchFaults.open() === 4);
    expect(podState(w.cache).relists).toEqual({ initial: 1, expired: 0, stalled: 0 });
    expect(podState(w.cache).bookmarks).toBeGreaterThanOrEqual(1);
    expect(w.cache.snapshot(NOW)).toEqual(await fresh(w.kc));
  });

  it('gets bookmarks on its own at the server interval', async () => {
    const w = await world({ watchBookmarkSeconds: 0.2 });
    w.cache.start();
    await w.cache.waitForSync(20);
    await until('two bookmarks on the pods watch', () => podState(w.cache!).bookmarks >= 2, 10_000);
  });
});
