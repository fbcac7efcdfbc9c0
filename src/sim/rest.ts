/**
 * The REST layer of the simulated API server: maps Kubernetes API paths and verbs onto the store
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/). Handles list (label and field
 * selectors, `limit`/`continue` paging, watch), get, create, replace (PUT), patch (merge,
 * strategic merge, JSON patch, server-side apply), delete (with propagation) and deletecollection,
 * plus the `status` and `scale` subresources.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { coreVersions, groupList, resourceList, versionInfo } from './discovery.js';
import { sendError, sendJson } from './http-util.js';
import { SimApiError, type KubeObject } from './types.js';
import { remove, deleteCollection } from './rest-delete.js';
import { list, serveWatch } from './rest-list.js';
import { toTable, wantsTable } from './table.js';
import { existing, notFound, parsePath, present, type RestContext, type Target } from './rest-target.js';
import { create, replace, patch } from './rest-write.js';
import { evict } from './eviction.js';

/**
 * Handles one request under `/api`, `/apis`, `/version`. Returns false when the path is not an
 * API path (so other routes may handle it).
 */
export async function handleApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  server: RestContext,
): Promise<boolean> {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const ctx: RestContext = { ...server, count: (verb) => server.count(verb, path) };
  if (path === '/version') return (sendJson(res, 200, versionInfo()), true);
  if (path === '/api') return (ctx.count('get'), sendJson(res, 200, coreVersions()), true);
  if (path === '/apis') return (ctx.count('get'), sendJson(res, 200, groupList()), true);
  if (path === '/openapi/v2' || path.startsWith('/openapi/v3'))
    return (ctx.count('get'), serveOpenApi(req, res, path, ctx));
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

/** The content types a request accepts, without parameters (any type when it names none). */
function accepted(req: IncomingMessage): string[] {
  const types = (req.headers.accept ?? '')
    .split(',')
    .map((p) => p.split(';')[0]!.trim())
    .filter(Boolean);
  return types.length ? types : ['*/*'];
}

/**
 * `/openapi/v2`, `/openapi/v3`, `/openapi/v3/<api/v1 | apis/g/v>` as JSON (openapi.ts). A request
 * that accepts only protobuf gets 406, so a client falls back instead of parsing JSON as protobuf.
 */
function serveOpenApi(req: IncomingMessage, res: ServerResponse, path: string, ctx: RestContext): true {
  const docs = ctx.openapi;
  const json = accepted(req).some((t) => t === 'application/json' || t === '*/*' || t === 'application/*');
  const fail = (code: number, reason: string, message: string) =>
    sendJson(res, code, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    });
  if (!docs)
    return (fail(404, 'NotFound', `the server could not find the requested resource (${path})`), true);
  if (!json) {
    fail(406, 'NotAcceptable', `only the following media types are accepted: application/json`);
    return true;
  }
  const send = (body: string) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (path === '/openapi/v2') return (send(docs.swagger()), true);
  if (path === '/openapi/v3') return (sendJson(res, 200, docs.index()), true);
  const doc = docs.groupVersion(path.slice('/openapi/v3/'.length));
  if (!doc)
    return (fail(404, 'NotFound', `the server could not find the requested resource (${path})`), true);
  send(doc.body);
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
      const asTable = wantsTable(req.headers.accept);
      const includeObject = url.searchParams.get('includeObject');
      const tableOf = (o: KubeObject) =>
        toTable(
          t.info.resource,
          [o],
          { metadata: { resourceVersion: o.metadata.resourceVersion } },
          ctx.clock.now().getTime(),
          includeObject,
        );
      if (watch === 'true' || watch === '1')
        return serveWatch(res, url, t, ctx, asTable ? tableOf : undefined);
      ctx.count('list');
      const body = list(url, t, ctx) as { items: KubeObject[]; metadata?: object };
      // kubectl get asks for a server-side Table (src/sim/table.ts).
      if (wantsTable(req.headers.accept))
        return sendJson(
          res,
          200,
          toTable(
            t.info.resource,
            body.items,
            body,
            ctx.clock.now().getTime(),
            url.searchParams.get('includeObject'),
          ),
        );
      return sendJson(res, 200, body);
    }
    if (method === 'POST') {
      ctx.count('create');
      return create(req, res, url, t, ctx);
    }
    if (method === 'DELETE') {
      ctx.count('deletecollection');
      return deleteCollection(res, url, t, ctx);
    }
    throw new SimApiError(
      405,
      'MethodNotAllowed',
      `the server does not allow this method on the requested resource (${method})`,
    );
  }
  if (t.info.namespaced && t.namespace === undefined) throw notFound(t.info, t.name);
  if (t.sub === 'eviction') {
    if (method !== 'POST') {
      throw new SimApiError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (${method})`,
      );
    }
    ctx.count('create');
    return evict(req, res, t, ctx);
  }
  switch (method) {
    case 'GET':
      ctx.count('get');
      if (wantsTable(req.headers.accept)) {
        const one = existing(t, ctx);
        const meta = { resourceVersion: one.metadata.resourceVersion };
        const now = ctx.clock.now().getTime();
        return sendJson(
          res,
          200,
          toTable(t.info.resource, [one], { metadata: meta }, now, url.searchParams.get('includeObject')),
        );
      }
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
      throw new SimApiError(
        405,
        'MethodNotAllowed',
        `the server does not allow this method on the requested resource (${method})`,
      );
  }
}
