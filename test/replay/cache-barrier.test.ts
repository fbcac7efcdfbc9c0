/**
 * The replay's engines read the cluster from `gpuops run`'s watch-driven cache (`startRunCache`)
 * and wait before each pass until it has caught up with the simulator (`cacheCaughtUp`): a write
 * to the simulator's store is not in the cache at once (its event has to come down the watch), and
 * is there once the wait ends; so is what the simulated controllers write in answer to it.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunCache, type RunCache } from '../../src/compose/cluster-cache.js';
import { cacheCaughtUp } from '../../src/replay/cache-barrier.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { LoadModel } from '../../src/sim/load-model.js';

const fixture = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));

let sim: SimCluster;
let run: RunCache;

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    controllers: defaultControllers({ loadModel: new LoadModel() }),
    speed: 1e-6,
    tickMs: 3_600_000,
  });
  const kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig({ plain: true }));
  run = await startRunCache(kc, pino({ level: 'silent' }), { syncSeconds: 10 });
});

afterAll(async () => {
  await run?.stop();
  await sim?.close();
});

const poolOf = (node: string) =>
  run.cache.snapshot(sim.clock.now()).nodes.find((n) => n.name === node)?.labels['gpuops.dev/pool'];

describe('cacheCaughtUp', () => {
  it('ends once a write to the store is in the cache (before it, the cache still shows the old value)', async () => {
    await cacheCaughtUp(sim, run.cache);
    for (const pool of ['serving', 'training']) {
      const node = sim.store.get('nodes', undefined, 'gpu-t4-01')!;
      node.metadata.labels = { ...node.metadata.labels, 'gpuops.dev/pool': pool };
      sim.store.update('nodes', node);
      expect(poolOf('gpu-t4-01')).not.toBe(pool);
      await cacheCaughtUp(sim, run.cache);
      expect(poolOf('gpu-t4-01')).toBe(pool);
    }
  });

  it("waits for the simulated controllers' answer to a write: a new Deployment's ReplicaSet is in the cache", async () => {
    sim.store.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'barrier' } });
    sim.store.create('deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'barrier' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx' }] },
        },
      },
    });
    const sets = () =>
      (run.cache.snapshot(sim.clock.now()).replicaSets ?? []).filter((r) => r.namespace === 'barrier');
    expect(sets()).toEqual([]);
    await cacheCaughtUp(sim, run.cache);
    expect(sets().map((r) => [r.owner?.name, r.replicas])).toEqual([['web', 2]]);
    // Every resource of the cache is at the store's version or past it.
    const version = Number(sim.store.resourceVersion());
    for (const s of run.cache.state()) expect(Number(s.resourceVersion)).toBeGreaterThanOrEqual(version);
  });
});
