import { describe, expect, it } from 'vitest';
import { Harness } from '../../test/sim-behaviour/harness.js';
import { defaultControllers } from './controllers/index.js';
import { effectiveRequest, parseQuantity } from './controllers/pods.js';
import { nameSuffix } from './controllers/names.js';
import { generateFleet } from './fleet.js';
import type { KubeObject } from './types.js';

const gpuNodesOf = (nodes: KubeObject[]) =>
  nodes.filter((n) => n.metadata.labels?.['nvidia.com/gpu.present'] === 'true');

describe('generateFleet', () => {
  it('is deterministic per seed and differs between seeds', () => {
    const a = JSON.stringify(generateFleet({ gpuNodes: 60, seed: 7 }));
    expect(JSON.stringify(generateFleet({ gpuNodes: 60, seed: 7 }))).toBe(a);
    expect(JSON.stringify(generateFleet({ gpuNodes: 60, seed: 8 }))).not.toBe(a);
  });

  it('has the requested counts, GFD labels, the GPU taint and a mix of products', () => {
    const f = generateFleet({ gpuNodes: 200, cpuNodes: 5, podsPerNode: 12 });
    expect(f.nodes.kind).toBe('NodeList');
    expect(f.nodes.items).toHaveLength(205);
    const gpu = gpuNodesOf(f.nodes.items);
    expect(gpu).toHaveLength(200);
    expect(f.pods.items).toHaveLength(205 * 12 + 1); // + the Pending pod with no node
    for (const n of gpu) {
      expect(n.spec.taints[0]).toEqual({ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' });
      expect(['1', '4', '8']).toContain(n.metadata.labels!['nvidia.com/gpu.count']);
    }
    const products = new Set(gpu.map((n) => n.metadata.labels!['nvidia.com/gpu.product']));
    expect([...products].sort()).toEqual([
      'NVIDIA-A100-SXM4-40GB',
      'NVIDIA-A100-SXM4-80GB',
      'NVIDIA-H100-80GB-HBM3',
      'Tesla-T4',
    ]);
    const names = f.nodes.items.map((n) => n.metadata.name);
    expect(new Set(names).size).toBe(names.length);
    const podKeys = f.pods.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(new Set(podKeys).size).toBe(podKeys.length);
    expect(new Set(f.pods.items.map((p) => p.metadata.uid)).size).toBe(f.pods.items.length);
  });

  it('plants each trap on distinct nodes, as the traps list says', () => {
    const f = generateFleet({ gpuNodes: 100 });
    const byName = new Map(f.nodes.items.map((n) => [n.metadata.name, n]));
    const t = f.traps;
    const all = [...t.cordoned, ...t.notReady, ...t.mig, ...t.unhealthyDevicePlugin, ...t.foreignWorkload];
    expect(new Set(all).size).toBe(all.length);
    expect(t.cordoned.length).toBeGreaterThanOrEqual(1);
    for (const n of t.cordoned.map((x) => byName.get(x)!)) {
      expect(n.spec.unschedulable).toBe(true);
      expect(n.spec.taints.map((x: { key: string }) => x.key)).toContain('node.kubernetes.io/unschedulable');
    }
    for (const n of t.notReady.map((x) => byName.get(x)!)) {
      expect(n.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'Unknown' });
      expect(n.spec.taints).toContainEqual({
        key: 'node.kubernetes.io/unreachable',
        effect: 'NoExecute',
        timeAdded: expect.any(String),
      });
    }
    for (const n of t.mig.map((x) => byName.get(x)!)) {
      expect(n.status.allocatable['nvidia.com/gpu']).toBe('0');
      expect(parseQuantity(n.status.allocatable['nvidia.com/mig-1g.10gb'])).toBeGreaterThan(0);
      expect(n.metadata.labels!['nvidia.com/mig.strategy']).toBe('mixed');
    }
    for (const n of t.unhealthyDevicePlugin.map((x) => byName.get(x)!)) {
      expect(n.status.capacity['nvidia.com/gpu']).not.toBe('0');
      expect(n.status.allocatable['nvidia.com/gpu']).toBe('0');
    }
    expect(t.foreignWorkload.length).toBe(15);
    for (const name of t.foreignWorkload) {
      const held = f.pods.items
        .filter((p) => p.spec.nodeName === name)
        .reduce((s, p) => s + effectiveRequest(p.spec), 0);
      const alloc = parseQuantity(byName.get(name)!.status.allocatable['nvidia.com/gpu']);
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThanOrEqual(alloc);
    }
    // every GPU node has its dcgm-exporter pod
    for (const n of gpuNodesOf(f.nodes.items)) {
      expect(
        f.pods.items.some(
          (p) => p.spec.nodeName === n.metadata.name && p.metadata.labels?.app === 'nvidia-dcgm-exporter',
        ),
      ).toBe(true);
    }
  });

  it('has no traps when asked, or on tiny fleets', () => {
    expect(generateFleet({ gpuNodes: 50, traps: false }).traps).toEqual({
      cordoned: [],
      notReady: [],
      mig: [],
      unhealthyDevicePlugin: [],
      foreignWorkload: [],
    });
    expect(generateFleet({ gpuNodes: 3 }).traps.cordoned).toEqual([]);
  });

  it('rejects bad counts naming the option', () => {
    expect(() => generateFleet({ gpuNodes: -1 })).toThrow(/gpuNodes/);
    expect(() => generateFleet({ gpuNodes: 2, podsPerNode: 1.5 })).toThrow(/podsPerNode/);
  });

  it('loads into the simulator: the controllers leave the running pods alone and keep the no-node pod Pending', () => {
    const f = generateFleet({ gpuNodes: 20 });
    const h = new Harness(defaultControllers({ garbageCollection: true }));
    for (const n of f.nodes.items) h.store.create('nodes', n);
    for (const p of f.pods.items) h.store.create('pods', p);
    h.settle();
    expect(h.store.list('pods')).toHaveLength(f.pods.items.length);
    const pending = h.store.get('pods', 'research', 'batch-embed-x7k2p')!;
    expect(pending.status.conditions[0]).toMatchObject({
      reason: 'Unschedulable',
      message: expect.stringMatching(/^0\/\d+ nodes are available: .*Insufficient nvidia\.com\/gpu/),
    });
  });

  it('names every pod uniquely in its namespace at 10,000 GPU nodes (suffix collisions resolved, same names each time)', () => {
    const f = generateFleet({ gpuNodes: 10_000, podsPerNode: 8, seed: 7 });
    const keys = f.pods.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The DaemonSet pods' first-choice suffixes collide at this size (aws-node-2vqbh did): at
    // least one pod took the next suffix of its seed, and most kept the first.
    const daemon = f.pods.items.filter((p) => p.metadata.ownerReferences?.[0]?.kind === 'DaemonSet');
    const first = (p: KubeObject) => {
      const ds = p.metadata.ownerReferences![0]!.name;
      return `${ds}-${nameSuffix(`${ds}/${p.spec.nodeName}`)}`;
    };
    const moved = daemon.filter((p) => p.metadata.name !== first(p));
    expect(moved.length).toBeGreaterThan(0);
    expect(moved.length).toBeLessThan(daemon.length / 1000);
    for (const p of moved) {
      const ds = p.metadata.ownerReferences![0]!.name;
      expect(keys).toContain(`${p.metadata.namespace}/${first(p)}`);
      expect(p.metadata.name).toBe(`${ds}-${nameSuffix(`${ds}/${p.spec.nodeName}#1`)}`);
    }
  });

  it('builds 2,000 GPU nodes and 20,000 pods fast', () => {
    generateFleet({ gpuNodes: 100 }); // warm up
    const cpu = process.cpuUsage();
    const f = generateFleet({ gpuNodes: 2000, podsPerNode: 10 });
    const used = process.cpuUsage(cpu);
    expect(f.pods.items.length).toBeGreaterThanOrEqual(20_000);
    // CPU time, not wall time: the CI box is shared. About 0.2 s on an idle core.
    expect((used.user + used.system) / 1000).toBeLessThan(1500);
  });
});
