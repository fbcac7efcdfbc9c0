import type { KubeObject, Resource, SimStore } from '../types.js';
import { sameJson } from '../json-equal.js';

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

/**
 * One object for reading only: `store.find` (the stored object, no copy) when the store has it,
 * else `store.get` (a copy); undefined when absent. Never change it; copy it first to write.
 */
export function readOne(
  store: SimStore,
  resource: Resource,
  namespace: string | undefined,
  name: string,
): KubeObject | undefined {
  return typeof store.find === 'function'
    ? store.find(resource, namespace, name)
    : store.get(resource, namespace, name);
}

/**
 * Writes `status` as the status of the stored object `namespace/name` of `resource` when it
 * differs from the stored status (compared as JSON; absent counts as `{}`); nothing when the
 * object is gone or the status is the same. Reads the stored object without copying it
 * ({@link readOne}). @throws SimApiError from `store.update` (a conflict or a deletion meanwhile)
 */
export function writeChangedStatus(
  store: SimStore,
  resource: Resource,
  namespace: string | undefined,
  name: string,
  status: Record<string, unknown>,
): void {
  const fresh = readOne(store, resource, namespace, name);
  if (!fresh || sameJson(fresh.status ?? {}, status)) return;
  store.update(resource, { ...fresh, status });
}
