/**
 * Required pod anti-affinity on the real control plane: the algorithm's template allows one
 * replica per node (`kubernetes.io/hostname`). Its pool's only node has 4 GPUs and holds the first
 * replica; the 3 free GPUs there are no room for a second one, so gpuops's scale-up moves an
 * unused node in (`relabel`) instead of adding a replica kube-scheduler would leave Pending, and
 * once Flux applied it kube-scheduler puts the second replica on the moved node. The simulator's
 * counterpart: test/scaling/scheduler-filters.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const policy = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  scaling:',
  '    windowSeconds: 5',
  '    staleSampleSeconds: 120',
  '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
  '    scaleDown: {cooldownSeconds: 3600, stabilizationWindowSeconds: 3600}',
  '',
].join('\n');

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
const scaling = (r: PassResult) => r.plan.scaling.find((s) => s.algorithm === 'serve');
const running = async () =>
  (await h.pods('algorithms', 'gpuops.dev/algorithm=serve'))
    .filter((p) => (p.status as { phase?: string } | undefined)?.phase === 'Running')
    .map((p) => String((p.spec as { nodeName?: string } | undefined)?.nodeName))
    .sort();

describeReal('required pod anti-affinity', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: {
        'README.md': '# gitops\n',
        'algorithms/serve.yaml': `${algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 })}  template:\n    spec:\n      affinity: ${JSON.stringify(ONE_PER_NODE)}\n`,
        'policies/test.yaml': policy,
      },
    });
    await h.addNodes([
      // gpu-a becomes the test node (as in patch-mode-flux.test.ts), gpu-u stays unused.
      { name: 'gpu-a', gpus: 1 },
      { name: 'gpu-s', gpus: 4, labels: { 'gpuops.dev/pool': 'short-task' } },
      { name: 'gpu-u', gpus: 1 },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a second replica moves the unused node in, and kube-scheduler places it there', async () => {
    await h.pass();
    h.merge('gpuops/prod/pools');
    await h.sync();
    await until('serve is placed', async () =>
      (await h.pass()).writeBack.some((w) => w.branch === 'gpuops/prod/placement/serve'),
    );
    h.merge('gpuops/prod/placement/serve');
    await h.sync();
    const one = await until('one replica runs', async () => {
      const nodes = await running();
      return nodes.length === 1 && nodes;
    });
    expect(one).toEqual(['gpu-s']);

    // One replica 100 % busy against a max of 80 %: two replicas, one per node.
    h.local.load.setLoad('serve', 100);
    let last = '';
    const r = await until('a scale-up is decided', async () => {
      const pass = await h.pass();
      const s = scaling(pass);
      last = `${s?.action} ${s?.reason}: ${s?.message}`;
      return (s?.action === 'scale-up' || s?.action === 'relabel') && pass;
    }).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}; last decision: ${last}`);
    });
    expect(scaling(r)).toMatchObject({ action: 'relabel', nodes: ['gpu-u'], replicas: { from: 1, to: 2 } });
    h.merge('gpuops/prod/scale/serve');
    await h.sync();
    const two = await until('two replicas run', async () => {
      const nodes = await running();
      return nodes.length === 2 && nodes;
    });
    expect(two).toEqual(['gpu-s', 'gpu-u']);
  });
});
