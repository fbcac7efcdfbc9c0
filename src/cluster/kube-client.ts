/**
 * The Kubernetes adapter: the only module that imports `@kubernetes/client-node` for Nodes and
 * Pods. Lists page by page (`limit` / `continue`), retries transient failures with backoff, and
 * reports the others naming the resource.
 *
 * Node and Pod pages are fetched as plain JSON (the client library's own transport, `node-fetch`
 * with `KubeConfig.applyToFetchOptions`, as its `Watch` does) instead of through the generated
 * `CoreV1Api`: turning 20,000 pods into class instances cost about a second and a few hundred MB
 * per snapshot, and a snapshot reads a handful of fields.
 */
import http from 'node:http';
import https from 'node:https';
import { ApiException, AutoscalingV2Api, KubeConfig } from '@kubernetes/client-node';
import type { V1Node, V1Pod, V1ReplicaSet, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
// The client library's HTTP transport (its dependency), used the way its `Watch` uses it.
import fetch from 'node-fetch';
import { retry as withRetry } from '../retry/index.js';
import { classifyKubeError, KubeApiError, toKubeApiError } from './kube-errors.js';

/** Page size of list calls (objects per call). */
export const DEFAULT_PAGE_SIZE = 500;

export { KubeApiError } from './kube-errors.js';

/** Retry of transient failures: `attempts` tries in all, waits doubling from `baseDelayMs` up to `maxDelayMs`. */
export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Options of {@link createKubeClient}. */
export interface KubeClientOptions {
  /** Objects per list call (default {@link DEFAULT_PAGE_SIZE}). */
  pageSize?: number;
  retry?: Partial<RetryOptions>;
  /** How to wait between retries (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** Options of one list call. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** What gpuops reads from a cluster. */
export interface KubeClient {
  /**
   * Every Node, page by page, as the API server sends it (plain JSON, as `kubectl get -o json`
   * prints it: timestamps are RFC 3339 strings, not `Date`s). @throws KubeApiError
   */
  listNodes(opts?: ListOptions): Promise<V1Node[]>;
  /**
   * Every Pod of every namespace, page by page, as the API server sends it (plain JSON, as
   * `kubectl get -o json` prints it: timestamps are RFC 3339 strings). @throws KubeApiError
   */
  listPods(opts?: ListOptions): Promise<V1Pod[]>;
  /**
   * Every Pod of every namespace, handed to `sink` page by page as each arrives and kept nowhere:
   * memory stays bounded by a page however large the cluster (`listPods` holds them all). Same
   * paging, retries and errors as `listPods`; after an expired `continue` token restarts the list,
   * `sink.restart()` comes first and the pages come again. Optional: a client without it is read
   * with `listPods`. @throws KubeApiError
   */
  streamPods?(sink: PageSink<V1Pod>, opts?: ListOptions): Promise<void>;
  /**
   * Every apps/v1 ReplicaSet of every namespace, page by page (plain JSON): which Deployment owns
   * which pods (Pod → ReplicaSet → Deployment), and at which revision. @throws KubeApiError
   */
  listReplicaSets(opts?: ListOptions): Promise<V1ReplicaSet[]>;
  /** Every autoscaling/v2 HorizontalPodAutoscaler of every namespace, page by page. @throws KubeApiError */
  listHorizontalPodAutoscalers(opts?: ListOptions): Promise<V2HorizontalPodAutoscaler[]>;
  /**
   * Any collection (`/api/v1/nodes`, `/apis/autoscaling/v2/horizontalpodautoscalers`) as plain JSON,
   * handed to `sink` page by page as `listPods` pages are; resolves with the list's
   * `metadata.resourceVersion` (the version a watch resumes from). `operation` names the list in
   * errors (`list pods`). @throws KubeApiError
   */
  listPages(
    operation: string,
    apiPath: string,
    sink: PageSink<unknown>,
    opts?: ListOptions,
  ): Promise<{ resourceVersion: string }>;
}

/** Receives a list page by page (see {@link KubeClient.streamPods}). */
export interface PageSink<T> {
  page(items: T[]): void;
  /** The list restarts from its beginning: forget the pages received so far. */
  restart(): void;
}

interface Page<T> {
  items: T[];
  metadata?: { _continue?: string; resourceVersion?: string };
}

type Call = <T>(operation: string, fn: () => Promise<T>) => Promise<T>;
type PageFn<T> = (cont: string | undefined, agents?: PageAgents) => Promise<Page<T>>;

/**
 * A call of the API server retried on transient failures with exponential backoff (no jitter,
 * `Retry-After` on 429 honoured up to `maxDelayMs`). @throws KubeApiError naming the operation.
 */
function retriedCall(retry: RetryOptions, sleep: KubeClientOptions['sleep']): Call {
  return async <T>(operation: string, fn: () => Promise<T>): Promise<T> => {
    let attempts = 0;
    try {
      return await withRetry(
        (attempt) => {
          attempts = attempt;
          return fn();
        },
        {
          attempts: retry.attempts,
          backoff: { baseMs: retry.baseDelayMs, maxMs: retry.maxDelayMs },
          random: () => 1, // no jitter: one reader, waits doubling exactly
          retryable: (err) => classifyKubeError(err).kind === 'transient',
          // Retry-After (429) lengthens the wait, never beyond maxDelayMs.
          waitMs: (err, _attempt, backoffMs) =>
            Math.min(retry.maxDelayMs, Math.max(backoffMs, classifyKubeError(err).retryAfterMs ?? 0)),
          ...(sleep ? { sleep } : {}),
        },
      );
    } catch (err) {
      throw toKubeApiError(operation, err, attempts);
    }
  };
}

/**
 * Pages of one list into `sink`, over one set of kept-alive agents; resolves with the list's
 * resourceVersion (its first page's). An expired `continue` token (410) restarts the list once.
 */
async function eachListPage<T>(
  call: Call,
  operation: string,
  page: PageFn<T>,
  sink: PageSink<T>,
): Promise<string> {
  const agents = new PageAgents();
  try {
    for (let restart = 0; ; restart++) {
      if (restart > 0) sink.restart();
      let cont: string | undefined;
      let resourceVersion: string | undefined;
      try {
        do {
          const p = await call(operation, () => page(cont, agents));
          resourceVersion ??= p.metadata?.resourceVersion ?? '';
          sink.page(p.items ?? []);
          cont = p.metadata?._continue || undefined;
        } while (cont);
        return resourceVersion;
      } catch (err) {
        if (err instanceof KubeApiError && err.kind === 'gone' && restart === 0) continue;
        throw err;
      }
    }
  } finally {
    agents.close();
  }
}

/** Every item of one list (see {@link eachListPage}). */
async function listAllPages<T>(call: Call, operation: string, page: PageFn<T>): Promise<T[]> {
  let items: T[] = [];
  await eachListPage(call, operation, page, {
    page: (more) => {
      for (const item of more) items.push(item);
    },
    restart: () => (items = []),
  });
  return items;
}

/**
 * Builds the adapter on a loaded kubeconfig. A list makes ⌈objects / pageSize⌉ calls, never one
 * per object. Transient failures (`kube-errors.ts`: HTTP 429, 5xx but 501, connection
 * reset/refused/timed out) are retried with exponential backoff (honouring `Retry-After` on 429); an expired `continue` token (HTTP 410)
 * restarts the list once from the beginning, as client-go's pager does. Anything else fails at
 * once with a {@link KubeApiError} naming the operation.
 */
export function createKubeClient(kc: KubeConfig, options: KubeClientOptions = {}): KubeClient {
  const autoscaling = kc.makeApiClient(AutoscalingV2Api);
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const retry: RetryOptions = { attempts: 5, baseDelayMs: 200, maxDelayMs: 5000, ...options.retry };

  const call = retriedCall(retry, options.sleep);
  const listAll = <T>(operation: string, page: PageFn<T>) => listAllPages(call, operation, page);
  const eachPage = <T>(operation: string, page: PageFn<T>, sink: PageSink<T>) =>
    eachListPage(call, operation, page, sink);

  const podPage = (opts: ListOptions) => (cont: string | undefined, agents?: PageAgents) =>
    getPage<V1Pod>(kc, '/api/v1/pods', pageSize, cont, opts, agents);

  return {
    listNodes: (opts = {}) =>
      listAll('list nodes', (cont, agents) =>
        getPage<V1Node>(kc, '/api/v1/nodes', pageSize, cont, opts, agents),
      ),
    listPods: (opts = {}) => listAll('list pods', podPage(opts)),
    streamPods: async (sink, opts = {}) => {
      await eachPage('list pods', podPage(opts), sink);
    },
    listReplicaSets: (opts = {}) =>
      listAll('list replicasets', (cont, agents) =>
        getPage<V1ReplicaSet>(kc, '/apis/apps/v1/replicasets', pageSize, cont, opts, agents),
      ),
    listPages: async (operation, apiPath, sink, opts = {}) => ({
      resourceVersion: await eachPage(
        operation,
        (cont, agents) => getPage<unknown>(kc, apiPath, pageSize, cont, opts, agents),
        sink,
      ),
    }),
    listHorizontalPodAutoscalers: (opts = {}) =>
      listAll('list horizontalpodautoscalers', (cont) =>
        autoscaling.listHorizontalPodAutoscalerForAllNamespaces({
          limit: pageSize,
          _continue: cont,
          ...selectors(opts),
        }),
      ),
  };
}

/**
 * The HTTP agents of one list call: its pages go over one kept-alive connection instead of a new
 * connection (and TLS handshake) per page, as `applyToFetchOptions` gives a new agent that does
 * not keep connections alive each time. A page's agent is reused only when its TLS settings
 * (CA, client certificate and key, server name, verification) are those of the previous page, so
 * rotated credentials take effect at once; proxy agents (a `proxy-url` in the kubeconfig) are used
 * as given. `close` ends the kept connections; call it when the list is done.
 */
export class PageAgents {
  private kept: { key: string; agent: http.Agent } | undefined;

  /** The agent to send a page with, given the one `applyToFetchOptions` made for it. */
  pick(given: unknown): unknown {
    const Plain = given instanceof http.Agent ? given.constructor : undefined;
    if (Plain !== http.Agent && Plain !== https.Agent) return given;
    const options = (given as http.Agent & { options: Record<string, unknown> }).options;
    const key = JSON.stringify([Plain === https.Agent, options]);
    if (this.kept?.key !== key) {
      this.kept?.agent.destroy();
      const Agent = Plain as typeof http.Agent;
      this.kept = { key, agent: new Agent({ ...options, keepAlive: true, maxSockets: 1 }) };
    }
    return this.kept.agent;
  }

  close(): void {
    this.kept?.agent.destroy();
    this.kept = undefined;
  }
}

/**
 * One page of a list (`GET path?limit=&continue=&fieldSelector=&labelSelector=`) as plain
 * JSON, over `agents`' kept-alive connection when given. Fails as the generated client does, so
 * retries and reports stay the same: an {@link ApiException} carrying the status, body text and
 * headers for an HTTP error, the transport's error (`FetchError` with the system `code`) for a
 * network one.
 */
async function getPage<T>(
  kc: KubeConfig,
  apiPath: string,
  limit: number,
  cont: string | undefined,
  opts: ListOptions,
  agents?: PageAgents,
): Promise<Page<T>> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('No active cluster!');
  const url = new URL(cluster.server + apiPath);
  url.searchParams.set('limit', String(limit));
  if (cont) url.searchParams.set('continue', cont);
  const sel = selectors(opts);
  if (sel.fieldSelector) url.searchParams.set('fieldSelector', sel.fieldSelector);
  if (sel.labelSelector) url.searchParams.set('labelSelector', sel.labelSelector);
  // Adds credentials (token, client certificate, exec plugin) and the TLS / proxy agent.
  const init = await kc.applyToFetchOptions({ method: 'GET', headers: { Accept: 'application/json' } });
  if (agents) init.agent = agents.pick(init.agent) as typeof init.agent;
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status < 200 || res.status > 299) {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => (headers[name] = value));
    throw new ApiException(res.status, `HTTP ${res.status}`, text, headers);
  }
  const list = JSON.parse(text) as {
    items?: T[];
    metadata?: { continue?: string; resourceVersion?: string };
  };
  return {
    items: list.items ?? [],
    metadata: { _continue: list.metadata?.continue, resourceVersion: list.metadata?.resourceVersion },
  };
}

function selectors(opts: ListOptions): ListOptions {
  const out: ListOptions = {};
  if (opts.labelSelector) out.labelSelector = opts.labelSelector;
  if (opts.fieldSelector) out.fieldSelector = opts.fieldSelector;
  return out;
}
