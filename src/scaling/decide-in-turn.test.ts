import { describe, expect, it } from 'vitest';
import { algorithm, node, pod, policyNoWindows, sample } from '../../test/scaling/support.js';
import { decideInTurn } from './decide-in-turn.js';
import type { NodeCapacity, ProductChoice } from './types.js';

const NOW = new Date('2025-06-01T12:00:00Z');

/** Algorithm `a` on long-task: three Ready pods at 95 % (max 80 %), so it needs a fourth replica. */
function hot(products?: ProductChoice) {
  const pods = [0, 1, 2].map((i) => pod(`a-rs-${i}`, { rs: 'a-rs', algorithm: 'a' }));
  return {
    algorithm: algorithm({ name: 'a', maxReplicas: 20 }),
    pool: 'long-task' as const,
    replicas: 3,
    pods,
    currentReplicaSet: 'a-rs',
    samples: [0, 1, 2].map((i) => sample(`a-rs-${i}`, 95)),
    recent: [],
    ...(products ? { products } : {}),
  };
}

/** Pool long-task: an A100 node with `a100Free` free GPUs, an unlabelled and a T4 node with 8; one unused A100. */
const capacity = (a100Free: number): NodeCapacity[] => [
  node('lt-a100', 'long-task', a100Free, 'A100'),
  node('lt-null', 'long-task', 8, null),
  node('lt-t4', 'long-task', 8, 'T4'),
  node('un-a100', 'unused', 8, 'A100'),
];

describe('decideInTurn: a required GPU product limits the pool nodes a replica may use', () => {
  it.each<[string, ProductChoice | undefined, number, string]>([
    // Only the A100 node counts, and it is full: an unused A100 node moves in.
    ['RequiredProductFullMovesANode', { products: ['A100'], required: true }, 0, 'relabel 4 un-a100'],
    ['RequiredProductWithRoomScalesUp', { products: ['A100'], required: true }, 1, 'scale-up 4 '],
    ['APreferenceUsesEveryPoolNode', { products: ['A100'], required: false }, 0, 'scale-up 4 '],
    ['NoProductKnownUsesEveryPoolNode', undefined, 0, 'scale-up 4 '],
    ['EitherOfTwoRequiredProducts', { products: ['A100', 'T4'], required: true }, 0, 'scale-up 4 '],
  ])('%s', (_name, products, a100Free, want) => {
    const [d] = decideInTurn([hot(products)], capacity(a100Free), policyNoWindows(), NOW);
    expect(`${d!.action} ${d!.replicas.to} ${d!.nodes.join(',')}`).toBe(want);
  });
});

describe('decideInTurn: the caller’s capacity is never changed (copy on write)', () => {
  /** The capacity with every node and its room frozen: a write to one throws. */
  const frozen = (a100Free: number) =>
    Object.freeze(capacity(a100Free).map((n) => Object.freeze({ ...n, free: Object.freeze({ ...n.free }) })));

  it.each<[string, number, string]>([
    // A claim on a pool node, then one on the unused node a relabel moves in.
    ['AClaimOnAPoolNode', 1, 'scale-up 4 '],
    ['ARelabelAndItsClaim', 0, 'relabel 4 un-a100'],
  ])('%s', (_name, a100Free, want) => {
    const caller = frozen(a100Free);
    const before = structuredClone(caller);
    const [d] = decideInTurn([hot({ products: ['A100'], required: true })], caller, policyNoWindows(), NOW);
    expect(`${d!.action} ${d!.replicas.to} ${d!.nodes.join(',')}`).toBe(want);
    expect(caller).toEqual(before);
  });

  it('a node claimed by one algorithm shows the next one its room left, the caller’s node unchanged', () => {
    // Two algorithms needing the A100 node's one free GPU: the first takes it, the second moves
    // the unused A100 node in (its pool's A100 node is full now).
    const b = {
      ...hot({ products: ['A100'], required: true }),
      algorithm: algorithm({ name: 'b', maxReplicas: 20 }),
    };
    const caller = frozen(1);
    const [a, second] = decideInTurn(
      [hot({ products: ['A100'], required: true }), b],
      caller,
      policyNoWindows(),
      NOW,
    );
    expect([a, second].map((d) => `${d!.action} ${d!.nodes.join(',')}`)).toEqual([
      'scale-up ',
      'relabel un-a100',
    ]);
    expect(caller[0]!.freeGpus).toBe(1);
  });
});
