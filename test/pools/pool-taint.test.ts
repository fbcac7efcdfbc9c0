/**
 * The pool taint as gpuops's own entry of `Node.spec.taints` (`pools/pool-taint.ts`,
 * `cluster/taints.ts` `withOwnTaint`): the entry of the pool label key follows the node's pool
 * label; every other entry (another manager's) is kept as it is, in its order.
 */
import { describe, expect, it } from 'vitest';
import { withOwnTaint } from '../../src/cluster/taints.js';
import type { NodeInfo, Taint } from '../../src/cluster/types.js';
import type { PolicySpec } from '../../src/definitions/types.js';
import { desiredPoolTaint, poolTaintChanges } from '../../src/pools/pool-taint.js';

const KEY = 'gpuops.dev/pool';
const pools = (enabled = true): PolicySpec['pools'] =>
  ({ labelKey: KEY, taint: { enabled, effect: 'NoSchedule' } }) as PolicySpec['pools'];
const GPU: Taint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
const CA: Taint = { key: 'ToBeDeletedByClusterAutoscaler', value: '1764583200', effect: 'NoSchedule' };
const mine = (value: string, effect: Taint['effect'] = 'NoSchedule'): Taint => ({ key: KEY, value, effect });

describe('withOwnTaint: one key of an atomic list, the others kept', () => {
  it.each<[string, Taint[], Taint | null, Taint[] | null]>([
    ['added after the others', [GPU, CA], mine('short-task'), [GPU, CA, mine('short-task')]],
    [
      'replaced, the others in their order',
      [GPU, mine('test'), CA],
      mine('long-task'),
      [GPU, CA, mine('long-task')],
    ],
    ['the same: nothing to write', [GPU, mine('test')], mine('test'), null],
    ['another effect is a change', [mine('test', 'NoExecute')], mine('test'), [mine('test')]],
    [
      'two entries of the key (a person added one): one left',
      [mine('test'), GPU, mine('x')],
      mine('test'),
      [GPU, mine('test')],
    ],
    ['removed', [GPU, mine('test'), CA], null, [GPU, CA]],
    ['none to remove: nothing to write', [GPU, CA], null, null],
    ['an empty list, none wanted', [], null, null],
  ])('%s', (_, have, want, next) => {
    expect(withOwnTaint(have, KEY, want)).toEqual(next);
  });
});

describe('desiredPoolTaint', () => {
  it.each<[string, Record<string, string>, boolean, Taint | null]>([
    ['a pool label, the option on', { [KEY]: 'short-task' }, true, mine('short-task')],
    ['every pool name', { [KEY]: 'unused' }, true, mine('unused')],
    ['the option off', { [KEY]: 'short-task' }, false, null],
    ['no pool label', { 'kubernetes.io/hostname': 'gpu-1' }, true, null],
    ['a value that names no pool (not gpuops’s)', { [KEY]: 'vision-team' }, true, null],
  ])('%s', (_, labels, enabled, want) => {
    expect(desiredPoolTaint(labels, pools(enabled))).toEqual(want);
  });
});

describe('poolTaintChanges: the nodes whose own entry differs from their label', () => {
  const node = (name: string, pool: string | null, taints: Taint[]): NodeInfo =>
    ({ name, labels: pool ? { [KEY]: pool } : {}, taints }) as unknown as NodeInfo;
  it('sets, moves and removes gpuops’s entry; a node already right, or foreign taints alone, is left', () => {
    const nodes = [
      node('gpu-d', 'short-task', [GPU]),
      node('gpu-a', 'long-task', [GPU, mine('long-task')]),
      node('gpu-c', null, [CA, mine('test')]),
      node('gpu-b', 'test', [mine('unused'), GPU]),
      node('gpu-e', null, [GPU, CA]),
    ];
    expect(poolTaintChanges(nodes, pools())).toEqual([
      { node: 'gpu-b', key: KEY, taint: mine('test') },
      { node: 'gpu-c', key: KEY, taint: null },
      { node: 'gpu-d', key: KEY, taint: mine('short-task') },
    ]);
  });
  it('the option turned off: the entries gpuops set are removed, nothing else', () => {
    const nodes = [node('gpu-a', 'long-task', [GPU, mine('long-task')]), node('gpu-b', 'test', [GPU])];
    expect(poolTaintChanges(nodes, pools(false))).toEqual([{ node: 'gpu-a', key: KEY, taint: null }]);
  });
});
