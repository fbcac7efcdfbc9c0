/**
 * `MemoryStore.scan`: the stored objects without copies, which the replay reads after every tick
 * and the controllers on every pass, must be what `list` copies — same objects, same order, same
 * namespace filter — after creates, updates and deletes.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/sim/store.js';
import { readOne, writeChangedStatus } from '../../src/sim/controllers/read.js';
import type { KubeObject, SimStore } from '../../src/sim/types.js';

const pod = (namespace: string, name: string, node?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace, name, labels: { app: name } },
  spec: { containers: [{ name: 'c', image: 'i' }], ...(node ? { nodeName: node } : {}) },
});

function filled(): MemoryStore {
  const store = new MemoryStore(() => new Date('2026-01-01T00:00:00Z'));
  for (const [ns, name] of [
    ['b', 'p2'],
    ['a', 'p9'],
    ['b', 'p1'],
    ['a', 'p10'],
  ] as const)
    store.create('pods', pod(ns, name));
  store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n2' } });
  store.create('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
  return store;
}

describe('MemoryStore.scan', () => {
  it.each([
    ['pods', undefined],
    ['pods', 'a'],
    ['pods', 'b'],
    ['pods', 'none'],
    ['nodes', undefined],
    ['deployments', undefined],
  ] as const)('%s in %s: the objects list copies, in list order', (resource, namespace) => {
    const store = filled();
    expect(store.scan(resource, namespace)).toEqual(store.list(resource, namespace));
  });

  it('follows creates, updates and deletes as list does, handing out the stored objects', () => {
    const store = filled();
    const before = store.scan('pods');
    expect(before.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toEqual([
      'a/p10',
      'a/p9',
      'b/p1',
      'b/p2',
    ]);
    store.create('pods', pod('a', 'p0'));
    store.delete('pods', 'b', 'p1');
    const bound = store.get('pods', 'a', 'p9')!;
    store.update('pods', { ...bound, spec: { ...bound.spec, nodeName: 'n1' } });
    const after = store.scan('pods');
    expect(after).toEqual(store.list('pods'));
    expect(after.map((p) => p.metadata.name)).toEqual(['p0', 'p10', 'p9', 'p2']);
    expect(after.find((p) => p.metadata.name === 'p9')!.spec!.nodeName).toBe('n1');
    // Not copies: two scans give the same stored object (list gives a new copy each time).
    expect(store.scan('pods', 'b')[0]).toBe(store.scan('pods', 'b')[0]);
    expect(store.list('pods', 'b')[0]).not.toBe(store.list('pods', 'b')[0]);
  });
});

describe('MemoryStore.find and readOne', () => {
  it('hands the stored object get copies (namespace defaulted as get does), undefined when absent', () => {
    const store = filled();
    const p9 = store.find('pods', 'a', 'p9')!;
    expect(p9).toEqual(store.get('pods', 'a', 'p9'));
    expect(p9).toBe(store.scan('pods', 'a').find((p) => p.metadata.name === 'p9'));
    expect(store.find('nodes', undefined, 'n1')).toBe(store.scan('nodes')[0]);
    expect(store.find('nodes', 'ignored', 'n1')).toBe(store.scan('nodes')[0]);
    expect(store.find('pods', 'b', 'p9')).toBeUndefined();
    expect(readOne(store, 'pods', 'a', 'p9')).toBe(p9);
  });

  it('readOne falls back to get on a store without find', () => {
    const inner = filled();
    const store: SimStore = {
      list: (r, ns) => inner.list(r, ns),
      get: (r, ns, name) => inner.get(r, ns, name),
      create: (r, o) => inner.create(r, o),
      update: (r, o) => inner.update(r, o),
      delete: (r, ns, name) => inner.delete(r, ns, name),
      subscribe: (l) => inner.subscribe(l),
      resourceVersion: () => inner.resourceVersion(),
    };
    expect(readOne(store, 'pods', 'a', 'p9')).toEqual(inner.get('pods', 'a', 'p9'));
    expect(readOne(store, 'pods', 'a', 'p9')).not.toBe(inner.find('pods', 'a', 'p9'));
  });
});

describe('writeChangedStatus', () => {
  it('writes a status that differs, as a new object, and leaves a same one unwritten', () => {
    const store = filled();
    const stored = store.find('pods', 'a', 'p9')!;
    writeChangedStatus(store, 'pods', 'a', 'p9', { phase: 'Running' });
    const written = store.find('pods', 'a', 'p9')!;
    expect(written.status).toEqual({ phase: 'Running' });
    expect(written.spec).toEqual(stored.spec);
    expect(stored.status).toBeUndefined(); // the object read was not changed
    const version = store.resourceVersion();
    writeChangedStatus(store, 'pods', 'a', 'p9', { phase: 'Running' });
    expect(store.resourceVersion()).toBe(version);
    expect(store.find('pods', 'a', 'p9')).toBe(written);
    writeChangedStatus(store, 'pods', 'a', 'gone', { phase: 'Running' });
    expect(store.resourceVersion()).toBe(version);
  });
});
