/**
 * The Kubernetes side of the applier, on `@kubernetes/client-node`'s `KubernetesObjectApi`:
 * discovery of a kind's scope, read, server-side apply, list by label and delete.
 */
import type { KubeObject } from '../cluster/index.js';
import {
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { ObjectRef } from './types.js';
import { statusOf } from '../cluster/index.js';

/** A live object as returned by the API server. */
export type LiveObject = KubernetesObject & {
  metadata?: KubernetesObject['metadata'] & { resourceVersion?: string };
};

/** What the applier needs from a cluster. Errors are the client's `ApiException` (with `code`). */
export interface ObjectApi {
  /** Whether the kind is namespaced; undefined when the API server does not serve it. */
  scope(apiVersion: string, kind: string): Promise<'namespaced' | 'cluster' | undefined>;
  /** The live object, or undefined on 404. */
  read(ref: ObjectRef): Promise<LiveObject | undefined>;
  /** Server-side apply (`application/apply-patch+yaml`) of `obj` as `fieldManager`, with `force`. */
  apply(obj: KubeObject, fieldManager: string, force: boolean): Promise<LiveObject>;
  /** Every object of a kind with the label selector, in all namespaces, page by page. */
  list(apiVersion: string, kind: string, labelSelector: string): Promise<LiveObject[]>;
  /** Deletes with background propagation; a 404 counts as done. */
  remove(ref: ObjectRef): Promise<void>;
}

/** The API server's message of a client-node error (the Status body's `message`), else the error text. */
export function messageOf(err: unknown): string {
  const body = (err as { body?: unknown })?.body;
  if (typeof body === 'string') {
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') return parsed.message;
    } catch {
      // not JSON: fall through
    }
  }
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string')
    return (body as { message: string }).message;
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}

/** Exposes the (protected) discovery lookup of `KubernetesObjectApi`. */
class DiscoveringObjectApi extends KubernetesObjectApi {
  static create(kc: KubeConfig): DiscoveringObjectApi {
    const api = kc.makeApiClient(DiscoveringObjectApi);
    api.setDefaultNamespace(kc);
    return api;
  }

  async scopeOf(apiVersion: string, kind: string): Promise<'namespaced' | 'cluster' | undefined> {
    try {
      const r = await this.resource(apiVersion, kind);
      return r === undefined ? undefined : r.namespaced ? 'namespaced' : 'cluster';
    } catch (err) {
      if (statusOf(err) === 404) return undefined; // the group version is not served
      throw err;
    }
  }
}

const PAGE_SIZE = 500;

/** One {@link ObjectApi} per kubeconfig: its discovery answers are kept from sync to sync. */
const byKubeConfig = new WeakMap<KubeConfig, ObjectApi>();

/**
 * The {@link ObjectApi} on a loaded kubeconfig, the same one for the same `kc`. Discovery
 * (`GET /api/v1`, `/apis/<group>/<version>`: which kinds a group version serves, namespaced or
 * not) is read once per group version and kept by client-node's `KubernetesObjectApi`; a kind
 * missing from a kept group version is looked up again, so a CRD installed later is still found.
 * Building one per sync asked the API server for every group version of the folder on each sync
 * (4–6 GETs beside each pass of the demo, the replay and the test harness).
 */
export function kubeObjectApi(kc: KubeConfig): ObjectApi {
  let api = byKubeConfig.get(kc);
  if (!api) byKubeConfig.set(kc, (api = objectApiOn(kc)));
  return api;
}

function objectApiOn(kc: KubeConfig): ObjectApi {
  const api = DiscoveringObjectApi.create(kc);
  const header = (ref: ObjectRef): KubernetesObject => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
  });
  return {
    scope: (apiVersion, kind) => api.scopeOf(apiVersion, kind),
    async read(ref) {
      try {
        return (await api.read(
          header(ref) as { metadata: { name: string } } & KubernetesObject,
        )) as LiveObject;
      } catch (err) {
        if (statusOf(err) === 404) return undefined;
        throw err;
      }
    },
    async apply(obj, fieldManager, force) {
      return (await api.patch(
        obj as KubernetesObject,
        undefined,
        undefined,
        fieldManager,
        force,
        PatchStrategy.ServerSideApply,
      )) as LiveObject;
    },
    async list(apiVersion, kind, labelSelector) {
      const out: LiveObject[] = [];
      let cont: string | undefined;
      do {
        const page = await api.list(
          apiVersion,
          kind,
          undefined,
          undefined,
          undefined,
          undefined,
          undefined,
          labelSelector,
          PAGE_SIZE,
          cont,
        );
        out.push(...(page.items as LiveObject[]));
        cont = page.metadata?._continue || undefined;
      } while (cont);
      return out;
    },
    async remove(ref) {
      try {
        await api.delete(header(ref), undefined, undefined, undefined, undefined, 'Background');
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
  };
}
