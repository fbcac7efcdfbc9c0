/**
 * Required pod anti-affinity on the real control plane: the algorithm's template allows one
 * replica per node (`kubernetes.io/hostname`). Its pool's only node has 4 GPUs and holds the first
 * replica; the 3 free GPUs there are no room for a second one, so gpuops's scale-up moves an
 * unused node in (`relabel`) instead of adding a replica kube-scheduler would leave Pending, and
 * once Flux applied it kube-scheduler puts the second replica on the moved node. The simulator's
 * counterpart: test/scaling/scheduler-filters.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, type RealHarness } from './harness.js';
import { realStory, TEST_NODE, twinFiles } from './sim-twin.js';

const ONE_PER_NODE = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      {
        topologyKey: 'kubernetes.io/hostname',
        labelSelector: { matchLabels: { 'gpuops.dev/algorithm': 'serve' } },
      },
    ],
  },
};

let h: RealHarness;

describeReal('required pod anti-affinity', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: twinFiles(
        `${algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 })}  template:\n    spec:\n      affinity: ${JSON.stringify(ONE_PER_NODE)}\n`,
      ),
    });
    await h.addNodes([
      // gpu-a becomes the test node (as in patch-mode-flux.test.ts), gpu-u stays unused.
      TEST_NODE,
      { name: 'gpu-s', gpus: 4, labels: { 'gpuops.dev/pool': 'short-task' } },
      { name: 'gpu-u', gpus: 1 },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a second replica moves the unused node in, and kube-scheduler places it there', async () => {
    // One replica 100 % busy against a max of 80 %: two replicas, one per node.
    const run = await realStory(h);
    expect(run.first).toEqual(['gpu-s']);
    expect(run.decision).toMatchObject({ action: 'relabel', nodes: ['gpu-u'], replicas: { from: 1, to: 2 } });
    expect(run.placed).toEqual(['gpu-s', 'gpu-u']);
  });
});
