/**
 * Issue 23 item 10 end to end, over HTTP against the simulated cluster: one of two replicas stops
 * passing its readiness probe (`sim.gpuops.dev/never-ready`, set as `kubectl annotate` would)
 * while the load is above max. Within `scaling.podStartupSeconds` (300 s) of its start the
 * unready pod is capacity on its way (`hold PodsStarting`); past it, it is stuck: left out, the
 * scale-up goes on (patch mode: the Deployment in the cluster goes 2 → 3) and the decision names
 * the stuck pod in the plan and in the database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { NEVER_READY_ANNOTATION } from '../../src/sim/controllers/kubelet.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { simFetch } from '../support/sim-fetch.js';

const DEPLOYMENT = 'clusters/prod/algorithms/serve/deployment.yaml';
let h: Harness;
let stuck = '';

const decisionOf = (r: PassResult) => r.plan.scaling.find((d) => d.algorithm === 'serve')!;
const pods = () => h.sim.store.list('pods', 'algorithms').filter((p) => !p.metadata.deletionTimestamp);
const ready = (name: string) =>
  (
    h.sim.store.get('pods', 'algorithms', name)?.status?.conditions as { type: string; status: string }[]
  )?.find((c) => c.type === 'Ready')?.status;

beforeAll(async () => {
  h = await startHarness({
    nodes: [gpuNode('gpu-test', 1, 'test'), gpuNode('gpu-s1', 4, 'short-task')],
    files: {
      'README.md': '# gitops\n',
      'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }),
      'policies/test.yaml': [
        'apiVersion: gpuops.dev/v1alpha1',
        'kind: Policy',
        'metadata: {name: test}',
        'spec:',
        '  scaling:',
        '    mode: patch',
        '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
        '    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
        '',
      ].join('\n'),
    },
    speed: 0.001, // the clock moves only when the test advances it
  });
  h.setMetrics(
    new DcgmScrapeSource({
      targets: [{ url: `${h.sim.url}/dcgm/gpu-s1/metrics`, node: 'gpu-s1' }],
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('serve', 50);
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.pass();
  h.merge('gpuops/prod/placement/serve');
  h.push({ [DEPLOYMENT]: h.file('main', DEPLOYMENT)!.replace('replicas: 1', 'replicas: 2') });
  await h.sync();
  await h.settle();
}, 120_000);

afterAll(() => h?.close());

describe('a replica whose readiness probe never passes', () => {
  it('is set up: two Ready replicas, then one annotated over HTTP turns unready and stays so', async () => {
    expect(pods().map((p) => ready(p.metadata.name))).toEqual(['True', 'True']);
    stuck = pods()[0]!.metadata.name;
    const res = await simFetch(h.sim, `/api/v1/namespaces/algorithms/pods/${stuck}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { annotations: { [NEVER_READY_ANNOTATION]: 'true' } } }),
    });
    expect(res.status).toBe(200);
    await h.settle();
    expect(ready(stuck)).toBe('False');
    expect(h.sim.store.get('pods', 'algorithms', stuck)?.status?.phase).toBe('Running');
  });

  it('within its start-up bound it is capacity arriving: hold PodsStarting at 2', async () => {
    h.load.setLoad('serve', 90); // the load model serves it from the Ready pod: 90 % on its GPU
    const d = decisionOf(await h.pass());
    expect([d.action, d.reason, d.replicas]).toEqual(['hold', 'PodsStarting', { from: 2, to: 2 }]);
    expect(d.utilization).toBe(90);
    expect(d.message).toContain('but 1 replica(s) are starting: with them Ready it is 45% ≤ max 80%');
  });

  it('past it (301 s after its start) it is stuck: the scale-up goes on, 2 → 3, and the decision says why', async () => {
    const started = Date.parse(h.sim.store.get('pods', 'algorithms', stuck)!.status!.startTime as string);
    h.sim.clock.advance((started + 301_000 - h.sim.clock.now().getTime()) / 1000);
    await h.settle();
    expect(ready(stuck)).toBe('False');
    const d = decisionOf(await h.pass());
    expect([d.action, d.reason, d.replicas]).toEqual(['scale-up', 'AboveMax', { from: 2, to: 3 }]);
    expect(d.message).toContain(
      `(note: 1 replica(s) not Ready past the start-up bound of 300 s, left out of capacity and utilisation: algorithms/${stuck} (started 5 min ago))`,
    );
    await h.settle();
    expect(h.sim.store.get('deployments', 'algorithms', 'serve')?.spec.replicas).toBe(3);
    const recorded = await h.store.decisions('serve', '1970-01-01T00:00:00Z');
    expect(recorded.filter((r) => r.kind === 'scaling').at(-1)?.message).toContain(
      `not Ready past the start-up bound of 300 s, left out of capacity and utilisation: algorithms/${stuck}`,
    );
  });
});
