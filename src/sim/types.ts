/**
 * Contracts inside the simulated cluster (`src/sim`). The API server part (object store, REST,
 * selectors, paging, patches, watch) and the behaviour part (scheduler, Job and Deployment
 * controllers, dcgm-exporter pages, load model, clock) meet only through these types.
 */
import type { KubeObject as BaseKubeObject } from '../cluster/index.js';

/** Any Kubernetes object as JSON: gpuops's one object type, with `spec` and `status` left open. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KubeObject = BaseKubeObject<any, any>;

/** Plural resource names the simulator serves. */
export type Resource =
  | 'nodes'
  | 'pods'
  | 'endpointslices'
  | 'namespaces'
  | 'jobs'
  | 'deployments'
  | 'replicasets'
  | 'daemonsets'
  | 'horizontalpodautoscalers'
  | 'leases'
  | 'events'
  | 'roles'
  | 'rolebindings'
  | 'clusterroles'
  | 'clusterrolebindings'
  | 'secrets'
  | 'configmaps'
  | 'services'
  | 'serviceaccounts'
  | 'resourcequotas';

/** A change to one object, as a watch stream reports it. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: Resource;
  object: KubeObject;
}

/** Raised by the object store; the REST layer turns it into a Kubernetes `Status` with `code`. */
export class SimApiError extends Error {
  constructor(
    readonly code: 401 | 403 | 404 | 409 | 422 | 400 | 405 | 413 | 415,
    readonly reason:
      | 'Unauthorized'
      | 'Forbidden'
      | 'NotFound'
      | 'AlreadyExists'
      | 'Conflict'
      | 'Invalid'
      | 'BadRequest'
      | 'RequestEntityTooLarge'
      | 'MethodNotAllowed'
      | 'UnsupportedMediaType',
    message: string,
    /** The Status `details` (`name`, `group`, `kind`), when the error names an object. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SimApiError';
  }
}

/** 409 Conflict for a write with a stale resourceVersion, worded as the Kubernetes API server words it. */
export function conflictError(resource: string, name: string): SimApiError {
  return new SimApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  );
}

/**
 * The in-memory object store behind the simulated API server. Every write bumps one global
 * `resourceVersion` counter and notifies subscribers synchronously. Objects handed out are copies.
 */
export interface SimStore {
  list(resource: Resource, namespace?: string): KubeObject[];
  get(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Assigns uid, resourceVersion, creationTimestamp (from the sim clock). @throws SimApiError 409 AlreadyExists */
  create(resource: Resource, obj: KubeObject): KubeObject;
  /**
   * Replaces the object. When `obj.metadata.resourceVersion` is set and differs from the
   * stored one: @throws SimApiError 409 Conflict. @throws SimApiError 404 when absent.
   */
  update(resource: Resource, obj: KubeObject): KubeObject;
  /** Removes the object; returns it, or undefined when absent. */
  delete(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Calls `listener` after every write; returns the unsubscribe function. */
  subscribe(listener: (event: WatchEvent) => void): () => void;
  /** The current global resourceVersion. */
  resourceVersion(): string;
  /**
   * Optional: the stored objects themselves, in `list` order, without copying — for controllers
   * that read the whole cluster on every pass (20,000 pods). Callers must not change them (copy an
   * object before modifying it). Callers fall back to `list` when absent.
   */
  scan?(resource: Resource, namespace?: string): readonly KubeObject[];
  /**
   * Optional: the stored object itself (no copy), or undefined when absent — `get` without the
   * copy, for controllers that read an object on every pass and write only when it changed.
   * Callers must not change it (copy before modifying). Callers fall back to `get` when absent.
   */
  find?(resource: Resource, namespace: string | undefined, name: string): KubeObject | undefined;
}

/**
 * Simulated time. `now()` starts at the wall clock and runs `speed` times faster. Behaviour
 * (Job run times, load changes) reads only this clock, so tests can jump ahead with `advance`.
 */
export interface SimClock {
  now(): Date;
  /** Moves simulated time forward (seconds) and runs due work. */
  advance(seconds: number): void;
  readonly speed: number;
}

/**
 * A piece of simulated behaviour (scheduler, Job controller, …). `reconcile` is called after
 * store writes and on clock ticks, with the current simulated time; it may write to the store.
 */
export interface SimController {
  readonly name: string;
  reconcile(store: SimStore, now: Date): void;
}
