/**
 * Node moves and returns of the model's fleet (pure; docs/replay.md, "A fleet of nodes"), by the
 * real rules: a `relabel` decision of the scaling pass (`rules/relabel.ts`, nodes chosen by
 * `chooseUnusedNodes`) moves the named `unused` nodes into `short-task`; a node gpuops moved that
 * has held no pod for `pools.returnAfterSeconds` goes back to `unused` by `returnIdlePools` (the
 * plan's own rule: `pools/return-idle.ts`, with each pool's demand and no return while a scale-up
 * counts on it). Patch mode: a move or return is in the pool at once (the pass writes the label;
 * its pods then take the start-up time).
 */
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { returnIdlePools } from '../plan/index.js';
import type { PoolAssignment } from '../pools/index.js';
import type { AlgorithmState, ScalingDecision } from '../scaling/index.js';
import { nodeInfos, type FleetNode } from './node-fleet.js';

const START = Date.parse('2026-01-01T00:00:00Z');
/** ISO times already written, by seconds from the start (every pass stamps each moved or empty node). */
const stamps = new Map<number, string>();
const iso = (t: number) => {
  let at = stamps.get(t);
  if (at === undefined) {
    if (stamps.size >= 100_000) stamps.clear();
    stamps.set(t, (at = new Date(START + t * 1000).toISOString()));
  }
  return at;
};

/**
 * Moves the nodes of every `relabel` decision into `short-task` at `t` (seconds) and returns
 * their names, in the order decided. @throws Error when a decision names a node not in `unused`
 */
export function moveNodes(nodes: FleetNode[], decisions: readonly ScalingDecision[], t: number): string[] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const moved: string[] = [];
  for (const d of decisions) {
    if (d.action !== 'relabel') continue;
    for (const name of d.nodes) {
      const n = byName.get(name);
      if (n?.pool !== 'unused') throw new Error(`${d.algorithm}: moves ${name}, which is not an unused node`);
      n.pool = 'short-task';
      n.movedAt = t;
      if (n.used === 0) n.emptySince = t;
      moved.push(name);
    }
  }
  return moved;
}

/**
 * The nodes that go back to `unused` at `t` after this pass's `decisions` (the algorithms'
 * resolved specs by name, each pinned to `short-task`), by `returnIdlePools`; they are moved
 * (`pool` `unused`, `movedAt` null) and their names returned, longest empty first.
 */
export function returnNodes(
  nodes: FleetNode[],
  decisions: readonly ScalingDecision[],
  algorithms: ReadonlyMap<string, ResolvedAlgorithm>,
  policy: Policy,
  t: number,
): string[] {
  const pools: PoolAssignment[] = nodes.map((n) => ({
    node: n.name,
    from: n.pool,
    to: n.pool,
    reason: n.pool === 'unused' ? 'Unused' : 'KeepPool',
    message: '',
  }));
  const states = new Map<string, AlgorithmState>();
  for (const [name, algorithm] of algorithms)
    states.set(name, { algorithm, pool: 'short-task', replicas: 0 });
  const moved = new Map<string, string>();
  const emptySince = new Map<string, string>();
  for (const n of nodes) {
    if (n.movedAt !== null) moved.set(n.name, iso(n.movedAt));
    if (n.emptySince !== null) emptySince.set(n.name, iso(n.emptySince));
  }
  const out = returnIdlePools({
    pools,
    nodes: nodeInfos(nodes),
    git: { movedNodes: moved },
    decisions,
    states,
    emptySince,
    policy,
    now: new Date(START + t * 1000),
  });
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const back = out.filter((a) => a.reason === 'ReturnedIdle');
  back.sort((a, b) => (b.emptySeconds ?? 0) - (a.emptySeconds ?? 0) || (a.node < b.node ? -1 : 1));
  for (const a of back) {
    const n = byName.get(a.node)!;
    n.pool = 'unused';
    n.movedAt = null;
  }
  return back.map((a) => a.node);
}
