/**
 * Benchmarks in the background (issue 11 §1): algorithm A's benchmark runs 30 simulated minutes
 * while algorithm B, already placed and running, gets more load than it can serve at minute 5.
 * No pass waits for A's Job: B's scale-up is decided within two passes while A still benchmarks,
 * and A is placed on the first pass after its run ended. Everything real on loopback (the
 * simulated cluster over HTTP, git, SQLite, dcgm-exporter pages); time is the simulator's clock,
 * all but stopped between the test's `advance` calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const A_SECONDS = 1800;
const POLICY = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata:',
  '  name: test',
  'spec:',
  '  scaling:',
  '    windowSeconds: 60',
  '    scaleUp:',
  '      cooldownSeconds: 0',
  '      stabilizationWindowSeconds: 0',
  '',
].join('\n');
const NODES = [
  gpuNode('gpu-test', 1),
  gpuNode('gpu-short', 4, 'short-task'),
  gpuNode('gpu-long', 4, 'long-task'),
];

let h: Harness;
const placementOf = (r: PassResult, name: string) => r.plan.placements.find((p) => p.algorithm === name)!;
const decisionOf = (r: PassResult, name: string) => r.plan.scaling.find((d) => d.algorithm === name);
const jobsOf = (name: string) =>
  h.sim.store.list('jobs', 'algorithms').filter((j) => j.metadata.labels?.['gpuops.dev/algorithm'] === name);
const finished = (job: { status?: { conditions?: { type: string; status: string }[] } }) =>
  (job.status?.conditions ?? []).some((c) => ['Complete', 'Failed'].includes(c.type) && c.status === 'True');

beforeAll(async () => {
  h = await startHarness({
    speed: 0.001,
    nodes: NODES,
    files: {
      'README.md': '# gitops\n',
      'algorithms/a.yaml': algorithmFile('a', { benchSeconds: A_SECONDS }),
      'algorithms/b.yaml': algorithmFile('b', { pool: 'short-task' }),
      'policies/test.yaml': POLICY,
    },
  });
  h.setMetrics(
    new DcgmScrapeSource({
      targets: NODES.map((n) => ({
        url: `${h.sim.url}/dcgm/${n.metadata.name}/metrics`,
        node: n.metadata.name,
      })),
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('b', 50);
  // B is placed (pinned to short-task) and runs; the test node gets its label.
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.pass();
  h.merge('gpuops/prod/placement/b');
  await h.sync();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe("A's 30-minute benchmark never holds B's scaling", () => {
  let endsAt: number;

  it("the pass that starts A's benchmark Job returns at once, A pending", async () => {
    const r = await h.pass();
    expect(jobsOf('a')).toHaveLength(1);
    expect(finished(jobsOf('a')[0]!)).toBe(false);
    expect(placementOf(r, 'a')).toMatchObject({ pool: null, reason: 'BenchmarkPending' });
    expect(placementOf(r, 'a').message).toMatch(/benchmark run 1 of 1: created Job algorithms\/a-bench-/);
    expect(decisionOf(r, 'b')).toMatchObject({ action: 'hold' });
  });

  it("B's load rises above max at minute 5: scale-up within two passes while A still runs", async () => {
    h.sim.clock.advance(300);
    h.load.setLoad('b', 180);
    const actions: string[] = [];
    let last: PassResult | undefined;
    for (let i = 0; i < 2 && !actions.includes('scale-up'); i++) {
      h.sim.clock.advance(30);
      last = await h.pass();
      actions.push(decisionOf(last, 'b')!.action);
      expect(placementOf(last, 'a').reason).toBe('BenchmarkPending');
      expect(placementOf(last, 'a').message).toMatch(
        /^benchmark pending: benchmark run 1 of 1 running on gpu-test for \d+ s/,
      );
    }
    expect(actions).toContain('scale-up');
    expect(decisionOf(last!, 'b')).toMatchObject({ action: 'scale-up', replicas: { from: 1, to: 2 } });
    expect(last!.writeBack.map((w) => [w.branch, w.action])).toContainEqual([
      'gpuops/prod/scale/b',
      'created',
    ]);
    expect(finished(jobsOf('a')[0]!)).toBe(false);
    const pod = h.sim.store
      .list('pods', 'algorithms')
      .find((p) => p.metadata.labels?.['gpuops.dev/algorithm'] === 'a' && p.metadata.labels?.['job-name'])!;
    endsAt = Date.parse(pod.status.containerStatuses[0].state.running.startedAt) + A_SECONDS * 1000;
  });

  it('a pass just before A ends still reports it running; the first pass after places it', async () => {
    h.sim.clock.advance((endsAt - h.sim.clock.now().getTime()) / 1000 - 20);
    const before = await h.pass();
    expect(placementOf(before, 'a').reason).toBe('BenchmarkPending');
    expect(h.sim.clock.now().getTime()).toBeLessThan(endsAt);

    h.sim.clock.advance((endsAt - h.sim.clock.now().getTime()) / 1000 + 1);
    const after = await h.pass();
    expect(placementOf(after, 'a')).toMatchObject({
      pool: 'long-task',
      reason: 'AboveThreshold',
      runTimeSeconds: A_SECONDS,
    });
    expect(after.writeBack.map((w) => [w.branch, w.action])).toContainEqual([
      'gpuops/prod/placement/a',
      'created',
    ]);
    const hash = jobsOf('a')[0]!.metadata.annotations!['gpuops.dev/spec-hash']!;
    const runs = await h.store.benchmarkRuns('a', hash);
    expect(runs.map((r) => [r.run, r.status, r.durationSeconds, r.node])).toEqual([
      [1, 'Succeeded', A_SECONDS, 'gpu-test'],
    ]);
  });
});
