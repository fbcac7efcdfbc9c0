/**
 * In-memory object store of the simulated API server (implements {@link SimStore}).
 *
 * One global resourceVersion counter, bumped by every write (as etcd's revision is). Objects are
 * kept per resource, keyed `namespace/name`, and listed in key order as the real API server lists
 * them (so `limit`/`continue` paging is stable). Objects handed out are deep copies.
 */
import { randomUUID } from 'node:crypto';
import { resourceInfo } from './resources.js';
import { admitPod } from './quota.js';
import {
  SimApiError,
  conflictError,
  type KubeObject,
  type Resource,
  type SimStore,
  type WatchEvent,
} from './types.js';
import { sameJson } from './json-equal.js';

/** Storage key of an object: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Deep copy of a JSON object (faster than structuredClone for API objects). */
function clone<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

interface Table {
  objects: Map<string, KubeObject>;
  /** Keys in sorted order; rebuilt lazily after a create or delete. */
  sorted: string[] | undefined;
}

/** The in-memory store. `now` gives creation and deletion timestamps (the simulated clock). */
export class MemoryStore implements SimStore {
  private readonly tables = new Map<Resource, Table>();
  private readonly listeners = new Set<(event: WatchEvent) => void>();
  private readonly rawListeners = new Set<(event: WatchEvent, previous?: KubeObject) => void>();
  private revision = 0;

  constructor(private readonly now: () => Date = () => new Date()) {}

  private table(resource: Resource): Table {
    let table = this.tables.get(resource);
    if (!table) {
      table = { objects: new Map(), sorted: undefined };
      this.tables.set(resource, table);
    }
    return table;
  }

  /** Stored keys of a resource in list order (sorted). Internal: used by paging. */
  sortedKeys(resource: Resource): string[] {
    const table = this.table(resource);
    if (!table.sorted) table.sorted = [...table.objects.keys()].sort();
    return table.sorted;
  }

  /**
   * The stored object itself (no copy) — for read-only use by the REST layer, which only
   * serialises it. Callers must not mutate it.
   */
  peek(resource: Resource, key: string): KubeObject | undefined {
    return this.table(resource).objects.get(key);
  }

  /** Number of stored objects of a resource. */
  count(resource: Resource): number {
    return this.table(resource).objects.size;
  }

