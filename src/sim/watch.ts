/**
 * `?watch=true` on list endpoints: a chunked stream of JSON lines `{"type":..., "object":...}`,
 * as the API server sends it. Without `resourceVersion` (or with "0") the stream starts with an
 * ADDED event per existing object; with one, it replays the events after it from a bounded
 * history (the last 5,000 to 10,000 events), or sends an ERROR event with a 410 `Status`
 * (reason Expired) when that version is too old.
 * As the API server's watch cache does, a MODIFIED object that enters the selection is sent as
 * ADDED and one that leaves it as DELETED. With `allowWatchBookmarks=true` a stream gets a
 * `BOOKMARK` event (an object of the watched kind carrying only `metadata.resourceVersion`, the
 * store's current one) every bookmark interval, as the API server's watch cache sends them about
 * once a minute (KEP-956).
 *
 * The faults a real watch meets, for tests of clients (see {@link WatchFaults}): a connection cut
 * mid-stream, a stream that goes silent, and history compacted so that a resume version is too old.
 */
import type { ServerResponse } from 'node:http';
import { groupVersion, resourceInfo } from './resources.js';
import type { FieldRequirement, LabelRequirement } from './selectors.js';
import { matchFields, matchLabels } from './selectors.js';
import type { MemoryStore } from './store.js';
import type { KubeObject, Resource, WatchEvent } from './types.js';

/** How many past events are kept for watches that resume from a resourceVersion. */
const HISTORY = 5_000;

/** The API server's watch cache sends a bookmark about once a minute. */
export const DEFAULT_BOOKMARK_INTERVAL_MS = 60_000;

/** What one watch asks for. */
export interface WatchRequest {
  resource: Resource;
  namespace: string | undefined;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  resourceVersion: string | undefined;
  timeoutSeconds: number | undefined;
  /** `allowWatchBookmarks=true`: send BOOKMARK events. */
  allowWatchBookmarks?: boolean;
  /** How each object is sent (e.g. as a one-row meta.k8s.io Table for `kubectl get -w`); as stored by default. */
  present?: (o: KubeObject) => object;
}

/**
 * Faults injected into the open watch streams of a simulated API server (tests of watch clients).
 * Each returns the number of streams it touched.
 */
export interface WatchFaults {
  /** Cuts every open stream's connection mid-stream (the socket is destroyed, no clean end). */
  drop(): number;
  /**
   * Makes every open stream go silent: the connection stays open but no event and no bookmark is
   * sent on it again (a hung proxy, a half-open TCP connection). New streams are not affected.
   */
  stall(): number;
  /**
   * Forgets the event history (as etcd compaction does): a watch that resumes from any version
   * older than the current one gets 410 Expired.
   */
  compact(): void;
  /** Sends a BOOKMARK now on every open stream that asked for bookmarks. */
  bookmark(): number;
  /** Open watch streams. */
  open(): number;
}

/** One store event, with the object's previous version for MODIFIED. */
interface Entry {
  event: WatchEvent;
  previous: KubeObject | undefined;
}

interface Watcher {
  req: WatchRequest;
  res: ServerResponse;
  send(entry: Entry): void;
  bookmark(): void;
  /** Stalled: sends nothing more. */
  silent: boolean;
}

