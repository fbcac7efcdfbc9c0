/**
 * Issue 11 §2 end to end: the reconcile pass against the simulated cluster over HTTP and a real
 * GitOps repo. The Algorithm file moves to image :2.0.0 while its two pods run at 91 % with room
 * in the pool: the placement pull request opens and, in the same pass, the algorithm scales
 * 2 → 3 — in pull-request mode as a scale PR that merges beside the placement PR (real
 * `git merge`), in patch mode through the scale subresource whatever PRs are open.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

type Mode = 'pull-request' | 'patch';
const MODES: Mode[] = ['pull-request', 'patch'];
const DEPLOYMENT = 'clusters/prod/algorithms/serve/deployment.yaml';
const PLACEMENT = 'gpuops/prod/placement/serve';
const SCALE = 'gpuops/prod/scale/serve';
const h = {} as Record<Mode, Harness>;

const policy = (mode: Mode) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  scaling:',
    `    mode: ${mode}`,
    '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '',
  ].join('\n');

const deployment = (x: Harness, ref: string) => parse(x.file(ref, DEPLOYMENT) ?? 'null');
const inCluster = (x: Harness) => x.sim.store.get('deployments', 'algorithms', 'serve')?.spec.replicas;
const decisionOf = (r: PassResult) => r.plan.scaling.find((d) => d.algorithm === 'serve')!;

beforeAll(async () => {
  await Promise.all(
    MODES.map(async (m) => {
      const x = await startHarness({
        nodes: [gpuNode('gpu-test', 1, 'test'), gpuNode('gpu-s1', 4, 'short-task')],
        files: {
          'README.md': '# gitops\n',
          'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }),
          'policies/test.yaml': policy(m),
        },
      });
      h[m] = x;
      x.setMetrics(
        new DcgmScrapeSource({
          targets: ['gpu-s1'].map((node) => ({ url: `${x.sim.url}/dcgm/${node}/metrics`, node })),
          now: () => x.sim.clock.now(),
        }),
      );
      // Pools, then placement (pinned: no benchmark), merged and applied; then a person runs it at 2.
      x.load.setLoad('serve', 50);
      await x.pass();
      x.merge('gpuops/prod/pools');
      await x.pass();
      x.merge(PLACEMENT);
      x.push({ [DEPLOYMENT]: x.file('main', DEPLOYMENT)!.replace('replicas: 1', 'replicas: 2') });
      await x.sync();
      await x.settle();
    }),
  );
}, 120_000);

afterAll(async () => {
  for (const m of MODES) await h[m]?.close();
});

describe('the image moves to :2.0.0 while load is above max', () => {
  const r = {} as Record<Mode, PassResult>;
  beforeAll(async () => {
    for (const m of MODES) {
      const x = h[m];
      expect(inCluster(x)).toBe(2);
      x.push({
        'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }).replace(':1.0.0', ':2.0.0'),
      });
      x.load.setLoad('serve', 182);
    }
    for (const m of MODES) r[m] = await h[m].pass();
  }, 120_000);

  it('both modes decide scale-up 2 → 3 in the pass that opens the placement PR', () => {
    for (const m of MODES) {
      expect(decisionOf(r[m])).toMatchObject({
        action: 'scale-up',
        reason: 'AboveMax',
        replicas: { from: 2, to: 3 },
        utilization: 91,
      });
      const placement = r[m].writeBack.find((w) => w.branch === PLACEMENT)!;
      expect(placement.action).toBe('created');
      const placed = deployment(h[m], PLACEMENT);
      expect(placed.spec.replicas).toBe(2);
      expect(placed.spec.template.spec.containers[0].image).toBe('registry.example.com/ml/serve:2.0.0');
    }
  });

  it('pull-request: a scale PR beside the placement PR; scale merged first, then placement: main holds :2.0.0 and 3', () => {
    const x = h['pull-request'];
    expect(r['pull-request'].writeBack.map((w) => [w.branch, w.action])).toEqual([
      [PLACEMENT, 'created'],
      [SCALE, 'created'],
    ]);
    expect(deployment(x, SCALE).spec.replicas).toBe(3);
    expect(deployment(x, SCALE).spec.template.spec.containers[0].image).toBe(
      'registry.example.com/ml/serve:1.0.0',
    );
    x.merge(SCALE);
    x.merge(PLACEMENT);
    const main = deployment(x, 'main');
    expect(main.spec.replicas).toBe(3);
    expect(main.spec.template.spec.containers[0].image).toBe('registry.example.com/ml/serve:2.0.0');
  });

  it('patch: the scale subresource is patched and main holds 3 while the placement PR is open; it merges after', async () => {
    const x = h.patch;
    expect(r.patch.writeBack.map((w) => [w.branch, w.action])).toEqual([
      [PLACEMENT, 'created'],
      ['main', 'committed'],
    ]);
    expect(inCluster(x)).toBe(3);
    expect(deployment(x, 'main').spec.replicas).toBe(3);
    x.merge(PLACEMENT);
    const main = deployment(x, 'main');
    expect(main.spec.replicas).toBe(3);
    expect(main.spec.template.spec.containers[0].image).toBe('registry.example.com/ml/serve:2.0.0');
  });
});