  list(resource: Resource, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const key of this.sortedKeys(resource)) {
      const obj = this.table(resource).objects.get(key)!;
      if (namespace === undefined || obj.metadata.namespace === namespace) out.push(clone(obj));
    }
    return out;
  }

  /**
   * The stored objects themselves in `list` order, without copying (`SimStore.scan`): for readers
   * of the whole cluster after every tick (the replay, the controllers). Never change them.
   */
  scan(resource: Resource, namespace?: string): readonly KubeObject[] {
    const table = this.table(resource);
    const out: KubeObject[] = [];
    for (const key of this.sortedKeys(resource)) {
      const obj = table.objects.get(key)!;
      if (namespace === undefined || obj.metadata.namespace === namespace) out.push(obj);
    }
    return out;
  }

  /** The stored object itself, without copying (`SimStore.find`): read it, never change it. */
  find(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.table(resource).objects.get(this.keyOf(resource, namespace, name));
  }

  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const obj = this.table(resource).objects.get(this.keyOf(resource, namespace, name));
    return obj ? clone(obj) : undefined;
  }

  /**
   * Creates an object through admission: a Pod that would exceed a ResourceQuota of its namespace
   * is refused (`admitPod`, 403 Forbidden), whoever creates it (a client, a controller).
   */
  create(resource: Resource, obj: KubeObject): KubeObject {
    if (resource === 'pods') admitPod(this, { ...obj, metadata: { namespace: 'default', ...obj.metadata } });
    return clone(this.createOwned(resource, clone(obj)));
  }

  /**
   * `create` without copies: the store takes `obj` itself and returns the stored object. For
   * callers that built `obj` for the store and never touch it again (loading dumps).
   */
  createOwned(resource: Resource, obj: KubeObject): KubeObject {
    const stored = this.prepareCreate(resource, obj, true);
    const table = this.table(resource);
    const key = this.keyOf(resource, stored.metadata.namespace, stored.metadata.name);
    if (table.objects.has(key)) {
      throw new SimApiError(409, 'AlreadyExists', `${resource} "${stored.metadata.name}" already exists`);
    }
    stored.metadata.resourceVersion = this.bump();
    table.objects.set(key, stored);
    table.sorted = undefined;
    this.emit({ type: 'ADDED', resource, object: stored });
    return stored;
  }

  /**
   * Fills what the API server assigns on create (uid, creationTimestamp, generation, namespace
   * default) without storing. Validates the name. @throws SimApiError 422 Invalid
   */
  prepareCreate(resource: Resource, obj: KubeObject, inPlace = false): KubeObject {
    const info = resourceInfo(resource);
    const stored = inPlace ? obj : clone(obj);
    stored.apiVersion = info.group ? `${info.group}/${info.version}` : info.version;
    stored.kind = info.kind;
    stored.metadata = { ...(stored.metadata ?? {}) } as KubeObject['metadata'];
    const name = stored.metadata.name;
    if (!name) throw new SimApiError(422, 'Invalid', `${info.kind}: metadata.name: Required value`);
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
      throw new SimApiError(
        422,
        'Invalid',
        `${info.kind} "${name}": metadata.name: Invalid value: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
      );
    }
    if (info.namespaced) stored.metadata.namespace = stored.metadata.namespace || 'default';
    else delete stored.metadata.namespace;
    stored.metadata.uid = stored.metadata.uid || randomUUID();
    stored.metadata.creationTimestamp = stored.metadata.creationTimestamp || this.timestamp();
    if (stored.spec !== undefined || info.statusSubresource) stored.metadata.generation = 1;
    delete stored.metadata.resourceVersion;
    return stored;
  }

  update(resource: Resource, obj: KubeObject): KubeObject {
    const table = this.table(resource);
    const key = this.keyOf(resource, obj.metadata?.namespace, obj.metadata?.name);
    const old = table.objects.get(key);
    if (!old) throw new SimApiError(404, 'NotFound', `${resource} "${obj.metadata?.name}" not found`);
    const rv = obj.metadata.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion) {
      throw conflictError(resource, obj.metadata.name);
    }
    const stored = clone(obj);
    const info = resourceInfo(resource);
    stored.apiVersion = old.apiVersion;
    stored.kind = old.kind;
    stored.metadata.uid = old.metadata.uid;
    stored.metadata.creationTimestamp = old.metadata.creationTimestamp;
    if (info.namespaced) stored.metadata.namespace = old.metadata.namespace;
    const oldGen = old.metadata.generation;
    if (oldGen !== undefined) {
      const changed = !sameJson(old.spec ?? null, stored.spec ?? null);
      stored.metadata.generation = changed ? oldGen + 1 : oldGen;
    }
    if (
      sameJson(
        { ...stored, metadata: { ...stored.metadata, resourceVersion: '' } },
        { ...old, metadata: { ...old.metadata, resourceVersion: '' } },
      )
    ) {
      // A no-op write does not bump the resourceVersion nor notify watchers (as the API server).
      return clone(old);
    }
    stored.metadata.resourceVersion = this.bump();
    table.objects.set(key, stored);
    this.emit({ type: 'MODIFIED', resource, object: stored }, old);
    return clone(stored);
  }

  delete(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    const table = this.table(resource);
    const key = this.keyOf(resource, namespace, name);
    const old = table.objects.get(key);
    if (!old) return undefined;
    table.objects.delete(key);
    table.sorted = undefined;
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: this.bump() } };
    this.emit({ type: 'DELETED', resource, object: gone });
    return clone(gone);
  }

  subscribe(listener: (event: WatchEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  resourceVersion(): string {
    return String(this.revision);
  }

  private keyOf(resource: Resource, namespace: string | undefined, name: string): string {
    const info = resourceInfo(resource);
    return objectKey(info.namespaced ? namespace || 'default' : undefined, name);
  }

  private bump(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  /**
   * Like `subscribe`, but the listener gets the stored object itself, not a copy, and for MODIFIED
   * the previous version: for listeners inside the API server (watch, garbage collector) that
   * only read them. Must not mutate them.
   */
  subscribeRaw(listener: (event: WatchEvent, previous?: KubeObject) => void): () => void {
    this.rawListeners.add(listener);
    return () => this.rawListeners.delete(listener);
  }

  private emit(event: WatchEvent, previous?: KubeObject): void {
    for (const listener of [...this.rawListeners]) listener(event, previous);
    if (this.listeners.size === 0) return;
    const copy = { ...event, object: clone(event.object) };
    for (const listener of [...this.listeners]) {
      try {
        listener(copy);
      } catch {
        // A failing watcher never breaks a write.
      }
    }
  }
}
