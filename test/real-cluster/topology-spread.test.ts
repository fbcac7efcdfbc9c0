/**
 * Topology spread (`whenUnsatisfiable: DoNotSchedule`, maxSkew 1 on the zone) on the real control
 * plane beside the simulator, on the same input. Zone z1's pool node runs the first replica; z2's
 * pool node is full (a foreign pod holds its 4 GPUs). A second replica on gpu-s1 would make z1
 * two ahead, so its 3 free GPUs are no room: gpuops moves in the unused node of z2 (gpu-u2), not
 * the one of z1 that comes first by name, and kube-scheduler puts the replica there. The unit
 * counterpart: test/scaling/scheduler-filters.test.ts ("topology spread").
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, type RealHarness, type TestNode } from './harness.js';
import { comparable, realStory, simStory, TEST_NODE, twinFiles, type ScaleUpRun } from './sim-twin.js';

const ZONE = 'topology.kubernetes.io/zone';
const SPREAD = [
  {
    maxSkew: 1,
    topologyKey: ZONE,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { 'gpuops.dev/algorithm': 'serve' } },
  },
];
const files = twinFiles(
  `${algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 })}  template:\n    spec:\n      topologySpreadConstraints: ${JSON.stringify(SPREAD)}\n`,
);
const pool = (zone: string) => ({ 'gpuops.dev/pool': 'short-task', [ZONE]: zone });
const nodes: TestNode[] = [
  TEST_NODE,
  { name: 'gpu-s1', gpus: 4, labels: pool('z1') },
  { name: 'gpu-s2', gpus: 4, labels: pool('z2') },
  { name: 'gpu-u1', gpus: 1, labels: { [ZONE]: 'z1' } },
  { name: 'gpu-u2', gpus: 1, labels: { [ZONE]: 'z2' } },
];
const batch: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'batch', namespace: 'research', labels: { app: 'batch' } },
  spec: {
    nodeName: 'gpu-s2',
    containers: [
      { name: 'c', image: 'registry.example.com/batch:1', resources: { limits: { 'nvidia.com/gpu': '4' } } },
    ],
  },
};

let h: RealHarness;
let sim: ScaleUpRun;

describeReal('topology spread, DoNotSchedule on the zone', () => {
  beforeAll(async () => {
    sim = await simStory(files, nodes, [{ ...batch, status: { phase: 'Running' } }]);
    h = await startRealHarness({ files });
    await h.addNodes(nodes);
    await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'research' } });
    await h.apply(batch);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the pool node of the crowded zone is no room: the unused node of z2 moves in, on both', async () => {
    const real = await realStory(h);
    expect(real.first).toEqual(['gpu-s1']);
    expect(real.decision).toMatchObject({
      action: 'relabel',
      nodes: ['gpu-u2'],
      replicas: { from: 1, to: 2 },
    });
    expect(real.decision.message).toContain("gpu-s1: node(s) didn't match pod topology spread constraints");
    expect(real.placed).toEqual(['gpu-s1', 'gpu-u2']);
    expect(comparable(real)).toEqual(comparable(sim));
    expect(sim.decision.message).toContain("gpu-s1: node(s) didn't match pod topology spread constraints");
  });
});
