/**
 * Wording of the demo's event lines that depends on counts or on what changed: a scaling
 * decision (a relabel names the nodes, the pool they leave and the pool they join), "N
 * replica(s)" with plural agreement, and the nodes left out of every pool (said once per change).
 * Pure: no I/O, no clock.
 */
import type { ScalingDecision } from '../scaling/index.js';

/** `1 replica`, `2 replicas` (n ≥ 0, a count of pods). */
export function replicas(n: number): string {
  return `${n} ${n === 1 ? 'replica' : 'replicas'}`;
}

/**
 * One line for a scaling decision of `d.algorithm`, whose pool is `pool` (null: not placed).
 * A relabel moves `d.nodes` from the `unused` pool (the only source of moves, `scaling/types.ts`)
 * into `pool`, and says the replica change or that the count stays (the moved node then serves a
 * Pending replica). Example: `scaling a: relabel: move n1 from unused into short-task, 1 → 2 replicas (…)`.
 */
export function decisionLine(d: ScalingDecision, pool: string | null): string {
  const u = d.utilization === null ? 'no data' : `${d.utilization} %`;
  const tail = ` (${d.reason}, utilisation ${u})`;
  const { from, to } = d.replicas;
  if (d.action === 'hold') return `scaling ${d.algorithm}: hold at ${from}${tail}`;
  const count = from === to ? `${replicas(to)} (unchanged)` : `${from} → ${replicas(to)}`;
  if (d.action === 'relabel' || d.nodes.length > 0) {
    const into = pool === null ? 'its pool' : pool;
    return `scaling ${d.algorithm}: ${d.action}: move ${d.nodes.join(', ')} from unused into ${into}, ${count}${tail}`;
  }
  return `scaling ${d.algorithm}: ${d.action} ${from} → ${to}${tail}`;
}

/**
 * The "left out" lines of a pass, or none when they equal `shown` (the key of the lines last
 * printed). Returns the lines and the new key; the caller keeps the key between passes.
 */
export function leftOutLines(
  left: readonly { node: string; reason: string; message: string }[],
  shown: string,
): { lines: string[]; key: string } {
  const lines = left.map((p) => `left out: ${p.node} (${p.reason}: ${p.message})`);
  const key = lines.join('\n');
  return { lines: key === shown ? [] : lines, key };
}
