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
import { FIXTURE_GATE, fleetPods, readDump } from '../../src/local-cluster/fleet.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { startHarness } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const EXAMPLES = path.join(import.meta.dirname, '../../examples/gitops-repo');
const files = Object.fromEntries(
  [
    'algorithms/resnet50-infer.yaml',
    'algorithms/bert-train.yaml',
    'algorithms/whisper-asr.yaml',
    'policies/demo.yaml',
  ].map((f) => [f, readFileSync(path.join(EXAMPLES, f), 'utf8')]),
);

type Node = KubeObject<
  { unschedulable?: boolean; taints?: { key: string; effect: string }[] },
  { allocatable?: Record<string, string>; conditions?: { type: string; status: string }[] }
>;
const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? 'none';

let h: RealHarness;

describeReal(
  'the demo fleet on the real control plane',
  () => {
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
      expect(byName.get('gpu-t4-04')?.spec?.taints?.map((t) => t.key)).toContain(
        'node.kubernetes.io/unreachable',
      );
      const pods = await until('the dump pods on KWOK nodes run', async () => {
        const list = await h.pods();
        return (
          list
            .filter((p) => p.spec && (p.spec as { nodeName?: string }).nodeName)
            .every((p) => (p.status as { phase?: string })?.phase === 'Running') && list
        );
      });
      const gated = pods.find((p) => p.metadata.name === 'batch-embed-x7k2p')!;
      expect((gated.spec as { nodeName?: string }).nodeName).toBeUndefined();
      expect((gated.spec as { schedulingGates?: { name: string }[] }).schedulingGates).toEqual([
        { name: FIXTURE_GATE },
      ]);
      expect(pods.find((p) => p.metadata.name === 'video-decode-5c9d7-2xq8w')?.spec).toMatchObject({
        nodeName: 'gpu-t4-02',
      });
    });

    it('the first pass, as the ServiceAccount, proposes the simulator’s pools, but for the gated Pending pod the simulator schedules', async () => {
      const real = await h.pass();
      // The same dump as loaded here (the Pending pod with its scheduling gate) on the simulator.
      const sim = await startHarness({
        nodes: readDump(path.join(DEMO_FLEET_DIR, 'nodes.json')) as never,
        pods: fleetPods(readDump(path.join(DEMO_FLEET_DIR, 'pods.json'))) as never,
        files,
      });
      try {
        const simulated = await sim.pass();
        // Difference (docs/simulated-cluster.md): the simulator's scheduler ignores
        // spec.schedulingGates and binds the gated pod to gpu-a100-01, which makes that node a
        // ForeignWorkload there; kube-scheduler leaves it Pending, so gpu-a100-01 is free here.
        const gated = sim.sim.store.list('pods').find((p) => p.metadata.name === 'batch-embed-x7k2p');
        expect(gated?.spec?.nodeName).toBe('gpu-a100-01');
        const decision = (r: typeof real, node: string) => {
          const p = r.plan.pools.find((x) => x.node === node)!;
          return [p.to, p.reason];
        };
        expect(decision(simulated, 'gpu-a100-01')).toEqual([null, 'ForeignWorkload']);
        expect(decision(real, 'gpu-a100-01')).toEqual(['test', 'TestPool']);
        expect(decision(simulated, 'gpu-a100-02')).toEqual(['test', 'TestPool']);
        expect(decision(real, 'gpu-a100-02')).toEqual(['unused', 'Unused']);
        const rest = (r: typeof real) =>
          r.plan.pools
            .filter((p) => !['gpu-a100-01', 'gpu-a100-02'].includes(p.node))
            .map((p) => [p.node, p.to, p.reason])
            .sort();
        expect(rest(real)).toEqual(rest(simulated));
        expect(real.writeBack.map((w) => [w.branch, w.action])).toEqual([['gpuops/prod/pools', 'created']]);
      } finally {
        await sim.close();
      }
    });
  },
  { flux: false },
);
