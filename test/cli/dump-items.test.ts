/**
 * `plan --nodes/--pods` and `validate --nodes` read `kubectl get … -o json` dumps, which a person
 * may have cut down or edited by hand. An item that is no object, has no name or carries a label
 * that is not a string is an error naming the file and the item, never a
 * TypeError from deep inside the pass (`Cannot read properties of null`, `lastIndexOf is not a
 * function`) nor a nameless row in the plan.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readObjectList } from '../../src/compose/cluster-input.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpuops-dump-items-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Writes a List of `items` and reads it as a dump of `kind`. */
const read = (kind: 'Node' | 'Pod', items: unknown[], also: string[] = []) => {
  const file = join(dir, `d${n++}.json`);
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  return { file, result: readObjectList(file, kind, also) };
};

const node = (name: string, labels: Record<string, unknown> = {}) => ({
  kind: 'Node',
  metadata: { name, labels },
});
const pod = (namespace: string, name: string) => ({ kind: 'Pod', metadata: { namespace, name } });

describe('readObjectList: every item is an object with a name', () => {
  it.each<[string, 'Node' | 'Pod', unknown[], string]>([
    ['a null item', 'Node', [node('a'), null], 'items[1]: expected a Node object, got null'],
    ['a list item', 'Node', [[1]], 'items[0]: expected a Node object, got a list'],
    ['no metadata', 'Node', [{ kind: 'Node' }], 'items[0].metadata.name: a Node has a name; none here'],
    ['an empty name', 'Node', [node('')], 'items[0].metadata.name: a Node has a name; none here'],
    [
      'a name that is a number',
      'Pod',
      [{ metadata: { name: 7 } }],
      'items[0].metadata.name: a Pod has a name',
    ],
    [
      'a label that is a number',
      'Node',
      [node('a', { 'nvidia.com/gpu.product': 5 })],
      'items[0].metadata.labels.nvidia.com/gpu.product: a label value is a string, got 5',
    ],
    [
      'labels that are a list',
      'Node',
      [{ metadata: { name: 'a', labels: ['x'] } }],
      'items[0].metadata.labels: a mapping of strings, got a list',
    ],
  ])('%s is an error naming the file and the item', async (_, kind, items, message) => {
    const { file, result } = read(kind, items);
    await expect(result).rejects.toThrow(`${file}: ${message}`);
  });

  it('takes the neighbours: a Pod and a ReplicaSet of one name, an item without kind or labels, an empty label value', async () => {
    const pods = [
      pod('x', 'p'),
      pod('y', 'p'),
      { kind: 'ReplicaSet', metadata: { namespace: 'x', name: 'p' } },
    ];
    await expect(read('Pod', pods, ['ReplicaSet']).result).resolves.toHaveLength(3);
    const nodes = [
      { metadata: { name: 'a' } },
      node('b', { 'nvidia.com/gpu.product': 'Tesla-T4', empty: '' }),
    ];
    await expect(read('Node', nodes).result).resolves.toHaveLength(2);
  });
});

describe('newcomer-4: one object of the right kind (kubectl get node X -o json)', () => {
  const single = (value: unknown, kind: 'Node' | 'Pod', also: string[] = []) => {
    const file = join(dir, `s${n++}.json`);
    writeFileSync(file, JSON.stringify(value));
    return { file, result: readObjectList(file, kind, also) };
  };
  it('a single Node is a dump of that one Node', async () => {
    await expect(single(node('gpu-01'), 'Node').result).resolves.toEqual([node('gpu-01')]);
  });
  it('a single ReplicaSet is taken where ReplicaSets are (pods,replicasets)', async () => {
    const rs = { kind: 'ReplicaSet', metadata: { namespace: 'a', name: 'r' } };
    await expect(single(rs, 'Pod', ['ReplicaSet']).result).resolves.toEqual([rs]);
  });
  it('a single Pod given as --nodes is refused, saying what it got', async () => {
    const { file, result } = single(pod('a', 'p'), 'Node');
    await expect(result).rejects.toThrow(
      `${file}: expected a NodeList (kubectl get nodes -o json) with items, or one Node; got a Pod`,
    );
  });
  it('a single Node without a name is refused at its own field (no `items` in the file)', async () => {
    const { file, result } = single({ kind: 'Node', metadata: {} }, 'Node');
    await expect(result).rejects.toThrow(`${file}: metadata.name: a Node has a name; none here`);
    await expect(result).rejects.not.toThrow('items[');
  });
  it('a single Node’s bad label is named at its own path', async () => {
    const { file, result } = single(node('a', { 'nvidia.com/gpu.product': 5 }), 'Node');
    await expect(result).rejects.toThrow(
      `${file}: metadata.labels.nvidia.com/gpu.product: a label value is a string, got 5`,
    );
  });
  it('a bare JSON list names its items by index alone ([i], no `items`)', async () => {
    const { file, result } = single([node('a'), { kind: 'Node' }], 'Node');
    await expect(result).rejects.toThrow(`${file}: [1].metadata.name: a Node has a name; none here`);
    const wrong = single([node('a'), pod('x', 'p')], 'Node');
    await expect(wrong.result).rejects.toThrow(`${wrong.file}: [1]: expected kind Node, got Pod`);
  });
});
