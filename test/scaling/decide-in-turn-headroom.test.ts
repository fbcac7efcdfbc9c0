/**
 * Headroom shared across a pool (issue 25 item 3): `decideInTurn` sizes each headroom-sized
 * algorithm with its share of the spare of its pool's summed load, √ of the sum, not the sum of √;
 * an algorithm alone in its pool, or in another pool, is sized as before.
 */
import { describe, expect, it } from 'vitest';
import { decideInTurn, poolLoads } from '../../src/scaling/decide-in-turn.js';
import type { NodeCapacity, ScalingInput } from '../../src/scaling/types.js';
import type { Pool } from '../../src/definitions/types.js';
import { algorithm, node, pod, policyNoWindows, sample } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const POLICY = policyNoWindows({ sizing: 'headroom', headroomFactor: 1 });

/** Algorithm `name` on `pool` with Ready pods at `utils` (one GPU each). */
function alg(name: string, pool: Pool, utils: number[]): Omit<ScalingInput, 'poolNodes' | 'unusedNodes'> {
  const pods = utils.map((_, i) => pod(`${name}-rs-${i}`, { rs: `${name}-rs`, algorithm: name }));
  return {
    algorithm: algorithm({ name, maxReplicas: 20 }),
    pool,
    replicas: utils.length,
    pods,
    currentReplicaSet: `${name}-rs`,
    samples: utils.map((u, i) => sample(`${name}-rs-${i}`, u)),
    recent: [],
  };
}
const CAPACITY: NodeCapacity[] = [node('lt-1', 'long-task', 8), node('st-1', 'short-task', 8)];
const by = (out: ReturnType<typeof decideInTurn>) =>
  Object.fromEntries(out.map((d) => [d.algorithm, `${d.action} ${d.replicas.to}`]));

describe('decideInTurn with headroom shared across a pool', () => {
  it('two algorithms in one pool carry the spare of their summed load', () => {
    // Each 3 × 50 % = 1.5 GPUs. Alone: (1.5 + √1.5) / 0.8 = 3.4 → 4. Together (3 GPUs): each
    // carries 1.5/3 of √3 = 0.87, (1.5 + 0.87) / 0.8 = 2.96 → 3: they hold.
    const alone = decideInTurn([alg('a', 'long-task', [50, 50, 50])], CAPACITY, POLICY, NOW);
    expect(by(alone)).toEqual({ a: 'scale-up 4' });
    const shared = decideInTurn(
      [alg('a', 'long-task', [50, 50, 50]), alg('b', 'long-task', [50, 50, 50])],
      CAPACITY,
      POLICY,
      NOW,
    );
    expect(by(shared)).toEqual({ a: 'hold 3', b: 'hold 3' });
    expect(shared[0]!.message).toContain("its 1.5/3 share of pool long-task's 1×√3 headroom");
  });

  it('an algorithm of another pool shares nothing', () => {
    const out = decideInTurn(
      [alg('a', 'long-task', [50, 50, 50]), alg('b', 'short-task', [50, 50, 50])],
      CAPACITY,
      POLICY,
      NOW,
    );
    expect(by(out)).toEqual({ a: 'scale-up 4', b: 'scale-up 4' });
  });

  it('each keeps its own min and max replicas', () => {
    const a = { ...alg('a', 'long-task', [0, 0, 0]), algorithm: algorithm({ name: 'a', minReplicas: 3 }) };
    const b = { ...alg('b', 'long-task', [95, 95, 95]), algorithm: algorithm({ name: 'b', maxReplicas: 3 }) };
    expect(by(decideInTurn([a, b], CAPACITY, POLICY, NOW))).toEqual({ a: 'hold 3', b: 'hold 3' });
  });

  it('other sizings are not shared', () => {
    expect(poolLoads([alg('a', 'long-task', [50])]).get('long-task')).toBe(0.5);
    const step = policyNoWindows({ sizing: 'step' });
    const out = decideInTurn(
      [alg('a', 'long-task', [50, 50, 50]), alg('b', 'long-task', [50, 50, 50])],
      CAPACITY,
      step,
      NOW,
    );
    expect(by(out)).toEqual({ a: 'hold 3', b: 'hold 3' });
    expect(out[0]!.message).not.toContain('share');
  });

  it('poolLoads sums the sampled load per pool; an algorithm not placed has none', () => {
    const loads = poolLoads([
      alg('a', 'long-task', [50, 50]),
      alg('b', 'long-task', [20]),
      alg('c', 'short-task', [100]),
      { ...alg('d', 'long-task', [90]), pool: null },
    ]);
    expect([...loads].sort()).toEqual([
      ['long-task', 1.2],
      ['short-task', 1],
    ]);
  });
});
