/**
 * The REST layer of the simulated API server: maps Kubernetes API paths and verbs onto the store
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/). Handles list (label and field
 * selectors, `limit`/`continue` paging, watch), get, create, replace (PUT), patch (merge,
 * strategic merge, JSON patch, server-side apply), delete (with propagation) and deletecollection,
 * plus the `status` and `scale` subresources.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { serverSideApply } from './apply.js';
import { applyDefaults } from './defaults.js';
import { coreVersions, groupList, resourceList, versionInfo } from './discovery.js';
import type { GarbageCollector, PropagationPolicy } from './gc.js';
import { parseJson, readBody, sendError, sendJson } from './http-util.js';
import { ensureNamespace } from './load.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { findResource, groupVersion, type ResourceInfo } from './resources.js';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { MemoryStore } from './store.js';
import { SimApiError, type KubeObject, type SimClock } from './types.js';
import type { WatchHub } from './watch.js';

/** What the REST layer needs from the cluster. */
export interface RestContext {
  store: MemoryStore;
  clock: SimClock;
  gc: GarbageCollector;
  watch: WatchHub;
  /** Called after every successful write (schedules the controllers). */
  afterWrite(): void;
  /** Counts one API request by verb (`list`, `get`, `create`, `update`, `patch`, `delete`, `watch`, ...). */
  count(verb: string): void;
}

interface Target {
  info: ResourceInfo;
  namespace: string | undefined;
  name: string | undefined;
  sub: string | undefined;
}

const notFound = (info: ResourceInfo, name: string): SimApiError =>
  new SimApiError(
    404,
    'NotFound',
    `${info.resource}${info.group ? '.' + info.group : ''} "${name}" not found`,
  );

/** Parses `/api/v1/...` and `/apis/<g>/<v>/...` into a target; `gv` alone for discovery. */
function parsePath(pathname: string): { gv: string; target?: Target; unknown?: true } | undefined {
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

/** An opaque `continue` token: the last key served and the list's resourceVersion. */
function encodeContinue(key: string, rv: string): string {
  return Buffer.from(JSON.stringify({ k: key, rv })).toString('base64url');
}

function decodeContinue(token: string): { k: string; rv: string } {
  try {
    const v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { k: unknown; rv: unknown };
    if (typeof v.k !== 'string' || typeof v.rv !== 'string') throw new Error('shape');
    return { k: v.k, rv: v.rv };
  } catch {
    throw new SimApiError(400, 'BadRequest', 'continue key is not valid: illegal base64 data or shape');
  }
}

/** Index of the first key greater than `after` in sorted `keys`. */
function firstAfter(keys: string[], after: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Handles one request under `/api`, `/apis`, `/version`. Returns false when the path is not an
 * API path (so other routes may handle it).
 */
export async function handleApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: RestContext,
): Promise<boolean> {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  if (path === '/version') return (sendJson(res, 200, versionInfo()), true);
  if (path === '/api') return (ctx.count('get'), sendJson(res, 200, coreVersions()), true);
  if (path === '/apis') return (ctx.count('get'), sendJson(res, 200, groupList()), true);
  const parsed = parsePath(path);
  if (!parsed) return false;
  try {
    if (!parsed.target) {
      ctx.count('get');
      const doc = parsed.unknown ? undefined : resourceList(parsed.gv);
      if (!doc)
        throw new SimApiError(404, 'NotFound', `the server could not find the requested resource (${path})`);
      sendJson(res, 200, doc);
      return true;
    }
    await route(req, res, url, parsed.target, ctx);
  } catch (err) {
    const t = parsed.target;
    sendError(
      res,
      err,
      t ? { name: t.name, group: t.info.group || undefined, kind: t.info.resource } : undefined,
    );
  }
  return true;
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const method = req.method ?? 'GET';
  if (t.sub && !t.info.subresources.includes(t.sub)) {
    throw new SimApiError(
      404,
      'NotFound',
      `the server could not find the requested resource (${t.info.resource}/${t.sub})`,
    );
  }
  if (t.name === undefined) {
    if (method === 'GET') {
      const watch = url.searchParams.get('watch');
      if (watch === 'true' || watch === '1') return serveWatch(res, url, t, ctx);
      ctx.count('list');
      return sendJson(res, 200, list(url, t, ctx));
    }
    if (method === 'POST') {
      ctx.count('create');
      return create(req, res, url, t, ctx);
    }
    if (method === 'DELETE') {
      ctx.count('deletecollection');
      return deleteCollection(res, url, t, ctx);
    }
    throw new SimApiError(400, 'BadRequest', `method ${method} not allowed on a collection`);
  }
  if (t.info.namespaced && t.namespace === undefined) throw notFound(t.info, t.name);
  switch (method) {
    case 'GET':
      ctx.count('get');
      return sendJson(res, 200, present(t, existing(t, ctx)));
    case 'PUT':
      ctx.count('update');
      return replace(req, res, url, t, ctx);
    case 'PATCH':
      ctx.count('patch');
      return patch(req, res, url, t, ctx);
    case 'DELETE':
      ctx.count('delete');
      return remove(req, res, url, t, ctx);
    default:
      throw new SimApiError(400, 'BadRequest', `method ${method} not allowed`);
  }
}

function existing(t: Target, ctx: RestContext): KubeObject {
  const obj = ctx.store.get(t.info.resource, t.namespace, t.name!);
  if (!obj) throw notFound(t.info, t.name!);
  return obj;
}

/** What a GET on the target answers: the object, or its Scale for `/scale`. */
function present(t: Target, obj: KubeObject): KubeObject {
  return t.sub === 'scale' ? toScale(obj) : obj;
}

/** The autoscaling/v1 Scale of a Deployment or ReplicaSet. */
function toScale(obj: KubeObject): KubeObject {
  const sel = obj.spec?.selector as
    | {
        matchLabels?: Record<string, string>;
        matchExpressions?: { key: string; operator: string; values?: string[] }[];
      }
    | undefined;
  const parts = Object.entries(sel?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of sel?.matchExpressions ?? []) {
    const op = e.operator;
    if (op === 'In' || op === 'NotIn')
      parts.push(`${e.key} ${op.toLowerCase()} (${(e.values ?? []).join(',')})`);
    else parts.push(op === 'Exists' ? e.key : `!${e.key}`);
  }
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: obj.metadata.name,
      namespace: obj.metadata.namespace,
      uid: obj.metadata.uid,
      resourceVersion: obj.metadata.resourceVersion,
      creationTimestamp: obj.metadata.creationTimestamp,
    },
    spec: { replicas: obj.spec?.replicas ?? 1 },
    status: { replicas: obj.status?.replicas ?? 0, selector: parts.join(',') },
  };
}

