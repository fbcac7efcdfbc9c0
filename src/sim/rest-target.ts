/**
 * Shared pieces of the REST layer: the request context, the parsed target of a path
 * (`/api/v1/namespaces/NS/pods/NAME/status`), reading and checking request bodies.
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { GarbageCollector } from './gc.js';
import { parseJson, readBody } from './http-util.js';
import { findResource, groupVersion, type ResourceInfo } from './resources.js';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { MemoryStore } from './store.js';
import { SimApiError, type KubeObject, type SimClock } from './types.js';
import type { WatchHub } from './watch.js';
import { toScale } from './scale.js';
import type { OpenApiDocs } from './openapi.js';

/** What the REST layer needs from the cluster. */
export interface RestContext {
  store: MemoryStore;
  clock: SimClock;
  gc: GarbageCollector;
  watch: WatchHub;
  /** Called after every successful write (schedules the controllers). */
  afterWrite(): void;
  /** The OpenAPI documents (`/openapi/v2`, `/openapi/v3/...`), built on first request. */
  openapi?: OpenApiDocs;
  /**
   * Counts one API request by verb (`list`, `get`, `create`, `update`, `patch`, `delete`, `watch`, ...)
   * and by its path (without the query string); `handleApi` supplies the path.
   */
  count(verb: string, path?: string): void;
}

/** What a request path names: resource type, namespace, object name, subresource. */
export interface Target {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string | undefined;
  sub: string | undefined;
}

/** The 404 NotFound error for an object, worded as the API server words it. */
export const notFound = (info: ResourceInfo, name: string): SimApiError =>
  new SimApiError(
    404,
    'NotFound',
    `${info.resource}${info.group ? '.' + info.group : ''} "${name}" not found`,
  );

/** Parses `/api/v1/...` and `/apis/<g>/<v>/...` into a target; `gv` alone for discovery. */
export function parsePath(pathname: string): { gv: string; target?: Target; unknown?: true } | undefined {
  const seg = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let gv: string;
  let rest: string[];
  if (seg[0] === 'api' && seg[1] === 'v1') {
    gv = 'v1';
    rest = seg.slice(2);
  } else if (seg[0] === 'apis' && seg.length >= 3) {
    gv = `${seg[1]}/${seg[2]}`;
    rest = seg.slice(3);
  } else return undefined;
  if (rest.length === 0) return { gv };
  const nsInfo = rest[0] === 'namespaces' && rest.length >= 3 ? findResource(gv, rest[2]!) : undefined;
  if (nsInfo?.namespaced) {
    return { gv, target: { info: nsInfo, namespace: rest[1], name: rest[3], sub: rest[4] } };
  }
  const info = findResource(gv, rest[0]!);
  if (!info) return { gv, unknown: true };
  return { gv, target: { info, namespace: undefined, name: rest[1], sub: rest[2] } };
}

/** The stored object the target names (a copy). @throws SimApiError 404 */
export function existing(t: Target, ctx: RestContext): KubeObject {
  const obj = ctx.store.get(t.info.resource, t.namespace, t.name!);
  if (!obj) throw notFound(t.info, t.name!);
  return obj;
}

/** What a GET on the target answers: the object, or its Scale for `/scale`. */
export function present(t: Target, obj: KubeObject): KubeObject {
  return t.sub === 'scale' ? toScale(obj) : obj;
}

/** The parsed `labelSelector` and `fieldSelector` query parameters. @throws SimApiError 400 */
export function selectors(url: URL, t: Target) {
  return {
    labels: parseLabelSelector(url.searchParams.get('labelSelector') ?? ''),
    fields: parseFieldSelector(t.info.resource, url.searchParams.get('fieldSelector') ?? ''),
  };
}

/** Reads the request body as JSON, or YAML for apply. @throws SimApiError 400 on bad syntax */
export async function readObject(req: IncomingMessage, yaml = false): Promise<unknown> {
  const text = await readBody(req);
  if (!yaml) return parseJson(text);
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new SimApiError(400, 'BadRequest', `invalid YAML body: ${(err as Error).message}`);
  }
}

/**
 * Checks a body is an object of the target's kind, apiVersion, namespace and name (filling the
 * ones it omits). @throws SimApiError 400 on a mismatch
 */
export function asObject(body: unknown, t: Target): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SimApiError(400, 'BadRequest', `expected a ${t.info.kind} object in the request body`);
  }
  const obj = body as KubeObject;
  if (obj.kind && obj.kind !== t.info.kind) {
    throw new SimApiError(
      400,
      'BadRequest',
      `the body kind "${obj.kind}" does not match the path (${t.info.kind})`,
    );
  }
  if (obj.apiVersion && obj.apiVersion !== groupVersion(t.info)) {
    throw new SimApiError(
      400,
      'BadRequest',
      `the body apiVersion "${obj.apiVersion}" does not match the path (${groupVersion(t.info)})`,
    );
  }
  obj.metadata = (obj.metadata ?? {}) as KubeObject['metadata'];
  if (t.namespace !== undefined) {
    if (obj.metadata.namespace && obj.metadata.namespace !== t.namespace) {
      throw new SimApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    obj.metadata.namespace = t.namespace;
  }
  if (t.name !== undefined) {
    if (obj.metadata.name && obj.metadata.name !== t.name) {
      throw new SimApiError(
        400,
        'BadRequest',
        `the name of the object (${obj.metadata.name}) does not match the name on the URL (${t.name})`,
      );
    }
    obj.metadata.name = t.name;
  }
  return obj;
}

/** Whether the request asks for `dryRun=All` (validate, do not store). */
export const dryRun = (url: URL): boolean => url.searchParams.getAll('dryRun').includes('All');
