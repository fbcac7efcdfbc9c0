/**
 * dcgm-exporter pages for the local cluster's GPU nodes, drawn by the simulator's load model
 * (src/sim/load-model.ts: an algorithm's offered load spread over its serving pods' GPUs, 95 % for
 * a benchmark Job's pod, 70 % for a workload gpuops does not manage) from the pods the real API
 * server reports, in the exporter's own text format (src/sim/dcgm/page.ts). One loopback HTTP
 * server answers for every node, as the simulator's route does:
 * - `GET /dcgm/<node>/metrics`: the node's page (404 for an unknown node or one without GPUs);
 * - `GET /dcgm/targets`: Prometheus HTTP service discovery, one target per GPU node with
 *   `__metrics_path__` and a `node` label.
 * Nodes and pods are listed from the API server at most once a second (one list serves a
 * Prometheus round over every node).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeGpuCount, dcgmGpus, formatDcgmPage } from '../sim/index.js';
import type { LoadModel, KubeObject } from '../sim/index.js';
import { httpsGet } from './control-plane.js';

/** Where the pages read the cluster: the API server's URL, its CA and a token that may list nodes and pods. */
export interface ApiAccess {
  server: string;
  ca: string;
  token: string;
}

/** The running pages. */
export interface DcgmExporters {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** `127.0.0.1:PORT`, for a scrape target. */
  address: string;
  close(): Promise<void>;
}

async function listItems(api: ApiAccess, path: string): Promise<KubeObject[]> {
  const res = await httpsGet(`${api.server}${path}`, api.ca, api.token);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 200)}`);
  return (JSON.parse(res.body) as { items: KubeObject[] }).items;
}

function send(res: ServerResponse, code: number, type: string, body: string): void {
  res.writeHead(code, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Starts the pages on 127.0.0.1:`port` (0: any free port); `now` is the load model's clock. */
export async function startDcgmExporters(
  api: ApiAccess,
  load: LoadModel,
  now: () => Date = () => new Date(),
  port = 0,
): Promise<DcgmExporters> {
  let cache: { at: number; nodes: KubeObject[]; pods: KubeObject[] } | undefined;
  const state = async () => {
    if (!cache || Date.now() - cache.at >= 1000) {
      const [nodes, pods] = await Promise.all([
        listItems(api, '/api/v1/nodes'),
        listItems(api, '/api/v1/pods'),
      ]);
      cache = { at: Date.now(), nodes, pods };
    }
    return cache;
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const { nodes, pods } = await state();
    if (url.pathname === '/dcgm/targets') {
      const host = req.headers.host ?? '127.0.0.1';
      const groups = nodes
        .filter((n) => nodeGpuCount(n) > 0)
        .map((n) => ({
          targets: [host],
          labels: { __metrics_path__: `/dcgm/${n.metadata.name}/metrics`, node: n.metadata.name },
        }));
      send(res, 200, 'application/json', JSON.stringify(groups));
      return;
    }
    const m = /^\/dcgm\/([^/]+)\/metrics$/.exec(url.pathname);
    const node = m ? nodes.find((n) => n.metadata.name === decodeURIComponent(m[1]!)) : undefined;
    if (!node || nodeGpuCount(node) === 0) {
      send(res, 404, 'text/plain; charset=utf-8', `no dcgm-exporter at ${url.pathname}\n`);
      return;
    }
    send(
      res,
      200,
      'text/plain; version=0.0.4; charset=utf-8',
      formatDcgmPage(dcgmGpus(node, pods, load, now())),
    );
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) =>
      send(res, 503, 'text/plain; charset=utf-8', `cannot read the cluster: ${(err as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${address}`,
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
