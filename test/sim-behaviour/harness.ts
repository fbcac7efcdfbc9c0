/**
 * Test harness for the simulated behaviour: the core's in-memory store with a hand-driven clock,
 * and a runner that repeats controller passes until the store stops changing (as the simulated
 * API server does after writes and ticks).
 */
import { MemoryStore } from '../../src/sim/store.js';
import type { KubeObject, Resource, SimController, SimStore, WatchEvent } from '../../src/sim/types.js';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The core's store, plus `scan` handing out deep-frozen objects: a controller that changes an
 * object it only read throws (ES modules are strict), so the tests prove the no-mutation rule.
 */
class FrozenScanStore implements SimStore {
  constructor(private readonly inner: MemoryStore) {}
  list(resource: Resource, namespace?: string): KubeObject[] {
    return this.inner.list(resource, namespace);
  }
  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.inner.get(resource, namespace, name);
  }
  create(resource: Resource, obj: KubeObject): KubeObject {
    return this.inner.create(resource, obj);
  }
  update(resource: Resource, obj: KubeObject): KubeObject {
    return this.inner.update(resource, obj);
  }
  delete(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.inner.delete(resource, namespace, name);
  }
  subscribe(listener: (event: WatchEvent) => void): () => void {
    return this.inner.subscribe(listener);
  }
  resourceVersion(): string {
    return this.inner.resourceVersion();
  }
  scan(resource: Resource): readonly KubeObject[] {
    return deepFreeze(this.inner.list(resource));
  }
  find(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined {
    return deepFreeze(this.inner.get(resource, namespace, name));
  }
}

/** A store plus a manual clock; `advance(s)` moves time and runs the controllers. */
export class Harness {
  nowMs: number;
  readonly store: SimStore;

  /** `controllers`: e.g. `defaultControllers({ garbageCollection: true })` (the store here has no collector of its own). */
  constructor(
    readonly controllers: SimController[],
    start = '2026-12-01T10:00:00Z',
  ) {
    this.nowMs = Date.parse(start);
    this.store = new FrozenScanStore(new MemoryStore(() => this.now()));
  }

  now(): Date {
    return new Date(this.nowMs);
  }

  /** Runs passes until the resourceVersion is stable. @throws Error after 100 passes (a controller that never settles). */
  settle(): void {
    for (let i = 0; i < 100; i++) {
      const before = this.store.resourceVersion();
      for (const c of this.controllers) c.reconcile(this.store, this.now());
      if (this.store.resourceVersion() === before) return;
    }
    throw new Error('controllers did not settle in 100 passes');
  }

  advance(seconds: number): void {
    this.nowMs += seconds * 1000;
    this.settle();
  }

  /** Creates objects, then settles. */
  apply(resource: Resource, ...objs: KubeObject[]): void {
    for (const o of objs) this.store.create(resource, o);
    this.settle();
  }

  pod(namespace: string, name: string): KubeObject {
    const p = this.store.get('pods', namespace, name);
    if (!p) throw new Error(`pod ${namespace}/${name} not found`);
    return p;
  }
}

/** A Ready GPU node with the GPU taint, `gpus` allocatable and `labels`. */
export function gpuNode(
  name: string,
  gpus: number,
  labels: Record<string, string> = {},
  extra: { unschedulable?: boolean; ready?: 'True' | 'False' | 'Unknown'; taints?: unknown[] } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'nvidia.com/gpu.count': String(gpus), ...labels },
    },
    spec: {
      taints: extra.taints ?? [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }],
      ...(extra.unschedulable ? { unschedulable: true } : {}),
    },
    status: {
      capacity: { 'nvidia.com/gpu': String(gpus) },
      allocatable: { 'nvidia.com/gpu': String(gpus) },
      conditions: [{ type: 'Ready', status: extra.ready ?? 'True' }],
      addresses: [{ type: 'InternalIP', address: '192.0.2.10' }],
    },
  };
}

/** The toleration of the NVIDIA GPU taint. */
export const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

/** A pod spec with one container requesting `gpus` GPUs. */
export function gpuPodSpec(gpus: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    containers: [
      {
        name: 'main',
        image: 'registry.example.com/ml/app:1',
        resources: { limits: { 'nvidia.com/gpu': String(gpus) } },
      },
    ],
    tolerations: [GPU_TOLERATION],
    ...extra,
  };
}
