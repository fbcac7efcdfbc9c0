/**
 * `decideInTurn` with a required GPU product (issue 24) over one shared view of capacity: the
 * pool's nodes of a product are filtered once per product set and shared (issue 26: not once per
 * algorithm), yet a node one algorithm moves into the pool is among the next one's nodes, and
 * claims of one algorithm on a shared node leave the next one only the rest.
 */
import { describe, expect, it } from 'vitest';
import { decideInTurn } from '../../src/scaling/decide-in-turn.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import { algorithm, baseInput, node, policyNoWindows } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T4 = { products: ['Tesla-T4'], required: true } as const;

/** An algorithm of `name` with three Ready pods at `utils` on pool long-task, T4 only. */
function t4Input(name: string, utils: number[]): Omit<ScalingInput, 'poolNodes' | 'unusedNodes'> {
  const base = baseInput(utils);
  const { poolNodes: _p, unusedNodes: _u, ...rest } = base;
  return { ...rest, algorithm: algorithm({ name }), products: T4 };
}

describe('decideInTurn with a required product', () => {
  it('a T4 node relabelled for the first algorithm is in the second one’s pool with its room left', () => {
    const capacity = [
      node('lt-a100', 'long-task', 8),
      node('lt-t4', 'long-task', 0, 'Tesla-T4', { allocatableGpus: 1 }),
      node('unused-t4-a', 'unused', 2, 'Tesla-T4'),
      node('unused-t4-z', 'unused', 4, 'Tesla-T4'),
    ];
    const out = decideInTurn(
      [t4Input('a-infer', [95, 95, 95]), t4Input('b-infer', [95, 95, 95])],
      capacity,
      policyNoWindows(),
      NOW,
    );
    const brief = out.map((d) => `${d.action} ${d.replicas.from}→${d.replicas.to} [${d.nodes.join(',')}]`);
    // a-infer moves in the smallest T4 node that fits (unused-t4-a, 2 GPUs) and claims one GPU of
    // it; b-infer scales up onto the other. Were b's pool nodes a copy from before the relabel, it
    // would see no free T4 GPU and move unused-t4-z in as well.
    expect(brief).toEqual(['relabel 3→4 [unused-t4-a]', 'scale-up 3→4 []']);
  });

  it('two algorithms on one T4 node with one free GPU: the first takes it, the second waits', () => {
    const capacity = [node('lt-a100', 'long-task', 8), node('lt-t4', 'long-task', 1, 'Tesla-T4')];
    const out = decideInTurn(
      [t4Input('a-infer', [95, 95, 95]), t4Input('b-infer', [95, 95, 95])],
      capacity,
      policyNoWindows(),
      NOW,
    );
    expect(out.map((d) => `${d.action} ${d.replicas.to}`)).toEqual(['scale-up 4', 'hold 3']);
  });
});
