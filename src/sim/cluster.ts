/**
 * The simulated cluster: an HTTP server on loopback that speaks the Kubernetes REST API, over an
 * in-memory store, with a clock that can run faster than real time and pluggable behaviour
 * (controllers) and extra routes (dcgm-exporter pages). Start it with {@link startSimCluster}.
 */
import { writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname as machineName, networkInterfaces } from 'node:os';
import { ADMIN_TOKEN, Authenticator } from './authn.js';
import { ScaledClock } from './clock.js';
import { GarbageCollector } from './gc.js';
import { allowedHostnames, checkHost } from './host-check.js';
import { sendError, sendJson } from './http-util.js';
import { renderKubeconfig } from './kubeconfig.js';
import { DualProtocolListener } from './listener.js';
import { ensureNamespace, listItems, loadObjects } from './load.js';
import { handleApi } from './rest.js';
import { OpenApiDocs } from './openapi.js';
import { checkNamespaceExists, RbacGate, type SimRbac } from './rbac.js';
import { MemoryStore } from './store.js';
import type { SimClock, SimController, SimStore } from './types.js';
import { selfSignedCert } from './tls-cert.js';
import { WatchHub, type WatchFaults } from './watch.js';

/**
 * An extra HTTP route: returns true when it handled the request (it must then answer it).
 * Routes are tried in order before the Kubernetes API paths.
 */
export type SimRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

/** Options of {@link startSimCluster}. */
export interface SimClusterOptions {
  /** A NodeList (`kubectl get nodes -o json`) or an array of Node objects. */
  nodes?: unknown;
  /** A PodList (`kubectl get pods -A -o json`) or an array of Pod objects. */
  pods?: unknown;
  /** Behaviour, run after writes (coalesced with setImmediate) and on clock ticks. */
  controllers?: SimController[];
  /** Extra HTTP routes (e.g. dcgm-exporter pages). */
  routes?: SimRoute[];
  /** Simulated seconds per real second (default 1). */
  speed?: number;
  /** Real milliseconds between clock ticks (default 100). */
  tickMs?: number;
  /** Listen port (default 0: a free port). */
  port?: number;
  /** Listen host (default 127.0.0.1). */
  host?: string;
  /**
   * The admin bearer token every API request must carry (`authn.ts`; the kubeconfig holds it);
   * default `gpuops-sim`. Printable ASCII without spaces.
   */
  token?: string;
  /**
   * Host names answered beside the addresses it listens on (`host-check.ts`: any other Host
   * header is refused with 403, against DNS rebinding).
   */
  allowedHosts?: string[];
  /**
   * Enforce RBAC from the Role/ClusterRole/(Cluster)RoleBinding objects in the cluster, by bearer
   * token (`rbac.ts`); default off (every request is the admin's).
   */
  rbac?: boolean;
  /** Refuse creating objects in a namespace that does not exist, as the API server does; default off. */
  namespaceLifecycle?: boolean;
  /**
   * Real seconds between BOOKMARK events on watches that ask for them (`allowWatchBookmarks=true`);
   * default 60, about what the API server's watch cache sends.
   */
  watchBookmarkSeconds?: number;
}

/** A running simulated cluster. */
export interface SimCluster {
  /** Base URL over plain HTTP, e.g. `http://127.0.0.1:40123` (curl, dcgm-exporter pages, tests). */
  url: string;
  /**
   * The same port over TLS, e.g. `https://127.0.0.1:40123`: the kubeconfig's server, as kubectl
   * sends a token only over TLS.
   */
  tlsUrl: string;
  /** The self-signed serving certificate (PEM), the kubeconfig's `certificate-authority-data`. */
  ca: string;
  /** The admin bearer token (`Authorization: Bearer <token>`) the kubeconfig holds. */
  token: string;
  /** The host names its Host check answers (lower case, IPv6 without brackets). */
  allowedHosts: string[];
  store: SimStore;
  clock: SimClock;
  /**
   * Kubeconfig YAML for this server: context "gpuops-sim" with the admin token, over TLS trusting
   * {@link SimCluster.ca}; `{ plain: true }`: over plain HTTP (`kubeconfig.ts`), for a test that
   * puts an HTTP proxy in front.
   */
  kubeconfig(opts?: { plain?: boolean }): string;
  writeKubeconfig(path: string): void;
  /**
   * API requests served (under /api, /apis and /openapi), in total, by verb, and by
   * `VERB path` (`GET /apis`, `LIST /api/v1/pods`, `WATCH /api/v1/nodes`; no query string).
   */
  requests(): { total: number; byVerb: Record<string, number>; byPath: Record<string, number> };
  /** Warnings from loading the dumps (one per item that could not be loaded). */
  loadErrors: string[];
  /** Faults injected into open watch streams: cut, silenced, history compacted, a bookmark now. */
  watchFaults: WatchFaults;
  /** With `rbac: true`: ServiceAccount tokens and the record of their requests. */
  rbac?: SimRbac;
  /** Kubeconfig YAML that authenticates with `token` (e.g. a ServiceAccount's from `rbac.issueToken`). */
  kubeconfigWithToken(token: string, namespace?: string): string;
  close(): Promise<void>;
}

/** Rounds of controller runs per trigger before giving up on reaching a fixed point. */
const MAX_ROUNDS = 10;

