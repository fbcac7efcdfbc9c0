/**
 * The simulated cluster's plumbing: controllers run after API writes and on the clock, the clock
 * runs faster than wall time, requests are counted, and `gpuops sim` serves a dump end to end.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimController, type SimStore } from '../../src/sim/index.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Binds every unbound pod to `node-a` and records when it ran (a minimal scheduler). */
function binder(runs: Date[]): SimController {
  return {
    name: 'binder',
    reconcile(store: SimStore, now: Date) {
      runs.push(now);
      for (const pod of store.list('pods')) {
        if (pod.spec?.nodeName) continue;
        pod.spec.nodeName = 'node-a';
        store.update('pods', pod);
      }
    },
  };
}

describe('controllers and clock', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'gpuops-sim-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('runs controllers after an API write, so a created pod gets bound', async () => {
    const runs: Date[] = [];
    const sim = await startSimCluster({ controllers: [binder(runs)], tickMs: 60_000 });
    try {
      const kc = new k8s.KubeConfig();
      kc.loadFromString(sim.kubeconfig());
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.createNamespacedPod({
        namespace: 'default',
        body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
      });
      let pod = await core.readNamespacedPod({ name: 'p', namespace: 'default' });
      for (let i = 0; i < 50 && !pod.spec?.nodeName; i++) {
        await wait(10);
        pod = await core.readNamespacedPod({ name: 'p', namespace: 'default' });
      }
      expect(pod.spec?.nodeName).toBe('node-a');
      const before = runs.length;
      sim.clock.advance(3600);
      expect(runs.length).toBe(before + 1);
      expect(runs[runs.length - 1]!.getTime() - Date.now()).toBeGreaterThanOrEqual(3599_000);
    } finally {
      await sim.close();
    }
  });

  it('runs controllers after a direct store write and once at start', async () => {
    const runs: Date[] = [];
    const sim = await startSimCluster({ controllers: [binder(runs)], tickMs: 60_000 });
    try {
      for (let i = 0; i < 50 && runs.length === 0; i++) await wait(10);
      expect(runs.length).toBeGreaterThan(0);
      sim.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'direct', namespace: 'default' },
        spec: {},
      });
      let pod = sim.store.get('pods', 'default', 'direct');
      for (let i = 0; i < 50 && !pod?.spec.nodeName; i++) {
        await wait(10);
        pod = sim.store.get('pods', 'default', 'direct');
      }
      expect(pod?.spec.nodeName).toBe('node-a');
    } finally {
      await sim.close();
    }
  });

  it('keeps serving when a controller throws', async () => {
    const broken: SimController = {
      name: 'broken',
      reconcile() {
        throw new Error('boom');
      },
    };
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (
      errors.push(String(chunk)),
      true
    )) as typeof process.stderr.write;
    const sim = await startSimCluster({ controllers: [broken], tickMs: 60_000 });
    try {
      sim.clock.advance(1);
      const res = await fetch(`${sim.url}/api/v1/namespaces`);
      expect(res.status).toBe(200);
      expect(errors.join('')).toContain('controller broken failed: Error: boom');
    } finally {
      process.stderr.write = write;
      await sim.close();
    }
  });

  it('runs the clock speed times faster than the wall clock', async () => {
    const sim = await startSimCluster({ speed: 100 });
    try {
      const t0 = sim.clock.now().getTime();
      await wait(200);
      const elapsed = (sim.clock.now().getTime() - t0) / 1000;
      expect(elapsed).toBeGreaterThanOrEqual(19);
      expect(elapsed).toBeLessThan(200);
    } finally {
      await sim.close();
    }
  });

  it('counts API requests by verb', async () => {
    const sim = await startSimCluster({});
    try {
      const kc = new k8s.KubeConfig();
      kc.loadFromString(sim.kubeconfig());
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.listNode();
      await core.listNode({ limit: 1 });
      await core.readNamespace({ name: 'default' });
      expect(sim.requests()).toEqual({ total: 3, byVerb: { list: 2, get: 1 } });
    } finally {
      await sim.close();
    }
  });

  it('gpuops sim serves a dump, writes the kubeconfig and stops on SIGTERM', async () => {
    const kubeconfig = join(tmp, 'kubeconfig');
    const fixtures = new URL('../fixtures/cluster-mixed/', import.meta.url).pathname;
    const child = spawn(
      process.execPath,
      [
        'bin/gpuops.js',
        'sim',
        '--nodes',
        join(fixtures, 'nodes.json'),
        '--pods',
        join(fixtures, 'pods.json'),
        '--kubeconfig',
        kubeconfig,
      ],
      { cwd: new URL('../../', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 300 && !out.includes('press Ctrl-C'); i++) await wait(100);
    expect(out).toMatch(/serving the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \(13 nodes, 10 pods/);
    expect(existsSync(kubeconfig)).toBe(true);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    expect(kc.getCurrentContext()).toBe('gpuops-sim');
    const nodes = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNode({ labelSelector: 'nvidia.com/gpu.product=Tesla-T4' });
    expect(nodes.items).toHaveLength(5);
    expect(readFileSync(kubeconfig, 'utf8')).toContain('insecure-skip-tls-verify: true');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('gpuops sim: stopped');
  }, 60_000);
});
