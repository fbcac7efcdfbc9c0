import { describe, expect, it } from 'vitest';
import type { NodeInfo } from '../cluster/types.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { coverTestProducts, type ProductNeed } from './product-test-nodes.js';
import type { PoolAssignment } from './types.js';

const T4 = 'Tesla-T4';
const A100 = 'NVIDIA-A100-SXM4-80GB';
const t4 = (name: string, gpus: number, o: Partial<NodeInfo> = {}) =>
  nodeInfo(name, { gpuProduct: T4, gpuCapacity: gpus, gpuAllocatable: gpus, ...o });
const decided = (n: NodeInfo, to: PoolAssignment['to'], reason: PoolAssignment['reason'] = 'Unused') => ({
  node: n.name,
  from: n.pool,
  to,
  reason,
  message: 'm',
});
const needT4: ProductNeed = { algorithm: 'serve', products: [T4] };

/** `node to reason` of every assignment after covering `needs`. */
function run(
  nodes: NodeInfo[],
  as: PoolAssignment[],
  needs: ProductNeed[],
  running: string[] = [],
): string[] {
  return coverTestProducts(as, nodes, needs, 'gpuops.dev/pool', running).map(
    (a) => `${a.node} ${a.to} ${a.reason}`,
  );
}

describe('coverTestProducts: a test node of each product a due benchmark names', () => {
  const a100 = nodeInfo('a100-test', { pool: 'test' });
  it.each<[string, NodeInfo[], (ns: NodeInfo[]) => PoolAssignment[], ProductNeed[], string[]]>([
    [
      'TheSmallestIdleNodeOfTheProduct',
      [a100, t4('t4-big', 4), t4('t4-small', 1)],
      ([a, b, c]) => [decided(a!, 'test', 'KeepPool'), decided(b!, 'unused'), decided(c!, 'unused')],
      [needT4],
      ['a100-test test KeepPool', 't4-big unused Unused', 't4-small test TestPool'],
    ],
    [
      'TiesByName',
      [t4('t4-b', 1), t4('t4-a', 1)],
      ([b, a]) => [decided(b!, 'unused'), decided(a!, 'unused')],
      [needT4],
      ['t4-b unused Unused', 't4-a test TestPool'],
    ],
    [
      'CoveredByATestNodeOfTheProductChangesNothing',
      [t4('t4-test', 4, { pool: 'test' }), t4('t4-1', 1)],
      ([a, b]) => [decided(a!, 'test', 'KeepPool'), decided(b!, 'unused')],
      [needT4],
      ['t4-test test KeepPool', 't4-1 unused Unused'],
    ],
    [
      'ASurplusTestNodeOfTheProductStaysBeforeAnotherComes',
      [t4('t4-old', 4, { pool: 'test' }), t4('t4-1', 1)],
      ([a, b]) => [decided(a!, 'unused', 'SurplusTestNode'), decided(b!, 'unused')],
      [needT4],
      ['t4-old test KeepPool', 't4-1 unused Unused'],
    ],
    [
      'OneOfSeveralProductsIsEnough',
      [a100, t4('t4-1', 1)],
      ([a, b]) => [decided(a!, 'test', 'KeepPool'), decided(b!, 'unused')],
      [{ algorithm: 'train', products: [A100, T4] }],
      ['a100-test test KeepPool', 't4-1 unused Unused'],
    ],
    [
      'NeverABusySharedOrTaintedNode',
      [
        t4('t4-busy', 1, { managedPods: 1 }),
        t4('t4-shared', 1, {
          labels: { 'nvidia.com/gpu.replicas': '4', 'nvidia.com/gpu.sharing-strategy': 'time-slicing' },
        }),
        t4('t4-running', 1),
        t4('t4-notready', 1, { ready: false }),
      ],
      (ns) => ns.map((n) => decided(n, 'unused')),
      [needT4],
      [
        't4-busy unused Unused',
        't4-shared unused Unused',
        't4-running unused Unused',
        't4-notready unused Unused',
      ],
    ],
    ['NoNeedNoChange', [t4('t4-1', 1)], ([a]) => [decided(a!, 'unused')], [], ['t4-1 unused Unused']],
  ])('%s', (_name, nodes, as, needs, want) => {
    expect(run(nodes, as(nodes), needs, ['t4-running'])).toEqual(want);
  });

  it('says which algorithm the node is for', () => {
    const nodes = [t4('t4-1', 1)];
    const [a] = coverTestProducts([decided(nodes[0]!, 'unused')], nodes, [needT4], 'gpuops.dev/pool');
    expect(a!.message).toBe(
      'becomes test for Tesla-T4: serve names it (spec.gpu.product) and its benchmark is due',
    );
  });
});