/**
 * Starts the simulated cluster. Nodes and pods from the dumps are loaded as given (uid,
 * timestamps, spec and status kept; resourceVersion and managedFields dropped); items that fail
 * to load are reported in `loadErrors`, the others load.
 *
 * Every request must name one of the addresses it listens on in its Host header (403 otherwise,
 * `host-check.ts`); every API request (all but `/healthz`, `/livez`, `/readyz` and the extra
 * routes, which a kube-apiserver or a dcgm-exporter serves without credentials) must carry the
 * admin token or an issued ServiceAccount token (401 otherwise, `authn.ts`).
 * @throws Error when `nodes`/`pods` are neither a List nor an array, the token is not one, or the
 *   port is taken.
 */
export async function startSimCluster(opts: SimClusterOptions = {}): Promise<SimCluster> {
  const token = opts.token ?? ADMIN_TOKEN;
  const authn = new Authenticator(token); // throws before anything starts
  const clock = new ScaledClock(opts.speed ?? 1);
  const store = new MemoryStore(() => clock.now());
  const gc = new GarbageCollector(store);
  const watch = new WatchHub(
    store,
    opts.watchBookmarkSeconds === undefined ? undefined : opts.watchBookmarkSeconds * 1000,
  );
  ensureNamespace(store, 'default');
  ensureNamespace(store, 'kube-system');
  const loadErrors = [
    ...loadObjects(store, 'nodes', listItems(opts.nodes, 'nodes'), 'nodes').errors,
    ...loadObjects(store, 'pods', listItems(opts.pods, 'pods'), 'pods').errors,
  ];
  const controllers = opts.controllers ?? [];
  const routes = opts.routes ?? [];
  const byVerb: Record<string, number> = {};
  const byPath: Record<string, number> = {};
  let total = 0;
  let scheduled = false;
  let closed = false;

  let inRound = false;
  const runControllers = (): void => {
    scheduled = false;
    if (closed || inRound) return;
    inRound = true;
    try {
      rounds();
    } finally {
      inRound = false;
    }
  };
  const rounds = (): void => {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const before = store.resourceVersion();
      gc.run();
      for (const c of controllers) {
        try {
          c.reconcile(store, clock.now());
        } catch (err) {
          process.stderr.write(
            `gpuops sim: controller ${c.name} failed: ${(err as Error).stack ?? String(err)}\n`,
          );
        }
      }
      gc.run();
      if (store.resourceVersion() === before) break;
    }
  };
  const afterWrite = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(runControllers);
  };
  // Any write from outside a controller pass (the API, a test writing to the store) schedules one.
  store.subscribeRaw(() => {
    if (!inRound) afterWrite();
  });
  clock.start(opts.tickMs ?? 100, runControllers);

  const ctx = {
    store,
    clock,
    gc,
    watch,
    afterWrite,
    openapi: new OpenApiDocs(),
    count: (verb: string, path = '') => {
      total++;
      byVerb[verb] = (byVerb[verb] ?? 0) + 1;
      const key = `${verb.toUpperCase()} ${path}`;
      byPath[key] = (byPath[key] ?? 0) + 1;
    },
  };

  const gate = opts.rbac ? new RbacGate(store, authn) : undefined;
  let allowed: ReadonlySet<string> = new Set();
  const server = new DualProtocolListener((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      try {
        checkHost(req, allowed);
        for (const route of routes) if (await route(req, res, url)) return;
        if (url.pathname === '/healthz' || url.pathname === '/readyz' || url.pathname === '/livez') {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.end('ok');
          return;
        }
        const user = authn.authenticate(req);
        gate?.check(user, req, url);
        if (opts.namespaceLifecycle) checkNamespaceExists(store, req, url);
        if (await handleApi(req, res, url, ctx)) return;
        sendJson(res, 404, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `the server could not find the requested resource (${url.pathname})`,
          reason: 'NotFound',
          code: 404,
        });
      } catch (err) {
        if (!res.headersSent) sendError(res, err);
        else res.end();
      }
    })();
  });
  let addr;
  try {
    addr = await server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1');
  } catch (err) {
    closed = true;
    clock.stop();
    throw err;
  }
  allowed = allowedHostnames({
    bound: addr.address,
    requested: opts.host,
    interfaces: Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
    hostname: machineName(),
    extra: opts.allowedHosts,
  });
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  const tlsUrl = `https://${host}:${addr.port}`;
  const cert = selfSignedCert([...allowed]);
  server.useCert(cert);
  const endpoints = { url, tlsUrl, ca: cert.cert };
  afterWrite(); // a first pass over the loaded objects (e.g. binding Pending pods)

  return {
    url,
    tlsUrl,
    ca: cert.cert,
    token,
    allowedHosts: [...allowed],
    store,
    clock,
    loadErrors,
    watchFaults: watch.faults(),
    ...(gate ? { rbac: gate } : {}),
    kubeconfig: (o) => renderKubeconfig(endpoints, 'default', token, o?.plain === true),
    kubeconfigWithToken: (other, namespace) => renderKubeconfig(endpoints, namespace, other),
    writeKubeconfig: (path: string) =>
      writeFileSync(path, renderKubeconfig(endpoints, 'default', token), { mode: 0o600 }),
    requests: () => ({ total, byVerb: { ...byVerb }, byPath: { ...byPath } }),
    close: async () => {
      closed = true;
      clock.stop();
      watch.closeAll();
      await server.close();
    },
  };
}
