/**
 * The fleet replay on a fleet of nodes (issue 25 section 3) on a short synthetic trace: a burst
 * that needs nodes moved in, then a long quiet stretch in which they return; the HPA on static
 * pools sized to its peak; the ideal's pool; `gpuops replay --services 2 --nodes N` end to end.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { idealPoints } from '../../src/replay/figures.js';
import { runFleetModel, shiftedServices } from '../../src/replay/fleet-model.js';
import { idealPoolFigures, staticPoolFigures } from '../../src/replay/fleet-node-pools.js';
import { runGpuopsOnNodes, runHpaOnPools } from '../../src/replay/fleet-nodes.js';
import { runFleet } from '../../src/replay/fleet-replay.js';
import { patchPolicy } from '../../src/replay/replay-policy.js';
import { DEFAULT_REPLAY_SETTINGS } from '../../src/replay/replay-settings.js';
import type { Trace } from '../../src/replay/trace.js';
import { runMain } from '../support/run-main.js';
import { modelSettings } from './model-settings.js';

/** 100 one-minute instants: 2 pods at 40 % for 10 min, 24 pods at 70 % for 20 min, then 2 at 40 %. */
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

describe('gpuops on a fixed fleet of nodes', async () => {
  const policy = patchPolicy(await loadDefaultPolicy(), { ...DEFAULT_REPLAY_SETTINGS, headroomFactor: 1 }, 1);
  const ample = runGpuopsOnNodes([trace], policy, S, 10, 'gpuops');
  it('moves unused nodes in for the burst and returns them once empty for pools.returnAfterSeconds', () => {
    const n = ample.nodes!;
    // The burst needs ceil(24 × 70 / 80 / 4) = 6 nodes at least; the warm-up pool holds 1 (3 pods).
    expect(n.peakPoolNodes).toBeGreaterThanOrEqual(6);
    expect(n.peakPoolNodes).toBeLessThanOrEqual(10);
    expect(n.nodeMoves).toBe(n.peakPoolNodes - 1);
    // The burst ends at 30 min; 1800 s later the empty nodes go back; 70 min of trace are left.
    expect(n.nodesReturned).toBeGreaterThanOrEqual(n.nodeMoves - 1);
    expect(n.poolGpuHours).toBeCloseTo(n.poolNodeHours * 4, 1);
    // Every allocated pod sits on a pool node; the pool never holds more than the fleet.
    expect(n.poolGpuHours).toBeGreaterThanOrEqual(ample.allocatedGpuHours);
    expect(n.poolNodeHours).toBeLessThan(10 * HOURS);
  });
  it('capacity binds: on one node of 4 GPUs replicas wait Pending and the load goes unserved', () => {
    const one = runGpuopsOnNodes([trace], policy, S, 1, 'gpuops');
    expect(one.nodes!.peakPoolNodes).toBe(1);
    expect(one.nodes!.nodeMoves).toBe(0);
    expect(one.allocatedGpuHours).toBeLessThanOrEqual(4 * HOURS + 1e-9);
    // 20 min of 16.8 GPUs offered against 4 serving: at least (16.8 − 4) × 1/3 h unserved.
    expect(one.services[0]!.unservedGpuHours).toBeGreaterThan(12.8 / 3 - 0.5);
    expect(one.unservedPercent).toBeGreaterThan(ample.unservedPercent + 30);
  });
});

describe('the HPA per service on static pools sized to its peak', () => {
  it('runs as the pod-level model when every pod has room, and holds ceil(peak ÷ 4) nodes per service all the time', () => {
    const services = shiftedServices(trace, 2);
    const free = runHpaOnPools(services, 55, S, null, 'hpa');
    const alone = runFleetModel(services, { kind: 'hpa', target: 55 }, S, 'hpa');
    expect(free.figures.allocatedGpuHours).toBe(alone.allocatedGpuHours);
    expect(free.figures.unservedPercent).toBe(alone.unservedPercent);
    const pools = free.peakReplicas.map((r) => Math.ceil(r / 4));
    expect(Math.min(...free.peakReplicas)).toBeGreaterThanOrEqual(21); // 24 × 70 / 55 = 30.5 wanted, 4 pods / 15 s
    const sized = runHpaOnPools(services, 55, S, pools, 'hpa').figures;
    expect(sized.unservedPercent).toBe(alone.unservedPercent);
    expect(sized.nodes!.poolNodeHours).toBeCloseTo((pools[0]! + pools[1]!) * HOURS, 2);
    expect(sized.nodes!.nodeMoves + sized.nodes!.nodesReturned).toBe(0);
  });
});

