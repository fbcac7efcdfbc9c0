/**
 * DELETE on objects and collections, with `DeleteOptions` (propagationPolicy, orphanDependents,
 * preconditions) and cascading through the garbage collector.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PropagationPolicy } from './gc.js';
import { parseJson, readBody, sendJson } from './http-util.js';
import { RESOURCES, groupVersion } from './resources.js';
import { matchFields, matchLabels } from './selectors.js';
import { SimApiError, type KubeObject } from './types.js';
import { dryRun, existing, selectors, type RestContext, type Target } from './rest-target.js';

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
    for (const { resource } of RESOURCES.filter((r) => r.namespaced)) {
      for (const o of ctx.store.list(resource, name)) ctx.store.delete(resource, name, o.metadata.name);
    }
  }
  const gone = ctx.store.delete(t.info.resource, t.namespace, name);
  if (gone) {
    ctx.gc.setPolicy(gone.metadata.uid, policy);
    ctx.gc.run();
  }
  return gone;
}

/**
 * DELETE on an object: the Pod itself, or a `Status` Success for other kinds (as the API server
 * answers). @throws SimApiError 404, 409 on a failed precondition
 */
export async function remove(
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

/** DELETE on a collection: deletes every selected object; answers the List of them. */
export async function deleteCollection(
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
): Promise<void> {
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
