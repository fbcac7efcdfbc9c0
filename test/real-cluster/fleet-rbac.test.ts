/**
 * The demo's mixed fleet (test/fixtures/cluster-mixed) on the real control plane: KWOK plays its
 * nodes with their traps, gpuops reads them as its ServiceAccount with the shipped RBAC, and its
 * first pass proposes the same pools as on the simulator with the same dump. A verb the shipped
 * ClusterRole does not grant (patch mode without its component) is reported by gpuops as a clear
 * line, never a stack.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_FLEET_DIR } from '../../src/demo/cluster.js';
import { FIXTURE_GATE, readDump } from '../../src/local-cluster/fleet.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { startHarness } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const EXAMPLES = path.join(import.meta.dirname, '../../examples/gitops-repo');
const files = Object.fromEntries(
  ['algorithms/resnet50-infer.yaml', 'algorithms/bert-train.yaml', 'algorithms/whisper-asr.yaml', 'policies/demo.yaml'].map(
    (f) => [f, readFileSync(path.join(EXAMPLES, f), 'utf8')],
  ),
);

type Node = KubeObject<{ unschedulable?: boolean; taints?: { key: string; effect: string }[] }, { allocatable?: Record<string, string>; conditions?: { type: string; status: string }[] }>;
const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'none';

let h: RealHarness;

describeReal('the demo fleet on the real control plane', () => {
  beforeAll(async () => {
    h = await startRealHarness({ fleetDir: DEMO_FLEET_DIR, files, flux: false, metrics: false });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('KWOK plays the dump: GPU allocatable as dumped, the cordoned and the unreachable node, the Pending pod', async () => {
    const nodes = await until('every KWOK node is Ready', async () => {
      const list = (await h.get<{ items: Node[] }>('/api/v1/nodes')).items;
      return list.filter((n) => n.metadata.name !== 'gpu-t4-04').every((n) => ready(n) === 'True') && list;
    });
    const byName = new Map(nodes.map((n) => [n.metadata.name, n]));
    const dumped = readDump(path.join(DEMO_FLEET_DIR, 'nodes.json'));
    for (const d of dumped)
      expect(byName.get(d.metadata.name)?.status?.allocatable?.['nvidia.com/gpu'], d.metadata.name).toBe(
        (d.status as { allocatable: Record<string, string> }).allocatable['nvidia.com/gpu'],
      );
    expect(byName.get('gpu-h100-02')?.spec?.unschedulable).toBe(true);
    // No kubelet behind it: the node lifecycle controller keeps it not Ready, with its taints.
    expect(ready(byName.get('gpu-t4-04')!)).not.toBe('True');
    expect(byName.get('gpu-t4-04')?.spec?.taints?.map((t) => t.key)).toContain('node.kubernetes.io/unreachable');
    const pods = await until('the dump pods on KWOK nodes run', async () => {
      const list = await h.pods();
      return list.filter((p) => p.spec && (p.spec as { nodeName?: string }).nodeName).every((p) => (p.status as { phase?: string })?.phase === 'Running') && list;
    });
    const gated = pods.find((p) => p.metadata.name === 'batch-embed-x7k2p')!;
    expect((gated.spec as { nodeName?: string }).nodeName).toBeUndefined();
    expect((gated.spec as { schedulingGates?: { name: string }[] }).schedulingGates).toEqual([{ name: FIXTURE_GATE }]);
    expect(pods.find((p) => p.metadata.name === 'video-decode-5c9d7-2xq8w')?.spec).toMatchObject({ nodeName: 'gpu-t4-02' });
  });

  it('the first pass, as the ServiceAccount, proposes the pools it proposes on the simulator from the same dump', async () => {
    const real = await h.pass();
    const sim = await startHarness({
      nodes: readDump(path.join(DEMO_FLEET_DIR, 'nodes.json')) as never,
      pods: readDump(path.join(DEMO_FLEET_DIR, 'pods.json')) as never,
      files,
    });
    try {
      const simulated = await sim.pass();
      const pools = (r: typeof real) => r.plan.pools.map((p) => [p.node, p.to, p.reason]).sort();
      expect(pools(real)).toEqual(pools(simulated));
      expect(real.writeBack.map((w) => [w.branch, w.action])).toEqual([['gpuops/prod/pools', 'created']]);
      expect(real.plan.pools.find((p) => p.to === 'test')?.node).toBeDefined();
    } finally {
      await sim.close();
    }
  });
}, { flux: false });