/** Fans store events out to open watch streams. */
export class WatchHub {
  private readonly history: Entry[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly open = new Set<ServerResponse>();
  /** Versions up to this one were compacted away. */
  private compactedThrough = 0;

  constructor(
    private readonly store: MemoryStore,
    private readonly bookmarkIntervalMs = DEFAULT_BOOKMARK_INTERVAL_MS,
  ) {
    store.subscribeRaw((event, previous) => {
      const entry: Entry = { event, previous };
      this.history.push(entry);
      // Trimmed in batches: shifting one at a time is O(n) per write.
      if (this.history.length > 2 * HISTORY) this.history.splice(0, this.history.length - HISTORY);
      for (const w of this.watchers) w.send(entry);
    });
  }

  private selects(req: WatchRequest, resource: string, o: KubeObject): boolean {
    if (resource !== req.resource) return false;
    if (req.namespace !== undefined && o.metadata.namespace !== req.namespace) return false;
    return matchLabels(req.labels, o.metadata.labels) && matchFields(req.fields, o);
  }

  /** The event type this watch sees for an entry, or undefined when it sees nothing. */
  private typeFor(req: WatchRequest, { event, previous }: Entry): WatchEvent['type'] | undefined {
    const now = this.selects(req, event.resource, event.object);
    if (event.type !== 'MODIFIED' || !previous) return now ? event.type : undefined;
    const before = this.selects(req, event.resource, previous);
    if (now) return before ? 'MODIFIED' : 'ADDED';
    return before ? 'DELETED' : undefined;
  }

  /** The oldest version a watch can resume from (exclusive): older ones are 410 Expired. */
  private oldestResumable(): number {
    const first = this.history[0];
    const beforeHistory = first ? Number(first.event.object.metadata.resourceVersion) - 1 : Infinity;
    return Math.max(this.compactedThrough, Math.min(beforeHistory, Number(this.store.resourceVersion())));
  }

  /** Streams events for `req` on `res` until the client goes away, the timeout, or `closeAll`. */
  serve(res: ServerResponse, req: WatchRequest): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    this.open.add(res);
    const write = (type: string, object: KubeObject | object): void => {
      // A stream ended by `closeAll` or cut by `drop` may still have a bookmark timer due.
      if (res.writableEnded || res.destroyed) return;
      const shown =
        type !== 'ERROR' && type !== 'BOOKMARK' && req.present ? req.present(object as KubeObject) : object;
      res.write(JSON.stringify({ type, object: shown }) + '\n');
    };
    const rv = req.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      for (const key of this.store.sortedKeys(req.resource)) {
        const obj = this.store.peek(req.resource, key)!;
        if (this.selects(req, req.resource, obj)) write('ADDED', obj);
      }
    } else {
      const from = Number(rv);
      const oldest = this.oldestResumable();
      if (!Number.isFinite(from) || from < oldest) {
        write('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${rv} (${oldest})`,
          reason: 'Expired',
          code: 410,
        });
        res.end();
        this.open.delete(res);
        return;
      }
      for (const entry of this.history) {
        if (Number(entry.event.object.metadata.resourceVersion) <= from) continue;
        const type = this.typeFor(req, entry);
        if (type) write(type, entry.event.object);
      }
    }
    const info = resourceInfo(req.resource);
    const watcher: Watcher = {
      req,
      res,
      silent: false,
      send: (entry) => {
        if (watcher.silent) return;
        const type = this.typeFor(req, entry);
        if (type) write(type, entry.event.object);
      },
      bookmark: () => {
        if (watcher.silent || !req.allowWatchBookmarks) return;
        write('BOOKMARK', {
          kind: info.kind,
          apiVersion: groupVersion(info),
          metadata: { resourceVersion: this.store.resourceVersion() },
        });
      },
    };
    this.watchers.add(watcher);
    const bookmarks = req.allowWatchBookmarks
      ? setInterval(watcher.bookmark, this.bookmarkIntervalMs)
      : undefined;
    bookmarks?.unref();
    const stop = (): void => {
      this.watchers.delete(watcher);
      this.open.delete(res);
      if (timer) clearTimeout(timer);
      if (bookmarks) clearInterval(bookmarks);
      if (!res.writableEnded) res.end();
    };
    const timer = req.timeoutSeconds ? setTimeout(stop, req.timeoutSeconds * 1000) : undefined;
    res.on('close', stop);
  }

  /** The fault injection of this hub (see {@link WatchFaults}). */
  faults(): WatchFaults {
    return {
      drop: () => {
        const cut = [...this.open];
        for (const res of cut) res.destroy();
        return cut.length;
      },
      stall: () => {
        for (const w of this.watchers) w.silent = true;
        return this.watchers.size;
      },
      compact: () => {
        this.history.length = 0;
        this.compactedThrough = Number(this.store.resourceVersion());
      },
      bookmark: () => {
        let sent = 0;
        for (const w of this.watchers)
          if (w.req.allowWatchBookmarks && !w.silent) {
            w.bookmark();
            sent++;
          }
        return sent;
      },
      open: () => this.open.size,
    };
  }

  /** Ends every open watch stream (server shutdown). */
  closeAll(): void {
    for (const res of this.open) res.end();
    this.open.clear();
    this.watchers.clear();
  }
}
