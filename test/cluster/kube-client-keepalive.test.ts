/**
 * The pages of one list call share one kept-alive connection (kube-client.ts, PageAgents):
 * connections to the simulated API server are counted by a TCP relay in front of it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { loadKubeConfig } from '../../src/cluster/kubeconfig.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { until } from '../support/wait.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-keepalive-'));
let sim: SimCluster;
let relay: Server;
let kubeconfig = '';
/** Connections the relay accepted, and how many are open now. */
const connections = { total: 0, open: 0 };

function node(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: `gpu-${String(i).padStart(4, '0')}` },
    status: { capacity: { 'nvidia.com/gpu': '8' }, allocatable: { 'nvidia.com/gpu': '8' } },
  };
}

function pod(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `p-${i}`, namespace: 'default', uid: `uid-${i}` },
    spec: { nodeName: `gpu-${String(i % 40).padStart(4, '0')}`, containers: [{ name: 'c', image: 'x' }] },
    status: { phase: 'Running' },
  };
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: Array.from({ length: 40 }, (_, i) => node(i)),
    pods: Array.from({ length: 90 }, (_, i) => pod(i)),
  });
  const target = new URL(sim.url);
  const sockets = new Set<Socket>();
  relay = createServer((client) => {
    connections.total++;
    connections.open++;
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const done = () => {
      if (!sockets.delete(client)) return;
      sockets.delete(upstream);
      connections.open--;
      upstream.destroy();
      client.destroy();
    };
    client.on('close', done).on('error', done);
    upstream.on('close', done).on('error', done);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as AddressInfo;
  kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeconfig({ plain: true }).replaceAll(sim.url, `http://127.0.0.1:${port}`));
});
afterAll(async () => {
  await new Promise((resolve) => relay?.close(resolve));
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('list pages over one connection', () => {
  it('40 nodes in pages of 3 (14 calls) use one connection, closed when the list is done', async () => {
    const client = createKubeClient(loadKubeConfig(kubeconfig), { pageSize: 3 });
    const before = { calls: sim.requests().total, connections: connections.total };
    const nodes = await client.listNodes();
    expect(nodes.map((n) => n.metadata!.name)).toEqual(
      Array.from({ length: 40 }, (_, i) => node(i).metadata.name),
    );
    expect(sim.requests().total - before.calls).toBe(Math.ceil(40 / 3));
    expect(connections.total - before.connections).toBe(1);
    await until('the list connection to close', () => connections.open === 0);
  });

  it('each list call has its own connection: pods (90 in pages of 7) then nodes again', async () => {
    const client = createKubeClient(loadKubeConfig(kubeconfig), { pageSize: 7 });
    const before = { calls: sim.requests().total, connections: connections.total };
    const pods = await client.listPods();
    expect(pods).toHaveLength(90);
    expect(new Set(pods.map((p) => p.metadata!.name)).size).toBe(90);
    const seen: number[] = [];
    await client.streamPods!({ page: (items) => seen.push(items.length), restart: () => undefined });
    expect(seen).toEqual([...Array<number>(12).fill(7), 6]);
    expect(await client.listNodes()).toHaveLength(40);
    expect(sim.requests().total - before.calls).toBe(13 + 13 + 6);
    expect(connections.total - before.connections).toBe(3);
    await until('the list connection to close', () => connections.open === 0);
  });
});
