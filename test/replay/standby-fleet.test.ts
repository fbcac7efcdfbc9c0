/**
 * The replay's shared warm standby (`standby-fleet.ts`), its fair baseline (the HPA per service on
 * one pool a cluster-autoscaler model grows and shrinks, `autoscaled-pool.ts`) and the fleet of
 * disjoint pod groups (`podGroupServices`), on a short synthetic burst: 2 pods at 40 % for 10 min,
 * 24 pods at 70 % for 20 min, then 2 at 40 % for 70 min.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { runHpaOnAutoscaledPool } from '../../src/replay/autoscaled-pool.js';
import { podGroupServices, shiftedServices } from '../../src/replay/fleet-model.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import { runStandbyOnNodes } from '../../src/replay/standby-fleet.js';
import { offeredLoad, type Trace } from '../../src/replay/trace.js';
import { runMain } from '../support/run-main.js';
import { modelSettings } from './model-settings.js';

const level = (j: number) => (j >= 10 && j < 30 ? { pods: 24, v: 70 } : { pods: 2, v: 40 });
const trace: Trace = {
  source: 'burst',
  pods: 24,
  instants: Array.from({ length: 100 }, (_, j) => ({
    t: 60 * j,
    values: Array(level(j).pods).fill(level(j).v),
  })),
};
const HOURS = 100 / 60;
const S = { ...modelSettings(), gpusPerNode: 4, scoring: 'MostAllocated' as const };
const services = shiftedServices(trace, 2);
const policy = patchPolicy(await loadDefaultPolicy(), { ...DEFAULT_REPLAY_SETTINGS, headroomFactor: 0.5 }, 1);

describe('gpuops with a shared warm standby set on nodes', () => {
  const fast = runStandbyOnNodes(
    services,
    policy,
    S,
    20,
    { claimSeconds: 5, standbyFactor: 1 },
    'sb',
  ).figures;

  it('claims standbys on the burst and backfills them; standby GPUs count as allocated', () => {
    expect(fast.standby.claims).toBeGreaterThan(0);
    expect(fast.standby.backfills).toBeGreaterThan(0);
    expect(fast.standby.gpuHours).toBeGreaterThan(0);
    const servicesAllocated = fast.services.reduce((a, x) => a + x.allocatedGpuHours, 0);
    const served = fast.services.reduce((a, x) => a + x.servedGpuHours, 0);
    expect(fast.allocatedGpuHours).toBeCloseTo(servicesAllocated + fast.standby.gpuHours, 1);
    expect(fast.utilizationPercent).toBeCloseTo((100 * served) / fast.allocatedGpuHours, 0);
    // Every pod, standby or not, sits on a pool node.
    expect(fast.nodes!.poolGpuHours).toBeGreaterThanOrEqual(fast.allocatedGpuHours - 0.01);
  });

  it('β 0: no standby set, no claim, no backfill', () => {
    const none = runStandbyOnNodes(
      services,
      policy,
      S,
      20,
      { claimSeconds: 5, standbyFactor: 0 },
      'none',
    ).figures;
    expect(none.standby).toEqual({ gpuHours: 0, claims: 0, backfills: 0 });
  });

  it('a claim as slow as a cold start serves the burst worse than a 5 s claim', () => {
    const slow = runStandbyOnNodes(
      services,
      policy,
      S,
      20,
      { claimSeconds: 60, standbyFactor: 1 },
      'slow',
    ).figures;
    expect(slow.standby.claims).toBeGreaterThan(0);
    expect(slow.unservedPercent).toBeGreaterThan(fast.unservedPercent); // 11.65 vs 8.11 % when written
    expect(slow.aboveMaxPercent).toBeGreaterThan(fast.aboveMaxPercent);
  });

  it('capacity binds: on one node of 4 GPUs, services and standbys together hold at most 4 GPUs', () => {
    const one = runStandbyOnNodes(
      services,
      policy,
      S,
      1,
      { claimSeconds: 5, standbyFactor: 1 },
      'one',
    ).figures;
    expect(one.nodes!.peakPoolNodes).toBe(1);
    expect(one.allocatedGpuHours).toBeLessThanOrEqual(4 * HOURS + 0.01);
    expect(one.unservedPercent).toBeGreaterThan(fast.unservedPercent);
  });
});

describe('the fair baseline: the HPA per service on one autoscaled pool', () => {
  const base = runHpaOnAutoscaledPool(services, 55, S, 20, 'hpa').figures;

  it('grows by node for the burst and gives empty nodes back after the unneeded time', () => {
    const n = base.nodes!;
    // One burst alone wants ceil(24 × 70 / 55) = 31 pods: 8 nodes of 4 GPUs; the HPA's rate
    // (4 pods / 15 s) and the start-up keep it below that for a while, never below 4 nodes.
    expect(n.peakPoolNodes).toBeGreaterThanOrEqual(4);
    expect(n.peakPoolNodes).toBeLessThanOrEqual(20);
    expect(n.nodeMoves).toBeGreaterThan(0);
    expect(n.nodesReturned).toBeGreaterThan(0);
    expect(n.poolNodeHours).toBeLessThan(n.peakPoolNodes * HOURS);
  });

  it('an autoscaler that never removes a node holds more node-hours and returns none', () => {
    const never = runHpaOnAutoscaledPool(services, 55, S, 20, 'never', 1e9).figures;
    expect(never.nodes!.nodesReturned).toBe(0);
    expect(never.nodes!.poolNodeHours).toBeGreaterThan(base.nodes!.poolNodeHours);
    // The pods are the same: node removal only ever takes empty nodes.
    expect(never.allocatedGpuHours).toBeCloseTo(base.allocatedGpuHours, 1);
  });
});

describe('podGroupServices: disjoint groups of the trace’s pods', () => {
  const named: Trace = {
    source: 'named',
    pods: 5,
    instants: [
      { t: 0, values: [10, 20, 30], pods: ['c', 'a', 'b'] },
      { t: 60, values: [40, 50, 60, 70], pods: ['a', 'd', 'e', 'b'] },
    ],
  };

  it.each([1, 2, 3])('K = %i: every pod in one group, loads adding up to the trace at every instant', (k) => {
    const groups = podGroupServices(named, k);
    expect(groups).toHaveLength(k);
    expect(groups.reduce((a, g) => a + g.pods, 0)).toBe(5);
    named.instants.forEach((x, j) => {
      const pods = groups.flatMap((g) => g.instants[j]!.pods!);
      expect([...pods].sort()).toEqual([...x.pods!].sort());
      expect(new Set(pods).size).toBe(pods.length);
      expect(groups.reduce((a, g) => a + offeredLoad(g.instants[j]!), 0)).toBeCloseTo(offeredLoad(x), 9);
    });
  });

  it('a pod stays in its group across instants; refuses K < 1 and unnamed pods', () => {
    const [g0] = podGroupServices(named, 2);
    const first = new Set(g0!.instants[0]!.pods);
    for (const p of g0!.instants[1]!.pods!) if (['a', 'b', 'c'].includes(p)) expect(first.has(p)).toBe(true);
    expect(() => podGroupServices(named, 0)).toThrow('--pod-groups: expected a whole number ≥ 1, got 0');
    expect(() => podGroupServices(trace, 2)).toThrow('burst: its instants do not name their pods');
  });
});

describe('gpuops replay --claim-seconds', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-standby-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'burst.csv');
  const rows = ['value,timestamp_anon,container_ip'];
  trace.instants.forEach((x) =>
    x.values.forEach((v, p) => rows.push(`${v},${1662858720 + x.t},10.0.0.${p}`)),
  );
  writeFileSync(file, rows.join('\n') + '\n');
  const args = ['replay', '--trace', file, '--services', '2', '--nodes', '12', '--gpus-per-node', '4'];

  it('sets the claim of both loops of the standby section; default 5 s', async () => {
    const slow = await runMain(...args, '--claim-seconds', '20');
    expect(slow.code).toBe(0);
    expect(
      slow.out.match(/shared warm standby \(as 2 circularly shifted copies\), [^;]+, claims in 20 s;/g),
    ).toHaveLength(2);
    const byDefault = await runMain(...args);
    expect(byDefault.out.match(/, claims in 5 s;/g)).toHaveLength(2);
    // The claim reaches the engine: the standby rows move with it.
    const standbyRows = (out: string) => out.split('\n').filter((l) => /^ {2}standby β /.test(l));
    expect(standbyRows(slow.out)).toHaveLength(18);
    expect(standbyRows(slow.out)).not.toEqual(standbyRows(byDefault.out));
  }, 180_000); // two whole fleet replays: 61 s at load average ~20

  it.each(['-1', 'soon'])('refuses %s', async (v) => {
    const r = await runMain(...args, '--claim-seconds', v);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--claim-seconds');
  });
});
