/**
 * A fleet of services on a fleet of nodes (pure; docs/replay.md, "A fleet of nodes"): every engine
 * of the fleet replay with node-level figures (`NodeFigures`).
 * - gpuops: one `short-task` pool on a fixed fleet of nodes, every service decided in one pass by
 *   the real `decideInTurn` against the nodes' free GPUs (headroom shared across the pool); a
 *   `relabel` moves unused nodes in, an empty node returns after `pools.returnAfterSeconds`
 *   (`node-moves.ts`); a replica that finds no free GPU waits Pending and serves nothing;
 * - the HPA per service on a static pool sized to that service's peak replicas (`staticPoolNodes`
 *   of the peak the HPA reaches with room for every pod), held all the time;
 * static's and the ideal's pools are in `fleet-node-pools.ts`.
 * Units: seconds, whole GPUs (1 GPU per pod), hours in the figures.
 */
import type { Policy } from '../definitions/index.js';
import { decideInTurn } from '../scaling/index.js';
import { computeFigures, type AllocationPoint } from './figures.js';
import { fleetFigures, type FleetFigures, type NodeFigures } from './fleet-model.js';
import { nodeFigures, type Meter } from './fleet-node-pools.js';
import type { ModelSettings } from './model-engine.js';
import { createNodes, nodeCapacities, staticPoolNodes, type FleetNode } from './node-fleet.js';
import { moveNodes, returnNodes } from './node-moves.js';
import { nodeService, schedulePending, type NodeService } from './node-service.js';
import type { FitProfile, FitScoring } from './scheduler-score.js';
import type { Trace } from './trace.js';

const TICK = 15;
const START = Date.parse('2026-01-01T00:00:00Z');

/** The model's settings with a fleet of nodes. */
export interface NodeModelSettings extends ModelSettings {
  gpusPerNode: number;
  /**
   * kube-scheduler's NodeResourcesFit (`pickNode`): a bare strategy scores the default profile's
   * cpu and memory (`LeastAllocated` is its default strategy).
   */
  scoring: FitScoring | FitProfile;
}

function endOf(services: readonly NodeService[]): number {
  return Math.max(...services.map((x) => x.endS));
}

function figuresOf(
  name: string,
  traces: readonly Trace[],
  ms: readonly NodeService[],
  s: ModelSettings,
  nodes: NodeFigures,
): FleetFigures {
  const figures = ms.map((m, i) =>
    computeFigures(traces[i]!, m.points, { engine: `${name}#${i}`, max: s.max, flapWindowSeconds: 300 }),
  );
  return { ...fleetFigures(name, figures), nodes };
}

/**
 * gpuops over `traces` on `nodeCount` nodes of `s.gpusPerNode` GPUs under `policy` (patch mode,
 * headroom sizing shares the pool). The pool starts with the nodes the warm-up's pods fill (at
 * most the fleet), the rest `unused`. @throws Error when a trace is empty
 */
export function runGpuopsOnNodes(
  traces: readonly Trace[],
  policy: Policy,
  s: NodeModelSettings,
  nodeCount: number,
  name: string,
): FleetFigures {
  return runGpuopsOnNodesWithPoints(traces, policy, s, nodeCount, name).figures;
}

/** {@link runGpuopsOnNodes}, and each service's allocation over time (for the report's charts). */
export function runGpuopsOnNodesWithPoints(
  traces: readonly Trace[],
  policy: Policy,
  s: NodeModelSettings,
  nodeCount: number,
  name: string,
): { figures: FleetFigures; points: AllocationPoint[][] } {
  const probe = traces.map((t, i) => nodeService(t, s, `s${i}`, []));
  const warm = probe.reduce((a, x) => a + x.pods.length, 0);
  const nodes = createNodes(
    nodeCount,
    s.gpusPerNode,
    Math.min(nodeCount, staticPoolNodes(warm, s.gpusPerNode)),
  );
  const ms = traces.map((t, i) => nodeService(t, s, `s${i}`, nodes));
  const algorithms = new Map(ms.map((m) => [m.name, m.passInput(0, policy).algorithm] as const));
  const meter: Meter = { nodeSeconds: 0, peak: 0, moves: 0, returned: 0 };
  const endS = endOf(ms);
  for (let t = 0; t < endS; t += TICK) {
    if (t > 0 && t % s.passIntervalSeconds === 0) {
      const now = new Date(START + t * 1000);
      const live = ms.filter((m) => t < m.endS);
      const decisions = decideInTurn(
        live.map((m) => m.passInput(t, policy)),
        nodeCapacities(nodes),
        policy,
        now,
      );
      meter.moves += moveNodes(nodes, decisions, t).length;
      const byName = new Map(live.map((m) => [m.name, m]));
      for (const d of decisions) byName.get(d.algorithm)!.apply(d, t);
      schedulePending(ms, nodes, 'short-task', s.scoring, s.startupSeconds, t);
      meter.returned += returnNodes(nodes, decisions, algorithms, policy, t).length;
    }
    schedulePending(ms, nodes, 'short-task', s.scoring, s.startupSeconds, t);
    for (const m of ms) m.record(t);
    meterTick(meter, nodes, Math.min(TICK, endS - t));
  }
  return {
    figures: figuresOf(name, traces, ms, s, nodeFigures(meter, nodeCount, s.gpusPerNode)),
    points: ms.map((m) => m.points),
  };
}

function meterTick(m: Meter, nodes: readonly FleetNode[], dt: number): void {
  const held = nodes.filter((n) => n.pool === 'short-task').length;
  m.nodeSeconds += held * dt;
  m.peak = Math.max(m.peak, held);
}

/**
 * The HPA at `target` per service, each on a static pool of `poolNodes[i]` nodes (all the time);
 * `null` pool sizes: room for every pod (`s.maxReplicas`). Returns the figures and each service's
 * peak replicas and allocation over time. @throws Error when a trace is empty
 */
export function runHpaOnPools(
  traces: readonly Trace[],
  target: number,
  s: NodeModelSettings,
  poolNodes: readonly number[] | null,
  name: string,
): { figures: FleetFigures; peakReplicas: number[]; points: AllocationPoint[][] } {
  const sizes = traces.map((_t, i) => poolNodes?.[i] ?? staticPoolNodes(s.maxReplicas, s.gpusPerNode));
  const pools = sizes.map((n) => createNodes(n, s.gpusPerNode, n));
  const ms = traces.map((t, i) => nodeService(t, s, `s${i}`, pools[i]!, target));
  const endS = endOf(ms);
  const peak = ms.map((m) => m.replicas());
  for (let t = 0; t < endS; t += TICK) {
    ms.forEach((m, i) => {
      if (t > 0 && t < m.endS) m.hpaTick(t);
      schedulePending([m], pools[i]!, 'short-task', s.scoring, s.startupSeconds, t);
      m.record(t);
      peak[i] = Math.max(peak[i]!, m.replicas());
    });
  }
  const total = sizes.reduce((a, x) => a + x, 0);
  const meter: Meter = { nodeSeconds: total * endS, peak: total, moves: 0, returned: 0 };
  return {
    figures: figuresOf(name, traces, ms, s, nodeFigures(meter, total, s.gpusPerNode)),
    peakReplicas: peak,
    points: ms.map((m) => m.points),
  };
}
