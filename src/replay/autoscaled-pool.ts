/**
 * The fair baseline of the standby fleet (pure): the HPA per service, every service on ONE shared
 * pool that grows and shrinks by node as the Kubernetes cluster autoscaler does it
 * (https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md): when a pod is
 * Pending for want of a GPU it adds nodes (as many as the Pending pods fill, from the unused ones,
 * in name order), and it removes a node that has held no pod for `unneededSeconds` (its
 * `--scale-down-unneeded-time`, 10 minutes by default). The same scheduler scoring binds the pods
 * as for gpuops (`pickNode`). Not modelled: the autoscaler's drain of an under-used node (below
 * `--scale-down-utilization-threshold`, whose pods it evicts to other nodes: a GPU pod so moved
 * loses its loaded model and starts cold), the provisioning time of a new node (an unused node is
 * there at once, as for gpuops's node moves), and `--scale-down-delay-after-add`. Each of those
 * would make the baseline hold more node-hours or serve less; leaving them out is generous to it.
 * Units: seconds, whole GPUs (1 GPU per pod), hours in the figures.
 */
import { computeFigures, type AllocationPoint } from './figures.js';
import { fleetFigures, type FleetFigures } from './fleet-model.js';
import { nodeFigures, type Meter } from './fleet-node-pools.js';
import type { NodeModelSettings } from './fleet-nodes.js';
import { createNodes, staticPoolNodes, type FleetNode } from './node-fleet.js';
import { nodeService, schedulePending, type NodePod } from './node-service.js';
import type { Trace } from './trace.js';

/** The cluster autoscaler's scale-down: a node empty this long goes (seconds); its default is 600. */
export const UNNEEDED_SECONDS = 600;

/**
 * The HPA at `target` per service over `traces`, all on one pool of at most `nodeCount` nodes
 * that the cluster-autoscaler model grows and shrinks (see the module comment); the pool starts
 * with the nodes the warm-up's pods fill. @throws Error when a trace is empty
 */
export function runHpaOnAutoscaledPool(
  traces: readonly Trace[],
  target: number,
  s: NodeModelSettings,
  nodeCount: number,
  name: string,
  unneededSeconds = UNNEEDED_SECONDS,
): { figures: FleetFigures; points: AllocationPoint[][] } {
  const tick = s.tickSeconds ?? 15;
  const probe = traces.map((t, i) => nodeService(t, s, `s${i}`, []));
  const warm = probe.reduce((a, x) => a + x.pods.length, 0);
  const nodes = createNodes(
    nodeCount,
    s.gpusPerNode,
    Math.min(nodeCount, staticPoolNodes(warm, s.gpusPerNode)),
  );
  const ms = traces.map((t, i) => nodeService(t, s, `s${i}`, nodes, target));
  const meter: Meter = { nodeSeconds: 0, peak: 0, moves: 0, returned: 0 };
  const endS = Math.max(...ms.map((m) => m.endS));
  for (let t = 0; t < endS; t += tick) {
    for (const m of ms) if (t > 0 && t < m.endS) m.hpaTick(t);
    schedulePending(ms, nodes, 'short-task', s.scoring, s.startupSeconds, t, tick);
    meter.moves += addNodes(ms, nodes, t);
    schedulePending(ms, nodes, 'short-task', s.scoring, s.startupSeconds, t, tick);
    meter.returned += removeNodes(nodes, t, unneededSeconds);
    for (const m of ms) m.record(t);
    const held = nodes.filter((n) => n.pool === 'short-task').length;
    meter.nodeSeconds += held * Math.min(tick, endS - t);
    meter.peak = Math.max(meter.peak, held);
  }
  const figures = ms.map((m, i) =>
    computeFigures(traces[i]!, m.points, { engine: `${name}#${i}`, max: s.max, flapWindowSeconds: 300 }),
  );
  return {
    figures: { ...fleetFigures(name, figures), nodes: nodeFigures(meter, nodeCount, s.gpusPerNode) },
    points: ms.map((m) => m.points),
  };
}

/** Scale-up: unused nodes join the pool (name order) until the Pending pods fit; how many joined. */
function addNodes(groups: readonly { pods: NodePod[] }[], nodes: FleetNode[], t: number): number {
  let pending = groups.reduce((a, g) => a + g.pods.filter((p) => p.node === null).length, 0);
  let added = 0;
  for (const n of nodes) {
    if (pending <= 0) break;
    if (n.pool !== 'unused') continue;
    n.pool = 'short-task';
    n.movedAt = t;
    n.emptySince = t;
    pending -= n.gpus;
    added++;
  }
  return added;
}

/** Scale-down: every pool node empty for at least `unneededSeconds` leaves; how many left. */
function removeNodes(nodes: FleetNode[], t: number, unneededSeconds: number): number {
  let removed = 0;
  for (const n of nodes) {
    if (n.pool !== 'short-task' || n.used > 0 || n.emptySince === null) continue;
    if (t - n.emptySince < unneededSeconds) continue;
    n.pool = 'unused';
    n.movedAt = null;
    removed++;
  }
  return removed;
}
