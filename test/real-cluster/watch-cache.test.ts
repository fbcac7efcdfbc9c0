/**
 * gpuops's watch-driven cluster cache (what `gpuops run` passes read) on the real API server's
 * watches: while kube-apiserver is down the cache is refused once its watches stall, so no pass
 * decides on it; etcd compacted past the cache's resourceVersion and the API server restarted, the
 * resumed watch is answered 410 Gone and the cache relists, and passes go on.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClusterCacheNotSyncedError } from '../../src/cluster/cache.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { branches, describeReal, startRealHarness, until, type RealHarness } from './harness.js';

let h: RealHarness;
const expired = () => h.cache!.state().reduce((n, s) => n + s.relists.expired, 0);

describeReal(
  'the watch cache on the real API server',
  () => {
    beforeAll(async () => {
      h = await startRealHarness({
        files: {
          'README.md': '# gitops\n',
          'algorithms/serve.yaml': algorithmFile('serve', { benchSeconds: 3 }),
        },
        flux: false,
        metrics: false,
        // Long enough that the node watch is still open (not relisted as stalled) when the API server
        // goes down, short enough that the pass is refused soon after: a stall relists, and a list
        // never meets 410, so only a watch resumed after the restart shows the expired path.
        cache: { stallSeconds: 15 },
      });
      await h.addNodes([
        { name: 'gpu-a', gpus: 1 },
        { name: 'gpu-b', gpus: 1 },
      ]);
    });
    afterAll(async () => {
      await h?.close();
    });

    it('survives an API server restart with etcd compacted past its version: 410 Gone, a relist, and no pass on the stale cache', async () => {
      await until(
        'the cache holds both nodes',
        async () => h.cache!.state().find((s) => s.resource === 'nodes')!.objects === 2,
      );
      expect(expired()).toBe(0);
      // A write the cache does not watch moves etcd's revision past every version the cache has seen.
      await h.apply({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'bump', namespace: 'default' },
        data: { a: '1' },
      });
      const before = branches(h.repo);
      // A node event right before the restart: the node watch was heard from just now.
      await h.apply(
        {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'gpu-a', labels: { 'example.com/touched': '1' } },
        },
        'watch-cache-test',
      );
      let refused: unknown;
      // Killed at once, as a crash: its watch streams end and are resumed from the cache's version.
      // (Under SIGTERM's graceful shutdown it holds them open and silent: the cache counts them as
      // stalled and lists again, which never meets the 410 this test is about.)
      await h.local.restartApiServer(async () => {
        await h.local.compactEtcd();
        await until('the cache counts its watches as stalled', async () => !h.cache!.synced(), 60_000);
        refused = await h.pass().catch((e: unknown) => e);
      }, 0);
      expect(refused).toBeInstanceOf(ClusterCacheNotSyncedError);
      expect(branches(h.repo)).toEqual(before); // nothing written from a stale cache
      await until(
        'the cache relisted after 410 Gone and is synced',
        async () => expired() > 0 && h.cache!.synced(),
        90_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; cache: ${JSON.stringify(h.cache!.state())}`);
      });
      await h.addNodes([{ name: 'gpu-c', gpus: 1 }]);
      await until(
        'the relisted cache follows new events',
        async () => h.cache!.state().find((s) => s.resource === 'nodes')!.objects === 3,
      );
      const pass = await h.pass();
      expect(pass.snapshot.nodes.map((n) => n.name).sort()).toEqual(['gpu-a', 'gpu-b', 'gpu-c']);
    });
  },
  { flux: false },
);
