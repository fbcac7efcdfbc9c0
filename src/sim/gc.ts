/**
 * Garbage collection by `ownerReferences`, as the Kubernetes garbage collector does it
 * (https://kubernetes.io/docs/concepts/architecture/garbage-collection/): when an owner is deleted,
 * its dependents are deleted too (Background/Foreground propagation; simulated as an immediate
 * cascade), or lose the reference (Orphan). A dependent with another live owner is kept.
 */
import { RESOURCES } from './resources.js';
import type { MemoryStore } from './store.js';
import type { KubeObject, Resource } from './types.js';

/** How dependents of a deleted owner are treated (`DeleteOptions.propagationPolicy`). */
export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

interface Ref {
  resource: Resource;
  namespace: string | undefined;
  name: string;
}

const refKey = (r: Ref): string => `${r.resource}/${r.namespace ?? ''}/${r.name}`;

/**
 * The collector. Subscribes to the store at construction (create it before loading objects): it
 * keeps an index owner uid → dependents, and queues every deletion so `run()` cascades it — also
 * for deletions that did not come through the REST layer (a controller deleting a finished Job).
 */
export class GarbageCollector {
  private readonly dependents = new Map<string, Map<string, Ref>>();
  private readonly ownersOf = new Map<string, string[]>();
  private pending: { uid: string; policy: PropagationPolicy }[] = [];

  constructor(private readonly store: MemoryStore) {
    store.subscribeRaw((e) => {
      const ref: Ref = {
        resource: e.resource,
        namespace: e.object.metadata.namespace,
        name: e.object.metadata.name,
      };
      this.unindex(ref);
      if (e.type === 'DELETED') {
        const uid = e.object.metadata.uid;
        if (uid) this.pending.push({ uid, policy: 'Background' });
      } else {
        const uids = (e.object.metadata.ownerReferences ?? []).map((r) => r.uid);
        if (uids.length > 0) this.index(ref, uids);
      }
    });
  }

  private index(ref: Ref, uids: string[]): void {
    const key = refKey(ref);
    this.ownersOf.set(key, uids);
    for (const uid of uids) {
      let deps = this.dependents.get(uid);
      if (!deps) this.dependents.set(uid, (deps = new Map()));
      deps.set(key, ref);
    }
  }

  private unindex(ref: Ref): void {
    const key = refKey(ref);
    for (const uid of this.ownersOf.get(key) ?? []) {
      const deps = this.dependents.get(uid);
      deps?.delete(key);
      if (deps?.size === 0) this.dependents.delete(uid);
    }
    this.ownersOf.delete(key);
  }

  /** Sets how the dependents of a just-deleted owner are treated (default Background). */
  setPolicy(uid: string | undefined, policy: PropagationPolicy): void {
    for (const p of this.pending) if (p.uid === uid) p.policy = policy;
  }

  /** Cascades every pending deletion. Returns the number of dependents deleted. */
  run(): number {
    let deleted = 0;
    while (this.pending.length > 0) {
      const { uid, policy } = this.pending.shift()!;
      const deps = [...(this.dependents.get(uid)?.values() ?? [])];
      for (const ref of deps) {
        const obj = this.store.get(ref.resource, ref.namespace, ref.name);
        if (!obj) continue;
        const refs = obj.metadata.ownerReferences ?? [];
        if (policy === 'Orphan') {
          obj.metadata.ownerReferences = refs.filter((r) => r.uid !== uid);
          if (obj.metadata.ownerReferences.length === 0) delete obj.metadata.ownerReferences;
          delete obj.metadata.resourceVersion;
          this.store.update(ref.resource, obj);
          continue;
        }
        if (refs.some((r) => r.uid !== uid && this.ownerExists(obj, r))) continue;
        if (this.store.delete(ref.resource, ref.namespace, ref.name)) deleted++;
      }
    }
    return deleted;
  }

  private ownerExists(dependent: KubeObject, ref: { kind: string; name: string; uid: string }): boolean {
    const info = RESOURCES.find((r) => r.kind === ref.kind);
    if (!info) return false;
    const owner = this.store.get(
      info.resource,
      info.namespaced ? dependent.metadata.namespace : undefined,
      ref.name,
    );
    return owner?.metadata.uid === ref.uid;
  }
}
