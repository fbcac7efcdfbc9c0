/**
 * `?watch=true` on list endpoints: a chunked stream of JSON lines `{"type":..., "object":...}`,
 * as the API server sends it. Without `resourceVersion` (or with "0") the stream starts with an
 * ADDED event per existing object; with one, it replays the events after it from a bounded
 * history (the last 5,000 to 10,000 events), or sends an ERROR event with a 410 `Status`
 * (reason Expired) when that version is too old.
 * As the API server's watch cache does, a MODIFIED object that enters the selection is sent as
 * ADDED and one that leaves it as DELETED.
 */
import type { ServerResponse } from 'node:http';
import type { FieldRequirement, LabelRequirement } from './selectors.js';
import { matchFields, matchLabels } from './selectors.js';
import type { MemoryStore } from './store.js';
import type { KubeObject, Resource, WatchEvent } from './types.js';

/** How many past events are kept for watches that resume from a resourceVersion. */
const HISTORY = 5_000;

/** What one watch asks for. */
export interface WatchRequest {
  resource: Resource;
  namespace: string | undefined;
  labels: LabelRequirement[];
  fields: FieldRequirement[];
  resourceVersion: string | undefined;
  timeoutSeconds: number | undefined;
  /** How each object is sent (e.g. as a one-row meta.k8s.io Table for `kubectl get -w`); as stored by default. */
  present?: (o: KubeObject) => object;
}

/** One store event, with the object's previous version for MODIFIED. */
interface Entry {
  event: WatchEvent;
  previous: KubeObject | undefined;
}

interface Watcher {
  req: WatchRequest;
  send(entry: Entry): void;
}

/** Fans store events out to open watch streams. */
export class WatchHub {
  private readonly history: Entry[] = [];
  private readonly watchers = new Set<Watcher>();
  private readonly open = new Set<ServerResponse>();

  constructor(private readonly store: MemoryStore) {
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

  /** Streams events for `req` on `res` until the client goes away, the timeout, or `closeAll`. */
  serve(res: ServerResponse, req: WatchRequest): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    this.open.add(res);
    const write = (type: string, object: KubeObject | object): void => {
      const shown = type !== 'ERROR' && req.present ? req.present(object as KubeObject) : object;
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
      const oldest =
        this.history.length > 0 ? Number(this.history[0]!.event.object.metadata.resourceVersion) : Infinity;
      if (!Number.isFinite(from) || (from + 1 < oldest && from < Number(this.store.resourceVersion()))) {
        write('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${rv} (${oldest - 1})`,
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
    const watcher: Watcher = {
      req,
      send: (entry) => {
        const type = this.typeFor(req, entry);
        if (type) write(type, entry.event.object);
      },
    };
    this.watchers.add(watcher);
    const stop = (): void => {
      this.watchers.delete(watcher);
      this.open.delete(res);
      if (timer) clearTimeout(timer);
      if (!res.writableEnded) res.end();
    };
    const timer = req.timeoutSeconds ? setTimeout(stop, req.timeoutSeconds * 1000) : undefined;
    res.on('close', stop);
  }

  /** Ends every open watch stream (server shutdown). */
  closeAll(): void {
    for (const res of this.open) res.end();
    this.open.clear();
    this.watchers.clear();
  }
}
