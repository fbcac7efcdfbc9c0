/**
 * List and watch on collections: label and field selectors, `limit`/`continue` paging over the
 * store's key order (the token is opaque: the last key served and the list's resourceVersion).
 */
import type { ServerResponse } from 'node:http';
import { groupVersion } from './resources.js';
import { matchFields, matchLabels } from './selectors.js';
import { SimApiError, type KubeObject } from './types.js';
import { selectors, type RestContext, type Target } from './rest-target.js';

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

/** GET on a collection: the `<Kind>List` with selectors and paging applied. */
export function list(url: URL, t: Target, ctx: RestContext): object {
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

/** GET on a collection with `watch=true`: hands the response to the watch hub. */
export function serveWatch(
  res: ServerResponse,
  url: URL,
  t: Target,
  ctx: RestContext,
  present?: (o: KubeObject) => object,
): void {
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
    allowWatchBookmarks: url.searchParams.get('allowWatchBookmarks') === 'true',
    present,
  });
}
