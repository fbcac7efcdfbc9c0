/**
 * Loading `kubectl get nodes -o json` / `kubectl get pods -A -o json` dumps into the store.
 */
import type { MemoryStore } from './store.js';
import { SimApiError, type KubeObject, type Resource, type SimStore } from './types.js';

/**
 * Items of a List (`{kind: "NodeList", items: [...]}`), a `kind: List`, or an array of objects.
 * @throws Error naming `source` when the input is neither.
 */
export function listItems(input: unknown, source: string): KubeObject[] {
  if (input === undefined || input === null) return [];
  const items = Array.isArray(input) ? input : (input as { items?: unknown }).items;
  if (!Array.isArray(items))
    throw new Error(`${source}: expected a List with "items" or an array of objects`);
  items.forEach((item, i) => {
    const md = (item as KubeObject | null)?.metadata;
    if (!md || typeof md.name !== 'string') throw new Error(`${source}: items[${i}].metadata.name: missing`);
  });
  return items as KubeObject[];
}

/** The result of loading a dump. */
export interface LoadResult {
  loaded: number;
  /** One message per item that could not be loaded or was renamed (the others still load). */
  errors: string[];
}

/**
 * Creates every item in the store under `resource`, keeping uid, creationTimestamp, spec and
 * status as dumped; `resourceVersion` and `managedFields` are dropped (the store assigns its own).
 * Namespaces used by namespaced items are created. One bad item never stops the others.
 */
export function loadObjects(
  store: MemoryStore,
  resource: Resource,
  items: KubeObject[],
  source: string,
): LoadResult {
  const errors: string[] = [];
  const namespaces = new Set<string>();
  let loaded = 0;
  items.forEach((item, i) => {
    const obj = JSON.parse(JSON.stringify(item)) as KubeObject;
    delete obj.metadata.resourceVersion;
    delete obj.metadata.managedFields;
    delete obj.metadata.selfLink;
    try {
      const ns = obj.metadata.namespace;
      if (ns && !namespaces.has(ns)) {
        ensureNamespace(store, ns);
        namespaces.add(ns);
      }
      if (store.get(resource, obj.metadata.namespace, obj.metadata.name)) {
        // A dump cannot hold two objects with one name, but concatenated dumps do: keep the
        // object (it may hold GPUs) under a derived name and a fresh uid, and say so.
        const original = obj.metadata.name;
        let n = 2;
        while (store.get(resource, obj.metadata.namespace, `${original}-${n}`)) n++;
        obj.metadata.name = `${original}-${n}`;
        delete obj.metadata.uid;
        errors.push(
          `${source}: items[${i}] (${original}): duplicate name in namespace "${obj.metadata.namespace ?? ''}"; loaded as "${obj.metadata.name}"`,
        );
      }
      store.createOwned(resource, obj);
      loaded++;
    } catch (err) {
      const msg = err instanceof SimApiError || err instanceof Error ? err.message : String(err);
      errors.push(`${source}: items[${i}] (${obj.metadata.name}): ${msg}`);
    }
  });
  return { loaded, errors };
}

/** Creates the Namespace `name` (phase Active) when it does not exist. */
export function ensureNamespace(store: SimStore, name: string): void {
  if (store.get('namespaces', undefined, name)) return;
  store.create('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
}
