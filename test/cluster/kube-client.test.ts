/**
 * The cluster adapter against the simulated cluster over HTTP, driven through
 * @kubernetes/client-node; faults come from a loopback proxy in front of it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient, KubeApiError } from '../../src/cluster/kube-client.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import { LIVE_PODS_FIELD_SELECTOR, readSnapshot } from '../../src/cluster/read-snapshot.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const fixture = (f: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));
const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-kube-client-'));
const noSleep = async () => undefined;

let sim: SimCluster;
let big: SimCluster;
let kubeconfigFile: string;

function manyNodes(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `gpu-${String(i).padStart(4, '0')}`, labels: { 'nvidia.com/gpu.product': 'Tesla-T4' } },
    status: {
      capacity: { 'nvidia.com/gpu': '4' },
      allocatable: { 'nvidia.com/gpu': '4' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  }));
}

beforeAll(async () => {
  sim = await startSimCluster({ nodes: fixture('nodes.json'), pods: fixture('pods.json') });
  big = await startSimCluster({ nodes: manyNodes(1000), pods: [] });
  kubeconfigFile = path.join(dir, 'kubeconfig');
  sim.writeKubeconfig(kubeconfigFile);
});
afterAll(async () => {
  await sim?.close();
  await big?.close();
  rmSync(dir, { recursive: true, force: true });
});

function kubeconfigFor(url: string): string {
  const file = path.join(dir, `kc-${encodeURIComponent(url)}`);
  writeFileSync(file, sim.kubeconfig({ plain: true }).replaceAll(sim.url, url));
  return file;
}

describe('listing through the simulated API server', () => {
  it('pages nodes with limit/continue: ⌈13/3⌉ = 5 calls, every node once', async () => {
    const client = createKubeClient(loadKubeConfig(kubeconfigFile), { pageSize: 3 });
    const before = sim.requests().total;
    const nodes = await client.listNodes();
    expect(sim.requests().total - before).toBe(5);
    const names = nodes.map((n) => n.metadata!.name);
    expect(names).toHaveLength(13);
    expect(new Set(names).size).toBe(13);
    expect(names).toContain('gpu-t4-05');
  });

  it('the number of calls grows with objects / page size, not with nodes: 1000 nodes in 2 calls of 500', async () => {
    const kc = path.join(dir, 'big');
    big.writeKubeconfig(kc);
    const before = big.requests().total;
    const nodes = await createKubeClient(loadKubeConfig(kc)).listNodes();
    expect(nodes).toHaveLength(1000);
    expect(big.requests().total - before).toBe(2);
  });

  it('reads a snapshot: live pods only, field selector on status.phase, same facts as the dumps', async () => {
    const client = createKubeClient(loadKubeConfig(kubeconfigFile), { pageSize: 4 });
    const before = sim.requests().total;
    const snap = await readSnapshot(client, new Date('2026-12-01T00:00:00Z'));
    // Nodes and pods page by page, and one page each of ReplicaSets and HPAs (the fixture has none).
    expect(sim.requests().total - before).toBe(Math.ceil(13 / 4) + Math.ceil(10 / 4) + 1 + 1);
    expect(snap.autoscalers).toEqual([]);
    expect(snap.nodes).toHaveLength(13);
    expect(snap.pods).toHaveLength(10);
    const n = (name: string) => snap.nodes.find((x) => x.name === name)!;
    expect(n('gpu-a100-03')).toMatchObject({ gpuAllocatable: 8, foreignGpuRequested: 4 });
    expect(n('gpu-t4-05')).toMatchObject({ gpuCapacity: 4, gpuAllocatable: 0 });
    expect(n('gpu-t4-04')).toMatchObject({ ready: false, schedulable: false });
    expect(n('gpu-t4-02').gpuRequested).toBe(1);
    // Streamed page by page, the same snapshot as both lists built at once.
    const whole = buildSnapshot(
      await client.listNodes(),
      await client.listPods({ fieldSelector: LIVE_PODS_FIELD_SELECTOR }),
      new Date('2026-12-01T00:00:00Z'),
      {},
      await client.listReplicaSets(),
    );
    expect(snap.replicaSets).toEqual([]);
    expect(snap).toEqual({ ...whole, autoscalers: [] });
    const { streamPods: _, ...listOnly } = client;
    expect(await readSnapshot(listOnly, new Date('2026-12-01T00:00:00Z'))).toEqual({
      ...whole,
      autoscalers: [],
    });
    // Creation times in the canonical form, `Date.toISOString()`, as the dumps give them.
    expect(snap.pods.every((p) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(p.createdAt))).toBe(true);
  });
});

/** A proxy in front of the simulator that answers the first `failures` requests with `fault`. */
async function faultyProxy(
  fault: 'status503' | 'status429' | 'reset' | 'status403' | 'goneOnContinue',
  failures: number,
) {
  let seen = 0;
  let gone = 0;
  const server: Server = createServer((req, res) => {
    seen++;
    if (fault === 'goneOnContinue') {
      if (req.url!.includes('continue=') && gone < failures) {
        gone++;
        res.writeHead(410, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({ kind: 'Status', code: 410, reason: 'Expired', message: 'continue token expired' }),
        );
      }
    } else if (seen <= failures) {
      if (fault === 'reset') return req.socket.destroy();
      const code = { status503: 503, status429: 429, status403: 403 }[fault];
      res.writeHead(code, {
        'content-type': 'application/json',
        ...(code === 429 ? { 'retry-after': '1' } : {}),
      });
      return res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code,
          message: `injected ${code}`,
        }),
      );
    }
    const target = new URL(req.url!, sim.url);
    const fwd = request(target, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(fwd);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen: () => seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('retries and errors', () => {
  it.each([
    ['503 twice, then success', 'status503'],
    ['connection reset twice, then success', 'reset'],
    ['429 twice (Retry-After honoured), then success', 'status429'],
  ] as const)('%s', async (_name, fault) => {
    const proxy = await faultyProxy(fault, 2);
    const waits: number[] = [];
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), {
        sleep: async (ms) => void waits.push(ms),
      });
      const nodes = await client.listNodes();
      expect(nodes).toHaveLength(13);
      expect(proxy.seen()).toBe(3);
      expect(waits).toEqual(fault === 'status429' ? [1000, 1000] : [200, 400]);
    } finally {
      await proxy.close();
    }
  });

  it('an expired continue token (410) restarts the list once from the start', async () => {
    const proxy = await faultyProxy('goneOnContinue', 1);
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), {
        pageSize: 5,
        sleep: noSleep,
      });
      const nodes = await client.listNodes();
      expect(nodes.map((n) => n.metadata!.name)).toHaveLength(13);
      expect(new Set(nodes.map((n) => n.metadata!.name)).size).toBe(13);
      expect(proxy.seen()).toBe(2 + 3); // page 1, 410 on page 2; then 3 pages
    } finally {
      await proxy.close();
    }
  });

  it('streaming pods: a 410 restarts the list once, the sink told to forget what it had', async () => {
    const proxy = await faultyProxy('goneOnContinue', 1);
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), {
        pageSize: 4,
        sleep: noSleep,
      });
      const events: (number | 'restart')[] = [];
      let pods: V1Pod[] = [];
      await client.streamPods!(
        {
          page: (items) => {
            events.push(items.length);
            pods.push(...items);
          },
          restart: () => {
            events.push('restart');
            pods = [];
          },
        },
        { fieldSelector: LIVE_PODS_FIELD_SELECTOR },
      );
      // 10 live pods: page 1 (4), 410 on page 2; then 4 + 4 + 2.
      expect(events).toEqual([4, 'restart', 4, 4, 2]);
      expect(new Set(pods.map((p) => p.metadata!.name)).size).toBe(10);
    } finally {
      await proxy.close();
    }
  });

  it('a second 410 is reported, not looped on', async () => {
    const proxy = await faultyProxy('goneOnContinue', 2);
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), {
        pageSize: 5,
        sleep: noSleep,
      });
      await expect(client.listNodes()).rejects.toThrow('list nodes: HTTP 410: continue token expired');
    } finally {
      await proxy.close();
    }
  });

  it('gives up after the attempts with an error naming the operation', async () => {
    const proxy = await faultyProxy('status503', 100);
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), {
        sleep: noSleep,
        retry: { attempts: 3 },
      });
      const err = await client.listPods().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeApiError);
      expect((err as KubeApiError).message).toMatch(/^list pods: HTTP 503.*\(after 3 attempts\)$/);
      expect(proxy.seen()).toBe(3);
    } finally {
      await proxy.close();
    }
  });

  it('does not retry a 403: reported at once with the resource', async () => {
    const proxy = await faultyProxy('status403', 100);
    try {
      const client = createKubeClient(loadKubeConfig(kubeconfigFor(proxy.url)), { sleep: noSleep });
      const err = (await client.listNodes().catch((e: unknown) => e)) as KubeApiError;
      expect(err).toBeInstanceOf(KubeApiError);
      expect(err.status).toBe(403);
      expect(err.message).toBe('list nodes: HTTP 403: injected 403');
      expect(proxy.seen()).toBe(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('loadKubeConfig', () => {
  const serverOf = (kc: ReturnType<typeof loadKubeConfig>) => kc.getCurrentCluster()?.server;

  it('an explicit file wins over KUBECONFIG', () => {
    const other = kubeconfigFor('http://127.0.0.1:1');
    const kc = loadKubeConfig(kubeconfigFile, { env: { KUBECONFIG: other }, home: dir });
    expect(serverOf(kc)).toBe(sim.tlsUrl);
  });

  it('KUBECONFIG next, then ~/.kube/config', () => {
    expect(
      serverOf(loadKubeConfig(undefined, { env: { KUBECONFIG: kubeconfigFile }, home: '/nonexistent' })),
    ).toBe(sim.tlsUrl);
    const home = mkdtempSync(path.join(dir, 'home-'));
    const kubeDir = path.join(home, '.kube');
    mkdirSync(kubeDir, { recursive: true });
    writeFileSync(path.join(kubeDir, 'config'), readFileSync(kubeconfigFile));
    expect(serverOf(loadKubeConfig(undefined, { env: {}, home }))).toBe(sim.tlsUrl);
  });

  it('nothing found: an error listing where it looked', () => {
    expect(() => loadKubeConfig(undefined, { env: {}, home: '/nonexistent', exists: () => false })).toThrow(
      /no cluster access: no --kubeconfig, KUBECONFIG unset, no \/nonexistent\/.kube\/config, and not running in a Pod/,
    );
  });
});