describe('static and ideal node figures', () => {
  it('static: one pool per service of ceil(its most pods ÷ 4); ideal: ceil(Σ ideal GPUs ÷ 4) at each instant', () => {
    const services = shiftedServices(trace, 2);
    expect(staticPoolFigures(services, 4).poolNodeHours).toBeCloseTo(2 * 6 * HOURS, 2);
    const ideal = services.map((t) => idealPoints(t, 80).map((p) => p.allocated));
    const nodes = ideal[0]!.map((g, j) => Math.ceil((g + ideal[1]![j]!) / 4));
    const f = idealPoolFigures(services, 80, 4);
    expect(f.poolNodeHours).toBeCloseTo(nodes.reduce((a, x) => a + x, 0) / 60, 2);
    expect(f.peakPoolNodes).toBe(Math.max(...nodes));
    const rises = nodes.slice(1).reduce((a, x, j) => a + Math.max(0, x - nodes[j]!), 0);
    expect(f.nodeMoves).toBe(rises);
  });
});

describe('runFleet and gpuops replay --services K --nodes N', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-fleet-nodes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('auto: gpuops gets as many nodes as the HPA static pools hold, and fewer node-hours', async () => {
    const s = { ...DEFAULT_REPLAY_SETTINGS, gpusPerNode: 4 };
    const run = await runFleet(shiftedServices(trace, 2), s, { nodes: 'auto', scoring: 'MostAllocated' });
    const [, hpa, gpuops] = run.rows;
    expect(run.nodes!.fleet).toBe(run.nodes!.hpaPools[0]! + run.nodes!.hpaPools[1]!);
    expect(gpuops!.nodes!.fleetNodes).toBe(run.nodes!.fleet);
    expect(hpa!.nodes!.poolNodeHours).toBeCloseTo(run.nodes!.fleet * HOURS, 2);
    expect(gpuops!.nodes!.poolNodeHours).toBeLessThan(hpa!.nodes!.poolNodeHours);
    // The frontier: gpuops on the same nodes at every factor; more headroom, more node-hours.
    expect(run.frontier!.map((r) => r.engine)).toEqual(
      s.headroomFactors.map((b) => `gpuops β ${b}, ${run.nodes!.fleet} nodes`),
    );
    expect(run.frontier![s.headroomFactors.indexOf(1)]).toBe(gpuops);
    const hours = run.frontier!.map((r) => r.nodes!.poolNodeHours);
    expect(hours[hours.length - 1]).toBeGreaterThan(hours[0]!);
  });
  it('prints node-level figures per engine and the node-hours target', async () => {
    const rows = ['value,timestamp_anon,container_ip'];
    trace.instants.forEach((x) =>
      x.values.forEach((v, p) => rows.push(`${v},${1662858720 + x.t},10.0.0.${p}`)),
    );
    const file = path.join(dir, 'burst.csv');
    writeFileSync(file, rows.join('\n') + '\n');
    const r = await runMain(
      'replay',
      '--trace',
      file,
      '--services',
      '2',
      '--nodes',
      '12',
      '--gpus-per-node',
      '4',
    );
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^fleet of 2 services on nodes \(model; 12 nodes for gpuops/);
    expect(r.out).toMatch(
      / {2}gpuops β 1, 12 nodes +util +[\d.]+ %.* pool node-h +[\d.]+ .* moves \d+ {2}returned \d+/,
    );
    expect(r.out).toMatch(
      /(ok {2}|MISS) {2}gpuops β 1, 12 nodes +short-task node-hours below the HPA's static pools \([\d.]+ vs [\d.]+\) -?[\d.]+ % \(target ≥ 40 %\)/,
    );
    expect(r.out).toContain('per service (unserved / pod-time above max):');
  });
});
