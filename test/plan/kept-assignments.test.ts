/**
 * The pool assignments a reconciler keeps between passes (`keptAssignments` in
 * `plan/kept-steps.ts`): the same answer while the nodes are the same objects and the policy's
 * pools, the running benchmarks and the product needs are equal; a change to any one of them
 * gives the answer `poolAssignments` gives afresh. Each case changes one of them and checks that
 * the kept answer would have been wrong (the fresh one differs from the first pass's).
 */
import { describe, expect, it } from 'vitest';
import { poolAssignments, type AssignmentsInput } from '../../src/plan/assignments.js';
import { createKeptSteps, keptAssignments } from '../../src/plan/kept-steps.js';
import { policy } from '../scaling/support.js';
import { nodeInfo } from '../support/node-info.js';

const POOLS = policy().spec.pools;
const LABEL = POOLS.labelKey;
const inPool = (name: string, pool: 'test' | 'unused', over = {}) =>
  nodeInfo(name, { pool, labels: { [LABEL]: pool }, ...over });

/** Two idle test nodes (one is surplus at `test.size` 1), an unlabelled A100 and an unused T4. */
const NODES = [
  inPool('a', 'test'),
  nodeInfo('b'),
  inPool('c', 'unused', { gpuProduct: 'Tesla-T4' }),
  inPool('d', 'test'),
];
/** An unused H100 node with 4 GPUs (fewer than the T4's 8: a need of either product takes it first). */
const H100 = inPool('e', 'unused', { gpuProduct: 'NVIDIA-H100', gpuCapacity: 4, gpuAllocatable: 4 });
const BASE_POOLS = { ...POOLS, test: { ...POOLS.test, size: 1, perGPUProduct: false } };

/** The first pass's input: the same node and pools objects each call (as a reconciler's cache gives them). */
function base(): AssignmentsInput {
  return { nodes: [...NODES], pools: BASE_POOLS, runningBenchmarks: [], productNeeds: [] };
}

const brief = (out: readonly { node: string; to: string | null; reason: string }[]) =>
  out.map((a) => `${a.node}:${a.to}:${a.reason}`);

describe('keptAssignments', () => {
  it('is the same answer while its input stays, also given again in new arrays', () => {
    const kept = keptAssignments(createKeptSteps());
    const first = base();
    const out = kept(first);
    expect(brief(out)).toEqual(brief(poolAssignments(first)));
    expect(brief(out)).toEqual([
      'a:test:KeepPool',
      'b:unused:Unused',
      'c:unused:KeepPool',
      'd:unused:SurplusTestNode',
    ]);
    expect(kept({ ...first, nodes: [...first.nodes], runningBenchmarks: [], productNeeds: [] })).toBe(out);
  });

  it('keeps a copy of the input: a caller that changes its arrays afterwards gets a fresh answer', () => {
    const kept = keptAssignments(createKeptSteps());
    const first = base();
    const running: string[] = [];
    const out = kept({ ...first, runningBenchmarks: running });
    running.push('d');
    const again = kept({ ...first, runningBenchmarks: running });
    expect(again).not.toBe(out);
    expect(brief(again)).toEqual(brief(poolAssignments({ ...first, runningBenchmarks: ['d'] })));
  });

  it('hands out a frozen answer: a caller cannot change what the next pass gets', () => {
    const out = keptAssignments(createKeptSteps())(base());
    expect(Object.isFrozen(out) && out.every((a) => Object.isFrozen(a))).toBe(true);
  });

  const need = (algorithm: string, ...products: string[]) => ({ algorithm, products });
  const same = (i: AssignmentsInput) => i;
  const withH100 = (i: AssignmentsInput) => ({ ...i, nodes: [...i.nodes, H100] });
  it.each<[string, (i: AssignmentsInput) => AssignmentsInput, (i: AssignmentsInput) => AssignmentsInput]>([
    // A node object the cache replaced (here: NotReady now): assigned again.
    ['nodes', same, (i) => ({ ...i, nodes: [inPool('a', 'test', { ready: false }), ...i.nodes.slice(1)] })],
    ['pools', same, (i) => ({ ...i, pools: { ...i.pools, test: { ...i.pools.test, size: 2 } } })],
    ['runningBenchmarks', same, (i) => ({ ...i, runningBenchmarks: ['d'] })],
    ['productNeeds (one more)', same, (i) => ({ ...i, productNeeds: [need('t4-serve', 'Tesla-T4')] })],
    [
      'productNeeds (products)',
      (i) => ({ ...i, productNeeds: [need('t4-serve', 'NVIDIA-H100')] }),
      (i) => ({ ...i, productNeeds: [need('t4-serve', 'Tesla-T4')] }),
    ],
    [
      // Needs are met in name order, and a node's message names the need's algorithm: x's (T4 or
      // H100) takes the H100 node (fewest GPUs), then y's the T4 one; with x named z, y's comes
      // first and the T4 node meets both.
      'productNeeds (algorithm)',
      (i) => ({
        ...withH100(i),
        productNeeds: [need('x', 'Tesla-T4', 'NVIDIA-H100'), need('y', 'Tesla-T4')],
      }),
      (i) => ({
        ...withH100(i),
        productNeeds: [need('z', 'Tesla-T4', 'NVIDIA-H100'), need('y', 'Tesla-T4')],
      }),
    ],
  ])('a changed %s gives the fresh answer', (_key, start, change) => {
    const kept = keptAssignments(createKeptSteps());
    const first = start(base());
    const before = kept(first);
    expect(before).toEqual(poolAssignments(first));
    const changed = change(base());
    const fresh = poolAssignments(changed);
    expect(fresh).not.toEqual(before);
    expect(kept(changed)).toEqual(fresh);
  });
});