function selectors(url: URL, t: Target) {
  return {
    labels: parseLabelSelector(url.searchParams.get('labelSelector') ?? ''),
    fields: parseFieldSelector(t.info.resource, url.searchParams.get('fieldSelector') ?? ''),
  };
}

function list(url: URL, t: Target, ctx: RestContext): object {
  const { labels, fields } = selectors(url, t);
  const limitText = url.searchParams.get('limit');
  const limit = limitText ? Number(limitText) : 0;
  if (!Number.isInteger(limit) || limit < 0)
    throw new SimApiError(400, 'BadRequest', `limit: invalid value "${limitText}"`);
  const cont = url.searchParams.get('continue');
  const token = cont ? decodeContinue(cont) : undefined;
  const rv = token?.rv ?? ctx.store.resourceVersion();
  const keys = ctx.store.sortedKeys(t.info.resource);
  const prefix = t.info.namespaced && t.namespace !== undefined ? `${t.namespace}/` : undefined;
  let i = token ? firstAfter(keys, token.k) : prefix ? lowerBound(keys, prefix) : 0;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  let more = false;
  for (; i < keys.length; i++) {
    const key = keys[i]!;
    if (prefix && !key.startsWith(prefix)) break;
    const obj = ctx.store.peek(t.info.resource, key)!;
    if (!matchLabels(labels, obj.metadata.labels) || !matchFields(fields, obj)) continue;
    if (limit > 0 && items.length === limit) {
      more = true;
      break;
    }
    items.push(obj);
    lastKey = key;
  }
  const metadata: Record<string, unknown> = { resourceVersion: rv };
  if (more && lastKey !== undefined) {
    metadata.continue = encodeContinue(lastKey, rv);
    if (labels.length === 0 && fields.length === 0) {
      let remaining = 0;
      for (let j = i; j < keys.length && (!prefix || keys[j]!.startsWith(prefix)); j++) remaining++;
      metadata.remainingItemCount = remaining;
    }
  }
  return { kind: `${t.info.kind}List`, apiVersion: groupVersion(t.info), metadata, items };
}

