/**
 * The reconcile bench's Prometheus: a local HTTP server answering `/api/v1/query` from one set of
 * canned per-GPU series (an `avg` and a `last` sample each, labelled as dcgm-exporter scraped by a
 * ServiceMonitor labels them), honouring the two things gpuops's scoped query asks of the server
 * (`utilizationQuery` with namespaces; the real Prometheus behaviour is tested in
 * `test/metrics/prometheus-scope.test.ts`):
 * - `exported_namespace=~"a|b"`: only series whose workload namespace is one of those (the page's
 *   namespace when Prometheus renamed it, else the target's own);
 * - `max by (labels…)`: only those labels on each series.
 * Any other query gets every series with all its labels (the unscoped query). Each distinct query's
 * answer is built once; the server counts requests, the bytes it sent and the time it spent answering.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One GPU's series: its labels (no empty values: Prometheus drops them) and value (percent). */
export interface CannedGpu {
  labels: Record<string, string>;
  value: number;
}

/** A running fake Prometheus. */
export interface FleetPrometheus {
  server: Server;
  url: string;
  /** Requests answered. */
  count(): number;
  /** Bytes of answers sent, in all. */
  bytes(): number;
  /**
   * Milliseconds this process spent answering, in all: from a request's last byte in to its
   * answer handed to the socket (rendering the answer when it is not built yet, and the
   * synchronous part of sending it). Its share of a pass's `metrics.read`, which a real
   * Prometheus spends on its own machine; the rest of the send is the kernel's and the reader's.
   */
  answerMs(): number;
  /**
   * Moves every GPU's value a little (issue 42's steady pass): ±`step` points, alternating by GPU
   * and by call, within 0..100, so every series differs from the last answer and no mean moves far.
   * `evaluatedAt` (seconds): the time the answers are evaluated at from now on, as a real
   * Prometheus's moves with its clock (each sample's time with it); absent: the time stays.
   */
  move(step: number, evaluatedAt?: number): void;
  /** Sets the value of every GPU whose workload pod (`exported_namespace/exported_pod`) is in `pods`. */
  set(pods: ReadonlySet<string>, value: number): void;
}

/** The answer text to `query` (see the module comment); `evaluatedAt` in seconds. */
export function answerFor(gpus: readonly CannedGpu[], query: string, evaluatedAt: number): string {
  const scope = /exported_namespace=~"([^"]*)"/.exec(query)?.[1];
  const namespaces = scope === undefined ? null : new Set(scope.split('|'));
  const by = /max by \(([^)]*)\)/.exec(query)?.[1];
  const keep = by === undefined ? null : by.split(',').map((l) => l.trim());
  const result: { metric: Record<string, string>; value: [number, string] }[] = [];
  for (const g of gpus) {
    const l = g.labels;
    if (namespaces && !namespaces.has(l.exported_namespace ?? (l.namespace as string))) continue;
    let metric: Record<string, string> = l;
    if (keep) {
      metric = {};
      for (const k of keep) if (l[k] !== undefined) metric[k] = l[k];
    }
    // Sorted by name, as Prometheus answers.
    const sorted = Object.fromEntries(Object.entries(metric).sort(([a], [b]) => (a < b ? -1 : 1)));
    result.push({ metric: { ...sorted, gpuops_stat: 'avg' }, value: [evaluatedAt, g.value.toFixed(2)] });
    result.push({
      metric: { ...sorted, gpuops_stat: 'last' },
      value: [evaluatedAt, String(evaluatedAt - 10)],
    });
  }
  return JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
}

/** Reads the PromQL of a GET (`?query=`) or form POST (`query=`) request. */
function queryOf(url: URL, body: string): string {
  return url.searchParams.get('query') ?? new URLSearchParams(body).get('query') ?? '';
}

/** Starts the fake on a free loopback port. */
export async function serveFleetPrometheus(
  gpus: readonly CannedGpu[],
  startsAt: number,
): Promise<FleetPrometheus> {
  let evaluatedAt = startsAt;
  let count = 0;
  let bytes = 0;
  let answerMs = 0;
  const answers = new Map<string, string>();
  let current: CannedGpu[] = [...gpus];
  let moves = 0;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const t0 = performance.now();
      if (url.pathname !== '/api/v1/query') {
        res.writeHead(404).end();
        return;
      }
      count++;
      const query = queryOf(url, body);
      let answer = answers.get(query);
      if (answer === undefined) answers.set(query, (answer = answerFor(current, query, evaluatedAt)));
      bytes += Buffer.byteLength(answer);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
      answerMs += performance.now() - t0;
    });
  });
  // Passes come ~5 s apart, Node's default keep-alive timeout: the server closing the idle socket
  // as the next pass reuses it lost that pass's reading (PrometheusSource does not retry a reset).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    count: () => count,
    bytes: () => bytes,
    answerMs: () => answerMs,
    move: (step, at) => {
      moves++;
      if (at !== undefined) evaluatedAt = at;
      const clamp = (v: number) => Math.min(100, Math.max(0, v));
      current = current.map((g, i) => ({ ...g, value: clamp(g.value + ((i + moves) % 2 ? step : -step)) }));
      answers.clear();
    },
    set: (pods, value) => {
      current = current.map((g) =>
        pods.has(`${g.labels.exported_namespace}/${g.labels.exported_pod}`) ? { ...g, value } : g,
      );
      answers.clear();
    },
  };
}
