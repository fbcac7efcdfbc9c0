/**
 * The simulated cluster's plumbing: controllers run after API writes and on the clock, the clock
 * runs faster than wall time, requests are counted, and `gpuops sim` serves a dump end to end.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { simFetch } from '../support/sim-fetch.js';
import { ScaledClock } from '../../src/sim/clock.js';
import { startSimCluster, type SimController, type SimStore } from '../../src/sim/index.js';
import { until } from '../support/wait.js';

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
      const pod = await until('the pod to be bound', async () => {
        const p = await core.readNamespacedPod({ name: 'p', namespace: 'default' });
        return p.spec?.nodeName ? p : undefined;
      });
      expect(pod.spec?.nodeName).toBe('node-a');
      const before = runs.length;
      const t0 = sim.clock.now().getTime();
      sim.clock.advance(3600);
      expect(runs.length).toBe(before + 1);
      expect(runs[runs.length - 1]!.getTime() - t0).toBeGreaterThanOrEqual(3600_000);
    } finally {
      await sim.close();
    }
  });

  it('runs controllers after a direct store write and once at start', async () => {
    const runs: Date[] = [];
    const sim = await startSimCluster({ controllers: [binder(runs)], tickMs: 60_000 });
    try {
      await until('the controllers to run once at start', () => runs.length > 0);
      sim.store.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'direct', namespace: 'default' },
        spec: {},
      });
      const pod = await until('the directly written pod to be bound', () => {
        const p = sim.store.get('pods', 'default', 'direct');
        return p?.spec.nodeName ? p : undefined;
      });
      expect(pod.spec.nodeName).toBe('node-a');
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
      const res = await simFetch(sim, '/api/v1/namespaces');
      expect(res.status).toBe(200);
      expect(errors.join('')).toContain('controller broken failed: Error: boom');
    } finally {
      process.stderr.write = write;
      await sim.close();
    }
  });

  it('runs the clock speed times faster than the wall clock, plus every jump', () => {
    let wall = 1_000_000;
    const clock = new ScaledClock(100, () => wall);
    const t0 = clock.now().getTime();
    wall += 200; // 200 real ms
    expect(clock.now().getTime() - t0).toBe(20_000);
    clock.advance(30);
    expect(clock.now().getTime() - t0).toBe(50_000);
    expect(() => clock.advance(-1)).toThrow(/cannot advance by -1/);
  });

  it('counts API requests by verb and by path (no query string)', async () => {
    const sim = await startSimCluster({});
    try {
      const kc = new k8s.KubeConfig();
      kc.loadFromString(sim.kubeconfig());
      const core = kc.makeApiClient(k8s.CoreV1Api);
      await core.listNode();
      await core.listNode({ limit: 1 });
      await core.readNamespace({ name: 'default' });
      await core.getAPIResources();
      expect(sim.requests()).toEqual({
        total: 4,
        byVerb: { list: 2, get: 2 },
        byPath: { 'LIST /api/v1/nodes': 2, 'GET /api/v1/namespaces/default': 1, 'GET /api/v1': 1 },
      });
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
    await until('gpuops sim to serve', () => out.includes('press Ctrl-C'), 60_000, 100);
    expect(out).toMatch(/serving the Kubernetes API at http:\/\/127\.0\.0\.1:\d+ \(13 nodes, 10 pods/);
    expect(out).not.toContain('not a loopback address'); // the warning of a --host 0.0.0.0
    expect(existsSync(kubeconfig)).toBe(true);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    expect(kc.getCurrentContext()).toBe('gpuops-sim');
    const nodes = await kc
      .makeApiClient(k8s.CoreV1Api)
      .listNode({ labelSelector: 'nvidia.com/gpu.product=Tesla-T4' });
    expect(nodes.items).toHaveLength(5);
    // kubectl sends the token only over TLS: the context's server is https, trusting the sim's CA.
    expect(kc.getCurrentCluster()?.server).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kc.getCurrentCluster()?.skipTLSVerify).toBeFalsy();
    expect(kc.getCurrentUser()?.token).toBe('gpuops-sim');
    expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('gpuops sim: stopped');
  }, 60_000);
});
