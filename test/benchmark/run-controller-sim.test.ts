/**
 * End to end (issue 11, done-when): `gpuops run`'s controller — leader election over a Lease, the
 * loop, the health server — with the real reconcile pass against the simulated cluster over HTTP
 * keeps deciding scale-ups while a 30-minute benchmark runs. Each pass first moves the simulated
 * clock 5 minutes ahead (the clock is all but stopped otherwise), so no test step sleeps for a
 * fixed time: it waits for what the passes report.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeLeaseApi } from '../../src/cluster/lease.js';
import type { PassResult } from '../../src/pass/reconcile.js';
import { startController, type RunningController } from '../../src/controller/run-controller.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { until } from '../support/wait.js';

const A_SECONDS = 1800;
const PASS_SECONDS = 300;
const NODES = [
  gpuNode('gpu-test', 1),
  gpuNode('gpu-short', 4, 'short-task'),
  gpuNode('gpu-long', 4, 'long-task'),
];
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

let h: Harness;
let controller: RunningController | undefined;
const passes: PassResult[] = [];

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
  await h.pass();
  h.merge('gpuops/prod/pools');
  await h.pass();
  h.merge('gpuops/prod/placement/b');
  await h.sync();
}, 120_000);

afterAll(async () => {
  await controller?.stop();
  await h?.close();
});

const placementOf = (r: PassResult, name: string) => r.plan.placements.find((p) => p.algorithm === name)!;
const decisionOf = (r: PassResult, name: string) => r.plan.scaling.find((d) => d.algorithm === name)!;

describe('gpuops run against the simulated cluster', () => {
  it("keeps scaling B on every pass while A's 30-minute benchmark runs, then places A", async () => {
    h.load.setLoad('b', 180);
    controller = await startController({
      identity: 'gpuops-0',
      leaseApi: kubeLeaseApi(h.kc, 'gpuops-system', 'gpuops-prod'),
      leaseDurationSeconds: 15,
      retryPeriodSeconds: 0.2,
      intervalSeconds: 0.01,
      healthPort: 0,
      healthHost: '127.0.0.1',
      pass: async () => {
        h.sim.clock.advance(PASS_SECONDS);
        const r = await h.pass();
        passes.push(r);
        return r;
      },
      log: pino({ level: 'silent' }),
    });
    await until('A placed', () => passes.some((p) => placementOf(p, 'a').pool !== null), 240_000, 100);
    await controller.stop();

    // Every pass while A ran decided about B; a scale-up came while A's Job was running.
    const whileA = passes.filter((p) => /running on gpu-test/.test(placementOf(p, 'a').message));
    expect(whileA.length).toBeGreaterThanOrEqual(3);
    expect(whileA.every((p) => decisionOf(p, 'b') !== undefined)).toBe(true);
    expect(whileA.map((p) => decisionOf(p, 'b').action)).toContain('scale-up');
    expect(whileA.map((p) => placementOf(p, 'a').reason)).toEqual(whileA.map(() => 'BenchmarkPending'));
    // The pass that placed A came right after the last pass that saw it running or just ended.
    const placedAt = passes.findIndex((p) => placementOf(p, 'a').pool !== null);
    expect(placementOf(passes[placedAt]!, 'a')).toMatchObject({
      pool: 'long-task',
      reason: 'AboveThreshold',
      runTimeSeconds: A_SECONDS,
    });
    expect(/running on gpu-test/.test(placementOf(passes[placedAt - 1]!, 'a').message)).toBe(true);
    expect(passes[placedAt]!.writeBack.map((w) => w.branch)).toContain('gpuops/prod/placement/a');
  }, 300_000);
});
