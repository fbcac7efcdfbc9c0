import { describe, expect, it } from 'vitest';
import type { Taint } from '../cluster/types.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { poolTaintRecordAfter } from './pool-taint-handover.js';

const KEY = 'gpuops.dev/pool';
const pool: Taint = { key: KEY, value: 'long-task', effect: 'NoSchedule' };
const gpu: Taint = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

describe('poolTaintRecordAfter: the nodes carrying gpuops’s entry once a patch-mode pass wrote', () => {
  // [row, the node's taints as the snapshot read them, what the pass wrote (absent: no write or a failed one), recorded]
  const rows: [string, Taint[], boolean | undefined, boolean][] = [
    ['entry read, nothing written (already as wanted)', [gpu, pool], undefined, true],
    ['no entry, nothing written', [gpu], undefined, false],
    ['no entry, set', [gpu], true, true],
    ['entry read, removed', [pool], false, false],
    ['entry read, the removal failed: still there', [pool], undefined, true],
    ['another key only: not gpuops’s', [{ ...gpu, key: 'dedicated' }], undefined, false],
  ];
  for (const [row, taints, wrote, recorded] of rows)
    it(row, () => {
      const written = new Map(wrote === undefined ? [] : [['n', wrote]]);
      expect(poolTaintRecordAfter([nodeInfo('n', { taints })], KEY, written)).toEqual(
        recorded ? { key: KEY, nodes: ['n'] } : null,
      );
    });

  it('sorted by name; a write counts over what the snapshot read', () => {
    const nodes = [nodeInfo('b', { taints: [pool] }), nodeInfo('c'), nodeInfo('a', { taints: [pool] })];
    const written = new Map([
      ['c', true],
      ['b', false],
    ]);
    expect(poolTaintRecordAfter(nodes, KEY, written)).toEqual({ key: KEY, nodes: ['a', 'c'] });
  });
});
