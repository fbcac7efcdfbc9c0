/**
 * CPU and memory fit on the real control plane beside the simulator, on the same input. serve
 * asks 40 cores and 300Gi per replica (1 GPU). The pool's node (64 cores, 512Gi, 4 GPUs) runs the
 * first replica: its 3 free GPUs are no room for a second (24 cores, 212Gi left). Of the unused
 * nodes gpu-u1 (256Gi) comes first by name but is short of memory, so gpuops moves gpu-u2 in, and
 * kube-scheduler puts the replica there. The unit counterpart:
 * test/scaling/scheduler-filters.test.ts ("every resource the pod asks for counts").
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, type RealHarness, type TestNode } from './harness.js';
import { comparable, realStory, simStory, TEST_NODE, twinFiles, type ScaleUpRun } from './sim-twin.js';

const serve = algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 });
const files = twinFiles(serve.replace('cpu: "2", memory: 8Gi', 'cpu: "40", memory: 300Gi'));
const nodes: TestNode[] = [
  TEST_NODE,
  { name: 'gpu-s', gpus: 4, cpu: '64', memory: '512Gi', labels: { 'gpuops.dev/pool': 'short-task' } },
  { name: 'gpu-u1', gpus: 1, cpu: '64', memory: '256Gi' },
  { name: 'gpu-u2', gpus: 1, cpu: '64', memory: '512Gi' },
];

let h: RealHarness;
let sim: ScaleUpRun;

describeReal('CPU and memory fit', () => {
  beforeAll(async () => {
    expect(files['algorithms/serve.yaml']).toContain('cpu: "40", memory: 300Gi');
    sim = await simStory(files, nodes);
    h = await startRealHarness({ files });
    await h.addNodes(nodes);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('free GPUs without the cores and memory are no room: the unused node with the memory moves in, on both', async () => {
    const real = await realStory(h);
    expect(real.first).toEqual(['gpu-s']);
    expect(real.decision).toMatchObject({
      action: 'relabel',
      nodes: ['gpu-u2'],
      replicas: { from: 1, to: 2 },
    });
    expect(real.decision.message).toMatch(/gpu-s: Insufficient cpu/);
    expect(real.placed).toEqual(['gpu-s', 'gpu-u2']);
    expect(comparable(real)).toEqual(comparable(sim));
    expect(sim.decision.message).toMatch(/gpu-s: Insufficient cpu/);
  });
});
