/**
 * One resource of the watch-driven cluster cache, kept as client-go's Reflector keeps it: one
 * paged list, then a watch from the list's `resourceVersion`, each event applied to a map of
 * compact records (`reduce`: a few fields, never the object). The faults a watch has:
 *
 * - **410 Gone** / "too old resource version" (HTTP 410, or an `ERROR` event with code 410): the
 *   events since the cache's version are lost, so the records are no longer known to be right:
 *   `synced` turns false at once and the resource is listed again;
 * - **a stream that ends** (the server's `timeoutSeconds`, a restart): the watch resumes from the
 *   newest version seen, no list;
 * - **a stream that stalls** (no event and no bookmark for `stallSeconds`: the API server sends a
 *   bookmark about once a minute, so a live stream is never that quiet): it is aborted and the
 *   resource is listed again — a proxy or load balancer that holds streams open and forwards
 *   nothing would make every resumed stream as silent. {@link ReflectorState.lastHeardAt} says
 *   when the server was last heard (event, bookmark, list), so a reader can tell records that may
 *   lag (the cache refuses them past `stallSeconds`);
 * - **a failed connection or an HTTP error**: retried with backoff (doubling from `backoff.baseMs`
 *   to `backoff.maxMs`, as client-go's 800 ms → 30 s; back to `baseMs` after a stream that was
 *   heard from, as client-go resets its backoff after a healthy spell); the records stay `synced`
 *   (they were right at their version) but {@link ReflectorState.disconnectedSince} says since
 *   when they may lag;
 * - **BOOKMARK** events (asked for with `allowWatchBookmarks`, KEP-956) move the resume version
 *   forward without an object, so a resume after a quiet spell does not fall out of the server's
 *   history.
 *
 * Why not client-node's `ListWatch` (1.4.0): it keeps every object whole (a 99,000-pod cluster is
 * gigabytes of `V1Pod`), stops for good after any error but a 410
 * (kubernetes-client/javascript#2385), never notices a stalled stream and never asks for
 * bookmarks. This is the same loop on the same transport, with those fixed.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client.js';
import { runWatch, type WatchEnd, type WatchEventLine } from './watch-stream.js';

/** Why a watch was opened again. */
export type ReconnectReason = 'stream-ended' | 'stalled' | 'error';
/** Why a resource was listed: the first time, its resume version expired (410), or its stream went silent. */
export type RelistReason = 'initial' | 'expired' | 'stalled';

/** What a reflector knows about its own health, for metrics, the status page and the pass. */
export interface ReflectorState {
  /** e.g. `pods`. */
  resource: string;
  /**
   * True once a list has completed and no relist is due since: the records are those of a known
   * version. False before the first list ends and from a 410 until the relist ends.
   */
  synced: boolean;
  /** A watch stream is open now. */
  connected: boolean;
  /** When the watch last lost its stream without a new one yet (ms since the epoch), else null. */
  disconnectedSince: number | null;
  /** When the newest list completed (ms since the epoch), else null. */
  lastRelistAt: number | null;
  /**
   * When the server was last heard from (ms since the epoch): the newest event, bookmark or
   * completed list; null before the first list. Records may lag by at most `now - lastHeardAt`.
   */
  lastHeardAt: number | null;
  /** The version the next watch resumes from ('' before the first list). */
  resourceVersion: string;
  /** Records held. */
  objects: number;
  /** Completed lists by reason. */
  relists: Record<RelistReason, number>;
  /** Watches opened again, by reason. */
  reconnects: Record<ReconnectReason, number>;
  /** ADDED, MODIFIED and DELETED events applied (not bookmarks). */
  events: number;
  /** BOOKMARK events received. */
  bookmarks: number;
  /** The newest failure (list or watch), or null. */
  lastError: string | null;
}

