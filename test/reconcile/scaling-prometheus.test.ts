/**
 * Issue 6, done-when: a real Prometheus scrapes the simulated dcgm-exporter pages (one static
 * target per node, every second); the algorithm's Deployment runs in the simulated cluster; the
 * load model sets its offered load; the pass drives one scale-up, one relabel of an unused node
 * and one scale-down end to end, in both modes:
 * - `scaling.mode: pull-request`: a scale PR with the new replicas (and node file); a person merges
 *   it and Argo CD (the applier) applies it;
 * - `scaling.mode: patch`: the Deployment's scale subresource and the Node labels are patched in
 *   the cluster, and the same change is committed to main.
 * Both installations run side by side against one Prometheus (target label `sim`), so each step
 * waits for fresh samples once.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import { startPrometheus, type RunningPrometheus } from '../support/prometheus.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const POOL = 'gpuops.dev/pool';
/** Averaging window (seconds) of the test policy; each step waits this plus two scrapes. */
const WINDOW = 2;
const DEPLOYMENT = 'clusters/prod/algorithms/serve/deployment.yaml';
const UNUSED_FILE = 'clusters/prod/nodes/gpu-u1.yaml';
const SCALE_BRANCH = 'gpuops/prod/scale/serve';

const policy = (mode: 'pull-request' | 'patch') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  scaling:',
    `    mode: ${mode}`,
    `    windowSeconds: ${WINDOW}`,
    '    staleSampleSeconds: 30',
    '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    // Scale-down stabilisation over the averaging window, judged from Prometheus's own samples.
    `    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: ${WINDOW}}`,
    '',
  ].join('\n');

/** The short-task pool has one node with 2 GPUs; one unused node with 2 GPUs can join it. */
const NODES = () => [
  gpuNode('gpu-test', 1, 'test'),
  gpuNode('gpu-s1', 2, 'short-task'),
  gpuNode('gpu-u1', 2, 'unused'),
];

type Mode = 'pull-request' | 'patch';
const MODES: Mode[] = ['pull-request', 'patch'];
const h = {} as Record<Mode, Harness>;
let prometheus: RunningPrometheus;

/** Replicas of the Deployment in the cluster and where its Running pods are. */
function cluster(x: Harness) {
  const d = x.sim.store.get('deployments', 'algorithms', 'serve');
  const pods = x.sim.store
    .list('pods', 'algorithms')
    .filter((p) => p.metadata.labels?.['gpuops.dev/algorithm'] === 'serve' && p.status?.phase === 'Running')
    .map((p) => p.spec.nodeName as string)
    .sort();
  return { replicas: d?.spec.replicas as number | undefined, pods };
}
const replicasIn = (text: string | null) => (text === null ? null : (parse(text).spec.replicas as number));
const poolIn = (text: string | null) =>
  text === null ? null : (parse(text).metadata.labels[POOL] as string);
const nodeLabel = (x: Harness, node: string) =>
  x.sim.store.get('nodes', undefined, node)?.metadata.labels?.[POOL];

/**
 * Sets the offered load in both clusters, waits until Prometheus's window holds only samples
 * scraped after the change (the window plus one scrape), runs one pass in each.
 */
async function step(load: number): Promise<Record<Mode, PassResult>> {
  for (const m of MODES) h[m].load.setLoad('serve', load);
  await prometheus.waitForScrapes(WINDOW + 1);
  const [pr, patch] = await Promise.all(MODES.map((m) => h[m].pass()));
  return { 'pull-request': pr!, patch: patch! };
}

const decisionOf = (r: PassResult) => r.plan.scaling.find((d) => d.algorithm === 'serve')!;

beforeAll(async () => {
  await Promise.all(
    MODES.map(async (m) => {
      h[m] = await startHarness({
        nodes: NODES(),
        files: {
          'README.md': '# gitops\n',
          'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }),
          'policies/test.yaml': policy(m),
        },
      });
      h[m].load.setLoad('serve', 50);
    }),
  );
  prometheus = await startPrometheus(
    MODES.flatMap((m) => {
      const address = new URL(h[m].sim.url).host;
      return ['gpu-test', 'gpu-s1', 'gpu-u1'].map((node) => ({
        address,
        metricsPath: `/dcgm/${node}/metrics`,
        labels: { sim: m, node },
      }));
    }),
  );
  for (const m of MODES)
    h[m].setMetrics(new PrometheusSource({ url: prometheus.url, selector: `sim="${m}"` }));

  // Placement first: pools PR and placement PR, merged one after the other, then applied.
  await Promise.all(MODES.map((m) => placed(h[m])));
}, 180_000);

