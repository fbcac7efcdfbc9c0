import type { KubeObject, Resource, SimStore } from '../types.js';

interface PeekingStore {
  sortedKeys(resource: Resource): string[];
  peek(resource: Resource, key: string): KubeObject | undefined;
}

/**
 * All objects of a resource for reading only: `store.scan` when the store has it, else the
 * in-memory store's `sortedKeys`/`peek` (no copies), else `store.list`. The objects may be the
 * stored ones: never change them; copy with `structuredClone` first.
 */
export function readAll(store: SimStore, resource: Resource): readonly KubeObject[] {
  if (typeof store.scan === 'function') return store.scan(resource);
  const s = store as unknown as Partial<PeekingStore>;
  if (typeof s.sortedKeys === 'function' && typeof s.peek === 'function') {
    const out: KubeObject[] = [];
    for (const key of s.sortedKeys.call(store, resource)) {
      const o = s.peek.call(store, resource, key);
      if (o) out.push(o);
    }
    return out;
  }
  return store.list(resource);
}