/** Options of {@link Reflector}. Durations in seconds unless named otherwise. */
export interface ReflectorOptions<T> {
  kc: KubeConfig;
  /** Lists pages (`KubeClient.listPages`). */
  client: Pick<KubeClient, 'listPages'>;
  /** Plural resource name for messages and metrics, e.g. `pods`. */
  resource: string;
  /** Collection path, e.g. `/api/v1/pods`. */
  path: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** The compact record of an object; `undefined` keeps nothing for it. */
  reduce(object: unknown): T | undefined;
  /** A stream with neither an event nor a bookmark for this long is aborted and resumed; default 120. */
  stallSeconds?: number;
  /**
   * `timeoutSeconds` asked of the server for each watch; default a random value in 300–600, as
   * client-go spreads its watches so that they do not all reconnect at once.
   */
  watchTimeoutSeconds?: () => number;
  /** Backoff between failed attempts (ms); default 800 → 30,000, doubling. */
  backoff?: { baseMs: number; maxMs: number };
  /** Called after each applied event (for latency and rate figures). */
  onEvent?: (type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string) => void;
  /** Called with each failure, for the log. */
  onError?: (what: 'list' | 'watch', message: string) => void;
  /** Wall clock (ms since the epoch); default `Date.now`. */
  now?: () => number;
}

