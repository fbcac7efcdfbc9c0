/**
 * The node figures of the engines whose pools are computed, not run (pure; docs/replay.md, "A fleet
 * of nodes"): static, one static pool per service sized to its most pods, held all the time; the
 * ideal, one pool of exactly the nodes its GPUs fill at each instant. Units: seconds in, hours out.
 */
import type { NodeFigures } from './fleet-model.js';
import { idealPoints } from './figures.js';
import { staticPoolNodes } from './node-fleet.js';
import { instantSeconds, type Trace } from './trace.js';

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Node-seconds of the pool(s), their peak, moves and returns, as the run goes. */
export interface Meter {
  nodeSeconds: number;
  peak: number;
  moves: number;
  returned: number;
}

/** The node figures of a meter over a fleet of `fleetNodes` nodes. */
export function nodeFigures(m: Meter, fleetNodes: number, gpusPerNode: number): NodeFigures {
  const hours = m.nodeSeconds / 3600;
  return {
    gpusPerNode,
    fleetNodes,
    poolNodeHours: round(hours),
    poolGpuHours: round(hours * gpusPerNode),
    peakPoolNodes: m.peak,
    nodeMoves: m.moves,
    nodesReturned: m.returned,
  };
}

/** Static's node figures: per service a static pool of ceil(its most pods ÷ GPUs per node) nodes. */
export function staticPoolFigures(traces: readonly Trace[], gpusPerNode: number): NodeFigures {
  const sizes = traces.map((t) =>
    staticPoolNodes(Math.max(0, ...t.instants.map((x) => x.values.length)), gpusPerNode),
  );
  const total = sizes.reduce((a, x) => a + x, 0);
  const endS = Math.max(...traces.map(traceSeconds));
  return nodeFigures({ nodeSeconds: total * endS, peak: total, moves: 0, returned: 0 }, total, gpusPerNode);
}

function traceSeconds(t: Trace): number {
  const last = t.instants.length - 1;
  return last < 0 ? 0 : t.instants[last]!.t - t.instants[0]!.t + instantSeconds(t, last);
}

/**
 * The ideal's node figures: one pool of ceil(Σ the services' ideal GPUs ÷ GPUs per node) nodes
 * at each instant (perfect packing, moved at once); a rise in nodes is a move, a fall a return.
 */
export function idealPoolFigures(traces: readonly Trace[], max: number, gpusPerNode: number): NodeFigures {
  const series = traces.map((t) => idealPoints(t, max));
  const times = [...new Set(series.flatMap((p) => p.map((x) => x.t)))].sort((a, b) => a - b);
  const endS = Math.max(...traces.map(traceSeconds));
  const at = series.map(() => -1);
  const m: Meter = { nodeSeconds: 0, peak: 0, moves: 0, returned: 0 };
  let prev: number | null = null;
  times.forEach((t, k) => {
    let gpus = 0;
    series.forEach((p, i) => {
      while (at[i]! + 1 < p.length && p[at[i]! + 1]!.t <= t) at[i]!++;
      gpus += at[i]! >= 0 ? p[at[i]!]!.allocated : 0;
    });
    const n = staticPoolNodes(gpus, gpusPerNode);
    if (prev !== null) {
      m.moves += Math.max(0, n - prev);
      m.returned += Math.max(0, prev - n);
    }
    prev = n;
    m.peak = Math.max(m.peak, n);
    m.nodeSeconds += n * (Math.min(endS, times[k + 1] ?? endS) - t);
  });
  return nodeFigures(m, m.peak, gpusPerNode);
}