/** Pools PR and placement PR, merged one after the other, then applied by the applier. */
async function placed(x: Harness): Promise<void> {
  const first = await x.pass();
  expect(first.writeBack.map((r) => r.branch)).toEqual(['gpuops/prod/pools', 'gpuops/prod/placement/serve']);
  x.merge('gpuops/prod/pools');
  await x.pass();
  x.merge('gpuops/prod/placement/serve');
  const summary = await x.sync();
  expect(summary.errors).toEqual([]);
  expect(cluster(x)).toEqual({ replicas: 1, pods: ['gpu-s1'] });
}

afterAll(async () => {
  await prometheus?.stop();
  for (const m of MODES) await h[m]?.close();
});

describe('scaling through Prometheus, both modes', () => {
  it('load within range (50 % on one pod): hold, no scale PR, no commit', async () => {
    const commits = MODES.map((m) => h[m].workingCopy.counters.commits);
    const r = await step(50);
    for (const m of MODES) {
      expect(decisionOf(r[m])).toMatchObject({ action: 'hold', reason: 'WithinRange', utilization: 50 });
      expect(h[m].ref(SCALE_BRANCH)).toBeNull();
    }
    expect(MODES.map((m) => h[m].workingCopy.counters.commits)).toEqual(commits);
  });

  describe('scale-up: load 190 on one pod shows 100 %, the pool node has a free GPU', () => {
    let r: Record<Mode, PassResult>;
    beforeAll(async () => {
      r = await step(190);
    });

    it('decides 1 → 2 in both modes from the Prometheus reading', () => {
      for (const m of MODES) {
        expect(decisionOf(r[m])).toMatchObject({
          action: 'scale-up',
          reason: 'AboveMax',
          replicas: { from: 1, to: 2 },
          utilization: 100,
          nodes: [],
        });
      }
    });

    it('pull-request: a scale PR with replicas 2 and the evidence; the cluster waits for the merge', async () => {
      const x = h['pull-request'];
      expect(r['pull-request'].writeBack.map((w) => [w.branch, w.action])).toEqual([
        [SCALE_BRANCH, 'created'],
      ]);
      expect(replicasIn(x.file(SCALE_BRANCH, DEPLOYMENT))).toBe(2);
      expect(replicasIn(x.file('main', DEPLOYMENT))).toBe(1);
      expect(x.file(SCALE_BRANCH, UNUSED_FILE)).toBe(x.file('main', UNUSED_FILE));
      const pr = (await x.store.pullRequests('prod')).find((p) => p.branch === SCALE_BRANCH)!;
      // The evidence: aggregate, thresholds, replicas, decision; and the pod's own utilisation.
      expect(pr.body).toContain('| 100.0 | 30.0 | 80.0 | 1 → 2 (limits 1..6) | scale-up | AboveMax |');
      const pod = x.sim.store
        .list('pods', 'algorithms')
        .find((p) => p.metadata.labels?.['gpuops.dev/algorithm'] === 'serve')!;
      expect(pr.body).toContain(`| algorithms | ${pod.metadata.name} | 100.0 | 1 |`);
      expect(cluster(x)).toEqual({ replicas: 1, pods: ['gpu-s1'] });
      x.merge(SCALE_BRANCH);
      await x.sync();
      expect(cluster(x)).toEqual({ replicas: 2, pods: ['gpu-s1', 'gpu-s1'] });
    });

    it('patch: the Deployment is scaled in the cluster and main holds replicas 2; no branch', () => {
      const x = h.patch;
      expect(r.patch.writeBack.map((w) => [w.branch, w.action])).toEqual([['main', 'committed']]);
      expect(r.patch.patches).toEqual(['Deployment algorithms/serve: replicas 2']);
      expect(cluster(x)).toEqual({ replicas: 2, pods: ['gpu-s1', 'gpu-s1'] });
      expect(replicasIn(x.file('main', DEPLOYMENT))).toBe(2);
      expect(x.ref(SCALE_BRANCH)).toBeNull();
    });
  });

  describe('relabel: 190 over two pods is 95 % each, the pool is full, gpu-u1 is unused', () => {
    let r: Record<Mode, PassResult>;
    beforeAll(async () => {
      r = await step(190);
    });

    it('decides to move gpu-u1 into short-task and scale 2 → 3 in both modes', () => {
      for (const m of MODES) {
        expect(decisionOf(r[m])).toMatchObject({
          action: 'relabel',
          reason: 'RelabelUnusedNode',
          replicas: { from: 2, to: 3 },
          utilization: 95,
          nodes: ['gpu-u1'],
        });
      }
    });

    it('pull-request: the scale PR carries replicas 3 and the node file; merged and applied, a pod runs on gpu-u1', async () => {
      const x = h['pull-request'];
      expect(r['pull-request'].writeBack.map((w) => [w.branch, w.action])).toEqual([
        [SCALE_BRANCH, 'created'],
      ]);
      expect(replicasIn(x.file(SCALE_BRANCH, DEPLOYMENT))).toBe(3);
      expect(poolIn(x.file(SCALE_BRANCH, UNUSED_FILE))).toBe('short-task');
      expect(poolIn(x.file('main', UNUSED_FILE))).toBe('unused');
      expect(nodeLabel(x, 'gpu-u1')).toBe('unused');
      x.merge(SCALE_BRANCH);
      await x.sync();
      expect(nodeLabel(x, 'gpu-u1')).toBe('short-task');
      expect(cluster(x)).toEqual({ replicas: 3, pods: ['gpu-s1', 'gpu-s1', 'gpu-u1'] });
    });

    it('patch: gpu-u1 is relabelled and the Deployment scaled in the cluster; main holds both', () => {
      const x = h.patch;
      expect(r.patch.writeBack.map((w) => [w.branch, w.action])).toEqual([['main', 'committed']]);
      expect(nodeLabel(x, 'gpu-u1')).toBe('short-task');
      expect(cluster(x)).toEqual({ replicas: 3, pods: ['gpu-s1', 'gpu-s1', 'gpu-u1'] });
      expect(replicasIn(x.file('main', DEPLOYMENT))).toBe(3);
      expect(poolIn(x.file('main', UNUSED_FILE))).toBe('short-task');
    });
  });

  describe('scale-down: load 30 over three pods is 10 % each', () => {
    let r: Record<Mode, PassResult>;
    beforeAll(async () => {
      r = await step(30);
    });

    it('decides 3 → 2 in both modes (predicted 15 % stays at or below max)', () => {
      for (const m of MODES) {
        expect(decisionOf(r[m])).toMatchObject({
          action: 'scale-down',
          reason: 'BelowMin',
          replicas: { from: 3, to: 2 },
          utilization: 10,
        });
        // Stabilisation judged from Prometheus's samples of the window, in the same one query.
        expect(decisionOf(r[m]).message).toContain(`whole ${WINDOW}s stabilisation window (highest 10%`);
      }
    });

    it('pull-request: a scale PR with replicas 2; merged and applied, two pods run', async () => {
      const x = h['pull-request'];
      expect(r['pull-request'].writeBack.map((w) => [w.branch, w.action])).toEqual([
        [SCALE_BRANCH, 'created'],
      ]);
      expect(replicasIn(x.file(SCALE_BRANCH, DEPLOYMENT))).toBe(2);
      expect(cluster(x).replicas).toBe(3);
      expect(poolIn(x.file(SCALE_BRANCH, UNUSED_FILE))).toBe('short-task');
      x.merge(SCALE_BRANCH);
      await x.sync();
      expect(cluster(x).replicas).toBe(2);
      expect(cluster(x).pods).toHaveLength(2);
    });

    it('patch: the Deployment is scaled down in the cluster and main holds replicas 2; the node stays', () => {
      const x = h.patch;
      expect(cluster(x).replicas).toBe(2);
      expect(cluster(x).pods).toHaveLength(2);
      expect(replicasIn(x.file('main', DEPLOYMENT))).toBe(2);
      expect(nodeLabel(x, 'gpu-u1')).toBe('short-task');
    });
  });
});
