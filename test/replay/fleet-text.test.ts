/** The fleet's node-level targets judged at their boundaries (`fleetVerdicts`). */
import { describe, expect, it } from 'vitest';
import type { FleetFigures } from '../../src/replay/fleet-model.js';
import { fleetVerdicts, formatFleet } from '../../src/replay/fleet-text.js';
import { fitProfileText } from '../../src/replay/scheduler-score.js';

const row = (engine: string, nodeHours: number, unserved: number): FleetFigures => ({
  engine,
  services: [],
  utilizationPercent: 50,
  allocatedGpuHours: 100,
  unservedPercent: unserved,
  aboveMaxPercent: 1,
  flaps: 0,
  nodes: {
    gpusPerNode: 8,
    fleetNodes: 10,
    poolNodeHours: nodeHours,
    poolGpuHours: 8 * nodeHours,
    peakPoolNodes: 10,
    nodeMoves: 0,
    nodesReturned: 0,
  },
});
const hpa = row('hpa 55 %', 600, 0.2);
const NODE = /^short-task node-hours below the HPA's static pools \(/;
const AT = /^short-task node-hours below the HPA's static pools at no more unserved/;

describe('fleetVerdicts: node-hours ≥ 40 % below the HPA on static pools, at no more unserved', () => {
  it.each<[string, number, number, boolean, boolean]>([
    // name, gpuops node-hours, gpuops unserved %, node-hours met, unserved met
    ['exactly 40 % below, equal unserved: both met', 360, 0.2, true, true],
    ['39.9 % below: missed', 360.6, 0.2, false, true],
    ['fewer node-hours but more unserved: the second missed', 100, 0.201, true, false],
  ])('%s', (_, hours, unserved, nodesOk, unservedOk) => {
    const vs = fleetVerdicts([hpa, row('gpuops β 1', hours, unserved)]);
    expect(vs.find((v) => NODE.test(v.measure))!.ok).toBe(nodesOk);
    expect(vs.find((v) => v.measure === 'unserved, against the HPA on static pools')!.ok).toBe(unservedOk);
  });
  it('over the frontier: the fewest node-hours among the factors with no more unserved load', () => {
    const frontier = [
      row('gpuops β 0.5', 200, 0.3),
      row('gpuops β 1.5', 330, 0.2),
      row('gpuops β 2', 390, 0.1),
    ];
    const v = fleetVerdicts([hpa, row('gpuops β 1', 300, 0.3)], frontier).find((x) => AT.test(x.measure))!;
    // β 0.5 has fewer node-hours but more unserved load: β 1.5 is the figure, 45 % below.
    expect([v.figure, v.ok]).toEqual(['45.0 %', true]);
    expect(v.measure).toContain('gpuops β 1.5: 330.0 vs 600.0, unserved 0.200 %');
  });
  it('no factor reaches the HPA unserved load: n/a, missed', () => {
    const v = fleetVerdicts([hpa, row('gpuops β 1', 300, 0.3)], [row('gpuops β 1', 300, 0.3)]).find((x) =>
      AT.test(x.measure),
    )!;
    expect([v.figure, v.ok]).toEqual(['n/a', false]);
  });
  it('without node figures only the pod-level targets', () => {
    const { nodes: _n, ...g } = row('gpuops β 1', 300, 0.3);
    expect(fleetVerdicts([hpa, g]).map((v) => v.measure)).not.toContainEqual(expect.stringMatching(NODE));
  });
});

describe("formatFleet's head line names the scheduler's scoring the nodes were bound under", () => {
  it('the default profile: NodeResourcesFit over cpu and memory', () => {
    const text = formatFleet([hpa], 4, {
      fleet: 16,
      hpaPools: [7, 7],
      scoring: fitProfileText('LeastAllocated'),
    });
    expect(text.split('\n')[0]).toBe(
      "fleet of 4 services on nodes (model; 16 nodes for gpuops, the HPA's static pools 7 + 7 nodes; kube-scheduler: NodeResourcesFit LeastAllocated over cpu,memory (pods ask cpu and memory in proportion to their GPUs, 8 cores and 64 GiB per GPU)):",
    );
  });
});
