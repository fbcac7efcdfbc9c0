import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** What the health server asks the controller. */
export interface HealthState {
  /** Liveness: the process and its loop are alive (and, for a leader, its passes not all failing). */
  live(): boolean;
  /** Why it is not live, for the 503 body; absent or null: no detail. */
  liveProblem?(): string | null;
  /** Readiness: settings loaded and the last pass (if leader) did not fail. */
  ready(): boolean;
}

/** The status page in its two forms; each call reads afresh. */
export interface StatusPages {
  /** The page's HTML (`/`, `/status`). */
  html(): Promise<string>;
  /** The page's view model as JSON (`/status.json`: what `gpuops status --controller-url` reads). */
  json(): Promise<string>;
}

/**
 * Serves `/healthz` (liveness), `/readyz` (readiness) and `/metrics` (Prometheus text format),
 * the endpoints a Kubernetes Deployment's probes and a Prometheus scrape expect, and, when
 * `statusPage` is given, the read-only status page at `/` and its view model at `/status.json`
 * (GET and HEAD only; they read the database and the controller's own state, never the cluster).
 * @param port TCP port; 0 picks a free one (see the returned `port`)
 * @param statusPage renders the page; a rejection answers 500 with the error's message
 */
export async function startHealthServer(
  state: HealthState,
  registry: Registry,
  port: number,
  host = '0.0.0.0',
  statusPage?: StatusPages,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const page =
      path === '/' || path === '/status'
        ? { render: statusPage?.html, type: 'text/html; charset=utf-8' }
        : path === '/status.json'
          ? { render: statusPage?.json, type: 'application/json' }
          : null;
    if (page?.render) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
        return;
      }
      page
        .render()
        .then((body) =>
          res
            .writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' })
            .end(req.method === 'HEAD' ? undefined : body),
        )
        .catch((err: unknown) =>
          res
            .writeHead(500, { 'content-type': 'text/plain' })
            .end(`status page: ${err instanceof Error ? err.message : String(err)}\n`),
        );
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      const ok = path === '/healthz' ? state.live() : state.ready();
      const why = path === '/healthz' && !ok ? state.liveProblem?.() : null;
      const body = ok ? 'ok\n' : why ? `not live: ${why}\n` : 'not ready\n';
      res.writeHead(ok ? 200 : 503, { 'content-type': 'text/plain' }).end(body);
      return;
    }
    if (path === '/metrics') {
      registry
        .metrics()
        .then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text))
        .catch((err: unknown) => res.writeHead(500).end(String(err)));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
