/**
 * Writes through the REST layer: create (POST), replace (PUT), patch (merge, strategic merge,
 * JSON patch) and server-side apply, on objects and their `status` and `scale` subresources.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serverSideApply } from './apply.js';
import { applyDefaults } from './defaults.js';
import { sendJson } from './http-util.js';
import { ensureNamespace } from './load.js';
import { jsonPatch, mergePatch, strategicMergePatch } from './patch.js';
import { groupVersion } from './resources.js';
import { SimApiError, conflictError, type KubeObject } from './types.js';
import { prepareForCreate } from './create-strategy.js';
import {
  type RestContext,
  type Target,
  notFound,
  existing,
  present,
  readObject,
  asObject,
  dryRun,
} from './rest-target.js';
import { toScale } from './scale.js';
import { validateFields } from './field-validation.js';

/** Checks the fields of a written object (`fieldValidation`) and sets the `Warning` headers. */
function checkFields(res: ServerResponse, t: Target, obj: unknown, url: URL): void {
  if (t.sub) return;
  const warnings = validateFields(t.info, obj, url);
  if (warnings.length) res.setHeader('Warning', warnings);
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

/** POST on a collection: 201 with the created object. @throws SimApiError 409 AlreadyExists */
export async function create(
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
  checkFields(res, t, obj, url);
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
      throw conflictError(t.info.resource, t.name!);
    }
    return { ...obj, metadata: { ...obj.metadata, resourceVersion: cur.metadata.resourceVersion } };
  }
  const updated = ctx.store.update(t.info.resource, obj);
  ctx.afterWrite();
  return updated;
}

/** PUT on an object or its `status`/`scale`. @throws SimApiError 404, 409 Conflict on a stale resourceVersion */
export async function replace(
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
  checkFields(res, t, next, url);
  const stored = storeUpdate(t, combine(t, old, next), url, ctx);
  sendJson(res, 200, present(t, stored));
}

/**
 * PATCH on an object or its `status`/`scale`, by `Content-Type`: merge, strategic merge, JSON
 * patch, or server-side apply. @throws SimApiError 400 on an unknown type, 404, 409, 422
 */
export async function patch(
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
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got "${type}")`,
    );
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) {
    throw new SimApiError(422, 'Invalid', 'the patch result is not an object');
  }
  const next = patched as KubeObject;
  next.metadata = { ...(next.metadata ?? {}), name: t.name! } as KubeObject['metadata'];
  if (t.namespace !== undefined) next.metadata.namespace = t.namespace;
  checkFields(res, t, next, url);
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
  checkFields(res, t, obj, url);
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