/** Index of the first key >= `prefix`. */
function lowerBound(keys: string[], prefix: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function serveWatch(res: ServerResponse, url: URL, t: Target, ctx: RestContext): void {
  ctx.count('watch');
  const { labels, fields } = selectors(url, t);
  const timeout = url.searchParams.get('timeoutSeconds');
  ctx.watch.serve(res, {
    resource: t.info.resource,
    namespace: t.info.namespaced ? t.namespace : undefined,
    labels,
    fields,
    resourceVersion: url.searchParams.get('resourceVersion') ?? undefined,
    timeoutSeconds: timeout ? Number(timeout) : undefined,
  });
}

async function readObject(req: IncomingMessage, yaml = false): Promise<unknown> {
  const text = await readBody(req);
  if (!yaml) return parseJson(text);
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new SimApiError(400, 'BadRequest', `invalid YAML body: ${(err as Error).message}`);
  }
}

function asObject(body: unknown, t: Target): KubeObject {
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

const dryRun = (url: URL): boolean => url.searchParams.getAll('dryRun').includes('All');

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

/**
 * A pod's QoS class (https://kubernetes.io/docs/concepts/workloads/pods/pod-qos/): Guaranteed
 * when every container sets cpu and memory limits equal to its requests (requests default to
 * limits), BestEffort when none sets any cpu or memory, else Burstable.
 */
export function qosClass(pod: KubeObject): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])] as {
    resources?: Resources;
  }[];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const limits = c.resources?.limits ?? {};
    const requests = { ...limits, ...(c.resources?.requests ?? {}) };
    for (const r of ['cpu', 'memory']) {
      if (limits[r] !== undefined || requests[r] !== undefined) any = true;
      if (limits[r] === undefined || requests[r] !== limits[r]) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** What the API server resets on create, per resource (its create strategy). */
function prepareForCreate(t: Target, obj: KubeObject): void {
  switch (t.info.resource) {
    case 'pods':
      obj.status = { phase: 'Pending', qosClass: qosClass(obj) };
      break;
    case 'deployments':
    case 'replicasets':
    case 'jobs':
    case 'horizontalpodautoscalers':
      obj.status = {};
      break;
    case 'namespaces':
      obj.status = { phase: 'Active' };
      obj.spec = { finalizers: ['kubernetes'], ...(obj.spec ?? {}) };
      obj.metadata.labels = {
        ...(obj.metadata.labels ?? {}),
        'kubernetes.io/metadata.name': obj.metadata.name,
      };
      break;
    default:
      break;
  }
}

function storeCreate(t: Target, obj: KubeObject, url: URL, ctx: RestContext): KubeObject {
  if (!obj.metadata.name && typeof obj.metadata.generateName === 'string') {
    obj.metadata.name = obj.metadata.generateName + randomBytes(3).toString('hex').slice(0, 5);
  }
  // The server assigns these; a client's values are ignored (as the API server does).
  for (const field of ['uid', 'creationTimestamp', 'deletionTimestamp', 'generation', 'resourceVersion']) {
    delete obj.metadata[field];
  }
  obj.metadata.uid = randomUUID();
  prepareForCreate(t, obj);
  applyDefaults(t.info.resource, obj, true);
  if (dryRun(url)) {
    const ready = ctx.store.prepareCreate(t.info.resource, obj);
    if (ctx.store.get(t.info.resource, ready.metadata.namespace, ready.metadata.name)) {
      throw new SimApiError(
        409,
        'AlreadyExists',
        `${t.info.resource} "${ready.metadata.name}" already exists`,
      );
    }
    return ready;
  }
  if (t.info.namespaced) ensureNamespace(ctx.store, obj.metadata.namespace || 'default');
  const created = ctx.store.create(t.info.resource, obj);
  ctx.afterWrite();
  return created;
}

async function create(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  if (t.info.namespaced && t.namespace === undefined) {
    throw new SimApiError(
      400,
      'BadRequest',
      `create ${t.info.resource}: a namespace is required in the path`,
    );
  }
  const obj = asObject(await readObject(req), t);
  sendJson(res, 201, storeCreate(t, obj, url, ctx));
}

/** Builds the object to store from the old one and a new full body, honouring the subresource. */
function combine(t: Target, old: KubeObject, next: KubeObject): KubeObject {
  if (t.sub === 'status') {
    return {
      ...old,
      metadata: { ...old.metadata, resourceVersion: next.metadata.resourceVersion },
      status: next.status,
    };
  }
  if (t.sub === 'scale') {
    const replicas = (next.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw new SimApiError(
        422,
        'Invalid',
        `Scale.spec.replicas: Invalid value: ${JSON.stringify(replicas)}: must be a non-negative integer`,
      );
    }
    return {
      ...old,
      metadata: { ...old.metadata, resourceVersion: next.metadata.resourceVersion },
      spec: { ...old.spec, replicas },
    };
  }
  const out = { ...next, metadata: { ...next.metadata } };
  if (t.info.statusSubresource) out.status = old.status;
  if (out.metadata.managedFields === undefined && old.metadata.managedFields)
    out.metadata.managedFields = old.metadata.managedFields;
  return out;
}

function storeUpdate(t: Target, obj: KubeObject, url: URL, ctx: RestContext): KubeObject {
  applyDefaults(t.info.resource, obj, false);
  if (dryRun(url)) {
    const cur = existing(t, ctx);
    if (obj.metadata.resourceVersion && obj.metadata.resourceVersion !== cur.metadata.resourceVersion) {
      throw new SimApiError(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${t.info.resource} "${t.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata.resourceVersion } };
  }
  const updated = ctx.store.update(t.info.resource, obj);
  ctx.afterWrite();
  return updated;
}

async function replace(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const body = await readObject(req);
  const old = existing(t, ctx);
  const next = t.sub === 'scale' ? (body as KubeObject) : asObject(body, t);
  if (t.sub === 'scale') {
    next.metadata = { ...(next.metadata ?? {}), name: t.name! } as KubeObject['metadata'];
  }
  const stored = storeUpdate(t, combine(t, old, next), url, ctx);
  sendJson(res, 200, present(t, stored));
}

async function patch(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (type === 'application/apply-patch+yaml' || type === 'application/apply-patch+cbor')
    return apply(req, res, url, t, ctx);
  const body = await readObject(req);
  const old = existing(t, ctx);
  const doc = present(t, old);
  let patched: unknown;
  if (type === 'application/merge-patch+json') patched = mergePatch(doc, body);
  else if (type === 'application/strategic-merge-patch+json') patched = strategicMergePatch(doc, body);
  else if (type === 'application/json-patch+json') patched = jsonPatch(doc, body);
  else {
    throw new SimApiError(
      400,
      'BadRequest',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got "${type}")`,
    );
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw new SimApiError(422, 'Invalid', 'the patch result is not an object');
  }
  const next = patched as KubeObject;
  next.metadata = { ...(next.metadata ?? {}), name: t.name! } as KubeObject['metadata'];
  if (t.namespace !== undefined) next.metadata.namespace = t.namespace;
  const stored = storeUpdate(t, combine(t, old, next), url, ctx);
  sendJson(res, 200, present(t, stored));
}

async function apply(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const manager = url.searchParams.get('fieldManager');
  if (!manager) throw new SimApiError(422, 'Invalid', 'PATCH /apply requires fieldManager to be set');
  const force = url.searchParams.get('force') === 'true';
  const config = await readObject(req, true);
  const opts = { manager, force, apiVersion: groupVersion(t.info), now: ctx.clock.now() };
  if (t.sub === 'scale') {
    const old = existing(t, ctx);
    const scale = serverSideApply(toScale(old), config as KubeObject, {
      ...opts,
      apiVersion: 'autoscaling/v1',
    });
    sendJson(res, 200, present(t, storeUpdate(t, combine(t, old, scale), url, ctx)));
    return;
  }
  const obj = asObject(config, t);
  if (!obj.kind || !obj.apiVersion)
    throw new SimApiError(400, 'BadRequest', 'apply: the object must set apiVersion and kind');
  const live = ctx.store.get(t.info.resource, t.namespace, t.name!);
  if (t.sub === 'status') {
    if (!live) throw notFound(t.info, t.name!);
    const merged = strategicMergePatch(live, { status: obj.status ?? {} }) as KubeObject;
    sendJson(res, 200, storeUpdate(t, combine(t, live, merged), url, ctx));
    return;
  }
  if (!live) {
    const created = serverSideApply(undefined, obj, opts);
    sendJson(res, 201, storeCreate(t, created, url, ctx));
    return;
  }
  const merged = serverSideApply(live, obj, opts);
  merged.metadata.resourceVersion = obj.metadata.resourceVersion;
  sendJson(res, 200, storeUpdate(t, combine(t, live, merged), url, ctx));
}

async function deleteOptions(
  req: IncomingMessage,
  url: URL,
): Promise<{ policy?: PropagationPolicy; uid?: string; rv?: string }> {
  const text = await readBody(req);
  const body = text.trim() ? (parseJson(text) as Record<string, unknown>) : {};
  const pre = (body.preconditions ?? {}) as { uid?: string; resourceVersion?: string };
  let policy = (url.searchParams.get('propagationPolicy') ?? body.propagationPolicy) as
    PropagationPolicy | undefined;
  const orphan = url.searchParams.get('orphanDependents') ?? body.orphanDependents;
  if (policy === undefined && (orphan === true || orphan === 'true')) policy = 'Orphan';
  if (policy !== undefined && !['Background', 'Foreground', 'Orphan'].includes(policy)) {
    throw new SimApiError(400, 'BadRequest', `propagationPolicy: Unsupported value: "${policy}"`);
  }
  return { policy, uid: pre.uid, rv: pre.resourceVersion };
}

/**
 * The default propagation when the request sets none. batch/v1 Jobs orphan their pods by
 * default (the API server keeps that for compatibility and warns); everything else is Background.
 */
function defaultPolicy(t: Target): PropagationPolicy {
  return t.info.resource === 'jobs' ? 'Orphan' : 'Background';
}

function deleteOne(
  t: Target,
  name: string,
  policy: PropagationPolicy,
  ctx: RestContext,
): KubeObject | undefined {
  if (t.info.resource === 'namespaces') {
    for (const info of [
      'pods',
      'jobs',
      'deployments',
      'replicasets',
      'horizontalpodautoscalers',
      'leases',
      'events',
    ] as const) {
      for (const o of ctx.store.list(info, name)) ctx.store.delete(info, name, o.metadata.name);
    }
  }
  const gone = ctx.store.delete(t.info.resource, t.namespace, name);
  if (gone) {
    ctx.gc.setPolicy(gone.metadata.uid, policy);
    ctx.gc.run();
  }
  return gone;
}

async function remove(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
  const opts = await deleteOptions(req, url);
  const old = existing(t, ctx);
  if (opts.uid && opts.uid !== old.metadata.uid) {
    throw new SimApiError(
      409,
      'Conflict',
      `Precondition failed: UID in precondition: ${opts.uid}, UID in object meta: ${old.metadata.uid}`,
    );
  }
  if (opts.rv && opts.rv !== old.metadata.resourceVersion) {
    throw new SimApiError(
      409,
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${opts.rv}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
    );
  }
  const headers: Record<string, string> = {};
  if (!opts.policy && t.info.resource === 'jobs') {
    headers.Warning =
      '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';
  }
  if (dryRun(url)) return sendJson(res, 200, old, headers);
  const gone = deleteOne(t, t.name!, opts.policy ?? defaultPolicy(t), ctx);
  ctx.afterWrite();
  if (t.info.resource === 'pods' || !gone) return sendJson(res, 200, gone ?? old, headers);
  sendJson(
    res,
    200,
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: {
        name: t.name,
        group: t.info.group || undefined,
        kind: t.info.resource,
        uid: gone.metadata.uid,
      },
    },
    headers,
  );
}

async function deleteCollection(res: ServerResponse, url: URL, t: Target, ctx: RestContext): Promise<void> {
  const { labels, fields } = selectors(url, t);
  const policy = (url.searchParams.get('propagationPolicy') as PropagationPolicy | null) ?? defaultPolicy(t);
  const victims = ctx.store
    .list(t.info.resource, t.info.namespaced ? t.namespace : undefined)
    .filter((o) => matchLabels(labels, o.metadata.labels) && matchFields(fields, o));
  const items: KubeObject[] = [];
  if (!dryRun(url)) {
    for (const v of victims) {
      const gone = deleteOne({ ...t, namespace: v.metadata.namespace }, v.metadata.name, policy, ctx);
      if (gone) items.push(gone);
    }
    ctx.afterWrite();
  }
  sendJson(res, 200, {
    kind: `${t.info.kind}List`,
    apiVersion: groupVersion(t.info),
    metadata: { resourceVersion: ctx.store.resourceVersion() },
    items,
  });
}
