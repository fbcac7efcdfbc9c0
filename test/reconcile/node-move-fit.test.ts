/**
 * Issue 23 item 8 end to end: node moves pick the node that fits best. The reconcile pass against
 * the simulated cluster over HTTP and a real GitOps repo: `serve` (1 GPU) is benchmarked on the
 * T4 test node, placed on short-task (one 1-GPU T4, full with its replica), and runs hot. The
 * unused nodes are an 8×A100 (`a-a100`, first by name), a 4×T4 (`t4-a4`) and a 1×T4 (`t4-z1`).
 * Before, the A100 (or, by name, the 4×T4) moved in; now the 1×T4 does — the product it was
 * benchmarked on, the smallest node that fits the one replica needed — and the scale PR says why.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { SPEC_HASH_ANNOTATION } from '../../src/manifests/benchmark-job.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { KubeObject } from '../../src/sim/index.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const T4 = 'Tesla-T4';
const POOL = 'gpuops.dev/pool';
const SCALE = 'gpuops/prod/scale/serve';

/** `gpuNode` with another GPU product. */
const node = (name: string, gpus: number, product: string, pool: string | null = null): KubeObject => {
  const n = gpuNode(name, gpus, pool);
  n.metadata.labels!['nvidia.com/gpu.product'] = product;
  return n;
};

const POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  scaling:',
  '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
  '    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
  '',
].join('\n');

let h: Harness;
let hot: PassResult;
beforeAll(async () => {
  h = await startHarness({
    nodes: [
      node('gpu-test', 1, T4, 'test'),
      node('gpu-s1', 1, T4, 'short-task'),
      gpuNode('a-a100', 8),
      node('t4-a4', 4, T4),
      node('t4-z1', 1, T4),
    ],
    files: {
      'README.md': '# gitops\n',
      'algorithms/serve.yaml': algorithmFile('serve', { benchSeconds: 42 }),
      'policies/test.yaml': POLICY,
    },
  });
  h.setMetrics(
    new DcgmScrapeSource({
      targets: ['gpu-s1'].map((n) => ({ url: `${h.sim.url}/dcgm/${n}/metrics`, node: n })),
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('serve', 40);
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.sync();
  await h.pass(); // starts the benchmark on gpu-test
  h.sim.clock.advance(120);
  await h.pass(); // records it, opens the placement PR
  h.merge('gpuops/prod/placement/serve');
  await h.sync();
  await h.settle();
  h.load.setLoad('serve', 95);
  hot = await h.pass();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('a node move for a 1-GPU replica of an algorithm benchmarked on a T4', () => {
  it('the benchmark ran on the T4 test node and its record carries the product', async () => {
    const [job] = h.sim.store.list('jobs', 'algorithms');
    const hash = job!.metadata.annotations![SPEC_HASH_ANNOTATION]!;
    const runs = await h.store.benchmarkRuns('serve', hash);
    expect(runs.map((r) => [r.status, r.node, r.gpuProduct])).toEqual([['Succeeded', 'gpu-test', T4]]);
  });

  it('moves the 1×T4, not the 8×A100 first by name nor the 4×T4, and says why', () => {
    const d = hot.plan.scaling.find((x) => x.algorithm === 'serve')!;
    expect(d).toMatchObject({ action: 'relabel', reason: 'RelabelUnusedNode', nodes: ['t4-z1'] });
    expect(d.message).toContain(
      't4-z1 (Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica)',
    );
  });

  it('the scale PR moves only t4-z1 into short-task and its body says why that node', async () => {
    const nodeFile = parse(h.file(SCALE, 'clusters/prod/nodes/t4-z1.yaml')!);
    expect(nodeFile.metadata.labels[POOL]).toBe('short-task');
    expect(parse(h.file(SCALE, 'clusters/prod/nodes/a-a100.yaml') ?? 'null')?.metadata.labels[POOL]).toBe(
      'unused',
    );
    const pr = (await h.store.pullRequests('prod')).find((r) => r.branch === SCALE)!;
    expect(pr.body).toContain('Tesla-T4, 1 GPU: smallest unused node of the product that fits 1 replica');
  });
});
