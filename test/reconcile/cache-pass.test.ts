/**
 * Issue 26: a pass of `gpuops run` reads the cluster from the watch-driven cache. On a cache that
 * has not synced the pass decides nothing and writes nothing (no branch, no record) and its error
 * says why; once synced, the pass decides as a listing pass does — the same pull requests — with
 * no list request to the API server, and a second pass with nothing changed writes nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ClusterCacheNotSyncedError, createClusterCache } from '../../src/cluster/cache.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { cacheSource } from '../../src/cluster/source.js';
import { statusStoreOf } from '../../src/store/index.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const FILES = {
  'README.md': '# gitops\n',
  'algorithms/yolo.yaml': algorithmFile('yolo', { pool: 'short-task' }),
  'algorithms/bert.yaml': algorithmFile('bert', { benchSeconds: 30 }),
};
const NODES = [gpuNode('gpu-a', 2), gpuNode('gpu-b', 4, 'short-task'), gpuNode('gpu-c', 2)];

const harnesses: Harness[] = [];
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  await Promise.all(harnesses.map((h) => h.close()));
});

async function fresh() {
  const h = await startHarness({ files: FILES, nodes: NODES });
  harnesses.push(h);
  const cache = createClusterCache({
    kc: h.gpuopsKc,
    client: createKubeClient(h.gpuopsKc),
    backoff: { baseMs: 20, maxMs: 200 },
  });
  stops.push(() => cache.stop());
  h.deps.clusterRead = cacheSource(cache);
  return { h, cache };
}

const lists = (h: Harness) => h.sim.requests().byVerb.list ?? 0;

describe('a reconcile pass on the cluster cache', () => {
  it('refuses to decide on a cache that has not synced: nothing written, and the error names why', async () => {
    const { h } = await fresh();
    const err = await h.pass().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ClusterCacheNotSyncedError);
    expect((err as Error).message).toMatch(
      /^cluster cache not synced: nodes: not listed yet; pods: not listed yet/,
    );
    expect(h.branches()).toEqual(['main']);
    expect(await h.store.latestSnapshot()).toBeNull();
    expect(await statusStoreOf(h.store)!.fleetStatus(h.cluster)).toBeNull();
  });

  it('once synced, decides as a listing pass does, with no list request; then nothing changed writes nothing', async () => {
    const { h, cache } = await fresh();
    cache.start();
    expect(await cache.waitForSync(20)).toBe(true);
    const before = lists(h);
    const first = await h.pass();
    expect(lists(h) - before).toBe(0);
    expect(first.writeBack.map((r) => [r.branch, r.action])).toEqual([
      ['gpuops/prod/pools', 'created'],
      ['gpuops/prod/placement/yolo', 'created'],
    ]);
    expect(first.snapshot.nodes.map((n) => n.name)).toEqual(['gpu-a', 'gpu-b', 'gpu-c']);
    const refs = h.branches().map((b) => h.ref(b));
    const second = await h.pass();
    expect(lists(h) - before).toBe(0);
    expect(h.branches().map((b) => h.ref(b))).toEqual(refs); // no commit, no push
    expect(second.writeBack.map((r) => r.action)).toEqual(['unchanged', 'unchanged']);
  });
});
