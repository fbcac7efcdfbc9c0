/**
 * One Kubernetes watch request (`GET <collection>?watch=true&resourceVersion=…`) on the client
 * library's own transport (`node-fetch` with `KubeConfig.applyToFetchOptions`, as its `Watch`
 * sends it), read line by line, each line one `{"type", "object"}` event
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes).
 *
 * Not client-node's `Watch` itself: in 1.4.0 it cannot be aborted before the response headers
 * arrive (the abort handle is returned after them), it drops its 30 s timeout signal (the line
 * that sets it is overwritten), it never asks for bookmarks, and it reports a reset connection and
 * a clean end alike. Here the caller's `AbortSignal` covers the whole request, and the end says
 * which of these happened.
 */
import { StringDecoder } from 'node:string_decoder';
import type { KubeConfig } from '@kubernetes/client-node';
// The client library's HTTP transport (its dependency), used the way its `Watch` uses it.
import fetch from 'node-fetch';

/** One event of a watch stream, the object as the API server sent it (plain JSON). */
export interface WatchEventLine {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: { metadata?: { name?: string; namespace?: string; resourceVersion?: string } } & Record<
    string,
    unknown
  >;
}

/**
 * How a watch request ended:
 * - `ended`: the server closed the stream cleanly (its `timeoutSeconds`, a restart);
 * - `expired`: the resume version is too old (HTTP 410, or an `ERROR` event with code 410 /
 *   reason `Expired` / "too old resource version"): the caller must list again;
 * - `aborted`: the caller's signal aborted it;
 * - `failed`: no stream (connection refused, an HTTP error) or one cut mid-way (reset); `status`
 *   is the HTTP status when there was one.
 */
export type WatchEnd =
  | { kind: 'ended' }
  | { kind: 'expired'; message: string }
  | { kind: 'aborted' }
  | { kind: 'failed'; status?: number; message: string };

/** Query parameters of one watch. */
export interface WatchParams {
  resourceVersion: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Asked of the server: it ends the stream cleanly after this many seconds. */
  timeoutSeconds?: number;
  /** `allowWatchBookmarks=true` (default): the server may send BOOKMARK events. */
  allowWatchBookmarks?: boolean;
}

/**
 * Runs one watch request until it ends, handing each event to `onEvent` as it arrives (the
 * stream's first event comes once the response is open; `onOpen` is called then). Never throws:
 * every way it ends is a {@link WatchEnd}. Lines that are not JSON are skipped, as the API server
 * never sends them.
 */
export async function runWatch(
  kc: KubeConfig,
  apiPath: string,
  params: WatchParams,
  handlers: { onOpen(): void; onEvent(event: WatchEventLine): void },
  signal: AbortSignal,
): Promise<WatchEnd> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) return { kind: 'failed', message: 'no current cluster in the kubeconfig' };
  const url = watchUrl(cluster.server, apiPath, params);
  let res: Awaited<ReturnType<typeof fetch>>;
  try {
    const init = await kc.applyToFetchOptions({ method: 'GET', headers: { Accept: 'application/json' } });
    res = await fetch(url, { ...init, signal: signal as never });
  } catch (err) {
    return signal.aborted ? { kind: 'aborted' } : { kind: 'failed', message: describe(err) };
  }
  if (res.status === 410)
    return { kind: 'expired', message: statusMessage(await res.text().catch(() => '')) };
  if (res.status !== 200) {
    const text = await res.text().catch(() => '');
    return { kind: 'failed', status: res.status, message: `HTTP ${res.status}: ${statusMessage(text)}` };
  }
  handlers.onOpen();
  return readWatchEvents(res.body, handlers.onEvent, signal);
}

/** The watch URL of `apiPath` on `server` with the query of `params`. */
function watchUrl(server: string, apiPath: string, params: WatchParams): URL {
  const url = new URL(server + apiPath);
  url.searchParams.set('watch', 'true');
  url.searchParams.set('resourceVersion', params.resourceVersion);
  if (params.allowWatchBookmarks !== false) url.searchParams.set('allowWatchBookmarks', 'true');
  if (params.labelSelector) url.searchParams.set('labelSelector', params.labelSelector);
  if (params.fieldSelector) url.searchParams.set('fieldSelector', params.fieldSelector);
  if (params.timeoutSeconds) url.searchParams.set('timeoutSeconds', String(params.timeoutSeconds));
  return url;
}

/**
 * Reads a watch response's body line by line, each JSON line an event for `onEvent`, until the
 * stream ends, fails, is aborted, or sends an ERROR event (410 / Expired / "too old": `expired`).
 */
function readWatchEvents(
  body: Awaited<ReturnType<typeof fetch>>['body'],
  onEvent: (event: WatchEventLine) => void,
  signal: AbortSignal,
): Promise<WatchEnd> {
  return new Promise<WatchEnd>((resolve) => {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    let end: WatchEnd | undefined;
    const finish = (e: WatchEnd) => {
      if (end) return;
      end = e;
      body.removeAllListeners('data');
      resolve(e);
    };
    const line = (text: string) => {
      if (text.trim() === '') return;
      let event: WatchEventLine;
      try {
        event = JSON.parse(text) as WatchEventLine;
      } catch {
        return;
      }
      if (event.type === 'ERROR') {
        const status = event.object as { code?: number; reason?: string; message?: string };
        const message = status.message ?? `watch ERROR ${JSON.stringify(status)}`;
        const expired =
          status.code === 410 ||
          status.reason === 'Expired' ||
          status.reason === 'Gone' ||
          /too old/i.test(message);
        finish(expired ? { kind: 'expired', message } : { kind: 'failed', status: status.code, message });
        (body as unknown as { destroy(): void }).destroy();
        return;
      }
      onEvent(event);
    };
    body.on('data', (chunk: Buffer) => {
      pending += decoder.write(chunk);
      let nl = pending.indexOf('\n');
      while (nl >= 0 && !end) {
        line(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
    });
    body.on('end', () => {
      if (!end && pending !== '') line(pending + decoder.end());
      finish({ kind: 'ended' });
    });
    body.on('error', (err: Error) =>
      finish(signal.aborted ? { kind: 'aborted' } : { kind: 'failed', message: describe(err) }),
    );
    // A socket closed without `end` (destroyed, reset) ends the stream too.
    body.on('close', () =>
      finish(
        signal.aborted ? { kind: 'aborted' } : { kind: 'failed', message: 'connection closed mid-stream' },
      ),
    );
  });
}

/** The `message` of a Kubernetes `Status` body, else its first 200 characters. */
function statusMessage(text: string): string {
  try {
    const status = JSON.parse(text) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = e?.message ? String(e.message) : String(err);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
