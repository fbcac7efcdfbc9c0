/**
 * HTTP routes of the simulated dcgm-exporters, for the simulated API server's `routes`:
 *
 * - `GET /dcgm/<node>/metrics` — the node's dcgm-exporter page at the clock's `now`
 *   (`text/plain; version=0.0.4`); 404 for an unknown node or a node without GPUs.
 * - `GET /dcgm/service/metrics` — the per-pod service metric of every batching service
 *   (`gpuops_sim_requests_waiting{namespace, pod}`, requests waiting; `LoadModel.setBatching`), as
 *   a vLLM server exports its queue, for the `serviceMetric` signal;
 * - `GET /dcgm/targets` — Prometheus HTTP service discovery (`http_sd_configs`): one target
 *   group per GPU node with `__metrics_path__` = `/dcgm/<node>/metrics` and a `node` label, so
 *   one Prometheus job scrapes every simulated exporter.
 *
 * Store and clock are read through `cluster()` at request time, so the route can be made before
 * `startSimCluster` returns:
 * `let sim; const dcgm = dcgmRoute(() => sim, load); sim = await startSimCluster({ routes: [dcgm] })`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LoadModel } from '../load-model.js';
import { nodeGpuCount } from '../controllers/kubelet.js';
import { readAll } from '../controllers/read.js';
import { DcgmPages, PAGE_CONTENT_TYPE, PAGE_PATH, type ClusterSource } from './pages.js';

export type { ClusterSource } from './pages.js';

function send(res: ServerResponse, code: number, type: string, body: string): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * The route (a `SimRoute`): true when it answered the request. `pages` renders the node pages
 * (given: shared with an in-process reader, `inProcessDcgmFetch`).
 */
export function dcgmRoute(
  cluster: ClusterSource,
  load: LoadModel,
  pages: DcgmPages = new DcgmPages(cluster, load),
): (req: IncomingMessage, res: ServerResponse, url: URL) => boolean {
  return (req, res, url) => {
    if (!url.pathname.startsWith('/dcgm/')) return false;
    const c = cluster();
    if (!c) {
      send(res, 503, 'text/plain; charset=utf-8', 'simulated cluster is starting\n');
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain; charset=utf-8', `method ${req.method} not allowed\n`);
      return true;
    }
    if (url.pathname === '/dcgm/targets') {
      const host = req.headers.host ?? 'localhost';
      const groups = c.store
        .list('nodes')
        .filter((n) => nodeGpuCount(n) > 0)
        .map((n) => ({
          targets: [host],
          labels: { __metrics_path__: `/dcgm/${n.metadata.name}/metrics`, node: n.metadata.name },
        }));
      send(res, 200, 'application/json', JSON.stringify(groups));
      return true;
    }
    if (url.pathname === '/dcgm/service/metrics') {
      const waiting = load.requestsWaiting(readAll(c.store, 'pods'), c.clock.now());
      const lines = ['# HELP gpuops_sim_requests_waiting Requests waiting in the batch queue.'];
      lines.push('# TYPE gpuops_sim_requests_waiting gauge');
      for (const [key, v] of [...waiting].sort(([a], [b]) => (a < b ? -1 : 1))) {
        const [ns, pod] = key.split('/');
        lines.push(`gpuops_sim_requests_waiting{namespace="${ns}",pod="${pod}"} ${v}`);
      }
      send(res, 200, 'text/plain; version=0.0.4; charset=utf-8', `${lines.join('\n')}\n`);
      return true;
    }
    const m = PAGE_PATH.exec(url.pathname);
    const page = m ? pages.page(decodeURIComponent(m[1]!)) : undefined;
    if (page === undefined || page === 'starting') {
      send(res, 404, 'text/plain; charset=utf-8', `no dcgm-exporter at ${url.pathname}\n`);
      return true;
    }
    send(res, 200, PAGE_CONTENT_TYPE, req.method === 'HEAD' ? '' : page);
    return true;
  };
}