/** The storage key of an object: `namespace/name`, or `name` for cluster-scoped ones. */
export function objectKey(object: WatchEventLine['object']): string {
  const m = object.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name ?? ''}` : (m.name ?? '');
}

/**
 * Lists and watches one resource into a map of records (see the module comment). `start()`
 * begins in the background; `stop()` ends it. Records are read with {@link Reflector.records}.
 */
export class Reflector<T> {
  private map = new Map<string, T>();
  /** Keys in list order (sorted), or undefined after a key was added or removed. */
  private sorted: string[] | undefined = [];
  /** Bumped by every change to the records: a reader can tell that nothing moved. */
  private generationCount = 0;
  private readonly st: ReflectorState;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private stopped = false;
  private listing = false;
  private readonly now: () => number;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly o: ReflectorOptions<T>) {
    this.now = o.now ?? Date.now;
    this.st = {
      resource: o.resource,
      synced: false,
      connected: false,
      disconnectedSince: null,
      lastRelistAt: null,
      lastHeardAt: null,
      resourceVersion: '',
      objects: 0,
      relists: { initial: 0, expired: 0, stalled: 0 },
      reconnects: { 'stream-ended': 0, stalled: 0, error: 0 },
      events: 0,
      bookmarks: 0,
      lastError: null,
    };
  }

  /** Starts listing and watching in the background (once). */
  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Stops the watch; the records stay readable. A list in flight is not waited for (it cannot be
   * aborted): its result is dropped when it ends.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    this.wake();
    if (!this.listing) await this.loop;
  }

  /** A copy of the state. */
  state(): ReflectorState {
    return {
      ...this.st,
      objects: this.map.size,
      relists: { ...this.st.relists },
      reconnects: { ...this.st.reconnects },
    };
  }

  /** Changes applied so far: equal generations mean equal records. */
  generation(): number {
    return this.generationCount;
  }

  /** The records in list order (`namespace/name`, as the API server lists them). */
  records(): T[] {
    if (!this.sorted) this.sorted = [...this.map.keys()].sort();
    const out = new Array<T>(this.sorted.length);
    for (let i = 0; i < this.sorted.length; i++) out[i] = this.map.get(this.sorted[i]!)!;
    return out;
  }

  /** The record of one key, if held. */
  get(key: string): T | undefined {
    return this.map.get(key);
  }

  /** Resolves once `synced` is true (or the reflector stopped). */
  async synced(): Promise<void> {
    while (!this.st.synced && !this.stopped) await new Promise<void>((r) => this.waiters.add(r));
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
    this.waiters.clear();
  }

  private async run(): Promise<void> {
    let needList: RelistReason | null = 'initial';
    let failures = 0;
    while (!this.stopped) {
      if (needList) {
        try {
          await this.list();
          this.st.relists[needList]++;
          needList = null;
          failures = 0;
        } catch (err) {
          this.fail('list', err instanceof Error ? err.message : String(err));
          await this.backoff(++failures);
          continue;
        }
      }
      const opened = this.now();
      const { end, heard } = await this.watchOnce();
      if (this.stopped || end.kind === 'aborted') continue;
      this.st.connected = false;
      this.st.disconnectedSince ??= this.now();
      // A stream that was heard from was healthy: the next failure starts the backoff afresh.
      if (heard) failures = 0;
      if (end.kind === 'expired') {
        this.st.synced = false;
        needList = 'expired';
        this.st.lastError = `watch ${this.o.resource}: ${end.message}`;
        continue;
      }
      if (end.kind === 'stalled') {
        // Resuming through whatever silenced the stream would be as silent: list, which proves
        // the records current (or fails and backs off, and the records age past the bound).
        this.st.reconnects.stalled++;
        this.st.lastError = `watch ${this.o.resource}: no event and no bookmark for ${this.o.stallSeconds ?? 120} s`;
        needList = 'stalled';
        continue;
      }
      if (end.kind === 'ended') {
        this.st.reconnects['stream-ended']++;
        // A server that ends every stream at once would make this spin: back off then.
        if (!heard && this.now() - opened < 1000) await this.backoff(++failures);
        else failures = 0;
        continue;
      }
      this.st.reconnects.error++;
      this.fail('watch', end.message);
      await this.backoff(++failures);
    }
  }

  private fail(what: 'list' | 'watch', message: string): void {
    this.st.lastError = `${what} ${this.o.resource}: ${message}`;
    this.o.onError?.(what, message);
  }

  /** Lists every page into a new map and swaps it in at once (as client-go's `Replace`). */
  private async list(): Promise<void> {
    let next = new Map<string, T>();
    this.listing = true;
    const { resourceVersion } = await this.o.client
      .listPages(
        `list ${this.o.resource}`,
        this.o.path,
        {
          page: (items) => {
            for (const item of items) {
              const record = this.o.reduce(item);
              if (record !== undefined) next.set(objectKey(item as WatchEventLine['object']), record);
            }
          },
          restart: () => (next = new Map()),
        },
        {
          ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
          ...(this.o.fieldSelector ? { fieldSelector: this.o.fieldSelector } : {}),
        },
      )
      .finally(() => (this.listing = false));
    if (this.stopped) return;
    this.map = next;
    this.sorted = undefined;
    this.generationCount++;
    this.st.resourceVersion = resourceVersion;
    this.st.lastRelistAt = this.st.lastHeardAt = this.now();
    this.st.synced = true;
    this.wake();
  }

  /** One watch request from the current version, with the stall timer; how it ended. */
  private async watchOnce(): Promise<{ end: WatchEnd | { kind: 'stalled' }; heard: boolean }> {
    const abort = (this.abort = new AbortController());
    const stallMs = (this.o.stallSeconds ?? 120) * 1000;
    let stalled = false;
    let heard = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled = true;
        abort.abort();
      }, stallMs);
    };
    arm(); // covers the wait for the response headers too
    const timeout = this.o.watchTimeoutSeconds?.() ?? 300 + Math.floor(Math.random() * 300);
    const end = await runWatch(
      this.o.kc,
      this.o.path,
      {
        resourceVersion: this.st.resourceVersion,
        timeoutSeconds: timeout,
        ...(this.o.labelSelector ? { labelSelector: this.o.labelSelector } : {}),
        ...(this.o.fieldSelector ? { fieldSelector: this.o.fieldSelector } : {}),
      },
      {
        onOpen: () => {
          this.st.connected = true;
          this.st.disconnectedSince = null;
          arm();
        },
        onEvent: (e) => {
          heard = true;
          arm();
          this.apply(e);
        },
      },
      abort.signal,
    );
    clearTimeout(timer);
    this.abort = undefined;
    return { end: stalled && end.kind === 'aborted' ? { kind: 'stalled' } : end, heard };
  }

  private apply(e: WatchEventLine): void {
    this.st.lastHeardAt = this.now();
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') {
      this.st.bookmarks++;
      if (rv) this.st.resourceVersion = rv;
      return;
    }
    if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return;
    const key = objectKey(e.object);
    if (e.type === 'DELETED') {
      if (this.map.delete(key)) this.sorted = undefined;
    } else {
      const record = this.o.reduce(e.object);
      const had = this.map.has(key);
      if (record === undefined) {
        if (had) this.map.delete(key);
        this.sorted = had ? undefined : this.sorted;
      } else {
        this.map.set(key, record);
        if (!had) this.sorted = undefined;
      }
    }
    this.generationCount++;
    this.st.events++;
    if (rv) this.st.resourceVersion = rv;
    this.o.onEvent?.(e.type, key);
  }

  private async backoff(failures: number): Promise<void> {
    const { baseMs, maxMs } = this.o.backoff ?? { baseMs: 800, maxMs: 30_000 };
    const ms = Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1));
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      this.waiters.add(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
