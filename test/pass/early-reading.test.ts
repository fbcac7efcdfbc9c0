/**
 * The pass's utilisation read started beside the specs read (`src/pass/early-reading.ts`), read
 * through `readWorld` on a real loopback HTTP server that answers `/api/v1/query` as Prometheus
 * does and counts the requests (as the bench's fake does): each series it answers carries the
 * number of the request it answers (`answer`), so a test sees which request's answer a pass used.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterSource } from '../../src/cluster/source.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy } from '../../src/definitions/index.js';
import { PrometheusSource } from '../../src/metrics/prometheus.js';
import type { UtilizationReading, UtilizationSource } from '../../src/metrics/types.js';
import { utilizationRequests } from '../../src/pass/early-reading.js';
import { readWorld, type JudgeAt } from '../../src/pass/read-world.js';
import { directorySpecs } from '../../src/pass/specs.js';
import type { SpecsSource, World, WorldSources } from '../../src/pass/world.js';
import { createReconcilerMemory, type ReconcilerMemory } from '../../src/plan/memory.js';
import { algorithmFile } from '../support/reconcile-harness.js';

/** A Prometheus that answers each request with one GPU series per namespace of the query's scope. */
interface FakePrometheus {
  url: string;
  /** The PromQL of each request, in order (request n is `queries[n - 1]`). */
  queries: string[];
  /** Requests (by number) answered 503. */
  fail: Set<number>;
  /** Resolves at the next request. */
  nextRequest(): Promise<void>;
  close(): Promise<void>;
}

async function servePrometheus(): Promise<FakePrometheus> {
  const queries: string[] = [];
  const fail = new Set<number>();
  let waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const query = new URLSearchParams(body).get('query') ?? '';
      const n = queries.push(query);
      for (const w of waiters) w();
      waiters = [];
      if (fail.has(n)) {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: 'error', errorType: 'unavailable', error: 'down' }));
        return;
      }
      const scope = /exported_namespace=~"([^"]*)"/.exec(query)?.[1] ?? '';
      const t = Date.now() / 1000;
      const result = scope.split('|').flatMap((ns) => {
        const metric = {
          Hostname: `gpu-${ns}`,
          UUID: `GPU-${ns}`,
          answer: String(n),
          exported_namespace: ns,
          exported_pod: `${ns}-0`,
          gpu: '0',
        };
        return [
          { metric: { ...metric, gpuops_stat: 'avg' }, value: [t, '42'] },
          { metric: { ...metric, gpuops_stat: 'last' }, value: [t, String(t - 5)] },
        ];
      });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    queries,
    fail,
    nextRequest: () => new Promise<void>((r) => waiters.push(r)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const emptyCluster: ClusterSource = {
  kind: 'list',
  snapshot: (now) => Promise.resolve({ takenAt: now.toISOString(), nodes: [], pods: [] }),
  hpaStates: () => Promise.resolve(new Map()),
};

let dir: string;
let prom: FakePrometheus;
let defaults: Policy;

/** Writes the repo: one algorithm in `namespace`, a policy allowing it, with `windowSeconds` when given. */
function writeRepo(namespace: string, windowSeconds?: number): void {
  mkdirSync(join(dir, 'algorithms'), { recursive: true });
  mkdirSync(join(dir, 'policies'), { recursive: true });
  writeFileSync(
    join(dir, 'algorithms', 'serve.yaml'),
    algorithmFile('serve').replace('namespace: algorithms', `namespace: ${namespace}`),
  );
  writePolicy(windowSeconds === undefined ? [] : ['  scaling:', `    windowSeconds: ${windowSeconds}`]);
}

/** Writes `policies/site.yaml`: the site policy allowing `algorithms` and `team-b`, then `spec` lines. */
function writePolicy(spec: readonly string[]): void {
  const head = ['apiVersion: gpuops.dev/v1alpha1', 'kind: Policy', 'metadata:', '  name: site', 'spec:'];
  const lines = [...head, '  allowedNamespaces: [algorithms, team-b]', ...spec, ''];
  writeFileSync(join(dir, 'policies', 'site.yaml'), lines.join('\n'));
}

/** What a specs read saw of the Prometheus requests: how many had arrived when it ended. */
interface SpecsWatch {
  /** Requests the server had answered when each specs read returned, by pass. */
  requestsAtSpecsEnd: number[];
}

/**
 * The folder's specs, read as a slow Git read is: each read waits for the next Prometheus request
 * (an early read arrives while the specs are read) or 1 s, whichever comes first.
 */
function slowSpecs(watch: SpecsWatch, fail?: () => Error | undefined): SpecsSource {
  const specs = directorySpecs(dir);
  return {
    async read(cluster, d, memory) {
      const read = await specs.read(cluster, d, memory);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([prom.nextRequest(), new Promise<void>((r) => (timer = setTimeout(r, 1000)))]);
      clearTimeout(timer);
      watch.requestsAtSpecsEnd.push(prom.queries.length);
      const err = fail?.();
      if (err) throw err;
      return read;
    },
  };
}

function sourcesOf(metrics: UtilizationSource, memory: ReconcilerMemory, specs: SpecsSource): WorldSources {
  return { cluster: 'prod', specs, clusterRead: emptyCluster, store: null, metrics, defaults, memory };
}

/** The `answer` (request number) and namespace of each series of the reading. */
function answered(world: World): string[] {
  const r = world.reading;
  return r.ok
    ? r.series.map((s) => `${s.labels.answer} ${s.labels.exported_namespace}`)
    : [`no data: ${r.reason}`];
}

/** A source that rejects its reads numbered in `rejects` (1-based), else reads `inner`. */
function rejecting(inner: UtilizationSource, rejects: Set<number>): UtilizationSource & { calls: number } {
  const s = {
    name: inner.name,
    calls: 0,
    read(q: Parameters<UtilizationSource['read']>[0]): Promise<UtilizationReading> {
      s.calls++;
      if (rejects.has(s.calls)) {
        // Rejects after the specs read ended: a handler attached only then would be too late.
        return new Promise((_, reject) => setTimeout(() => reject(new Error('source broke')), 50));
      }
      return inner.read(q);
    },
  };
  return s;
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gpuops-early-reading-'));
  prom = await servePrometheus();
  defaults = await loadDefaultPolicy();
});

afterEach(async () => {
  await prom.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('readWorld: the utilisation read beside the specs read', () => {
  it('the same specs: one request a pass, on its way while the specs are read, its answer the pass’s', async () => {
    writeRepo('algorithms');
    const memory = createReconcilerMemory();
    const watch: SpecsWatch = { requestsAtSpecsEnd: [] };
    const sources = sourcesOf(new PrometheusSource({ url: prom.url }), memory, slowSpecs(watch));
    const worlds: World[] = [];
    for (let pass = 0; pass < 3; pass++) worlds.push(await readWorld(sources, new Date()));
    expect(prom.queries).toHaveLength(3);
    expect(new Set(prom.queries).size).toBe(1);
    // Pass 1 has no last query: its request goes once the specs are in, as before.
    expect(watch.requestsAtSpecsEnd).toEqual([0, 2, 3]);
    expect(worlds.map(answered)).toEqual([['1 algorithms'], ['2 algorithms'], ['3 algorithms']]);
  });

  it.each([
    ['a changed namespace', () => writeRepo('team-b'), 'team-b', 'exported_namespace=~"team-b"'],
    ['a changed policy window', () => writeRepo('algorithms', 120), 'algorithms', '[120s]'],
  ])('%s: the new query’s answer, never the early read’s', async (_name, change, namespace, text) => {
    writeRepo('algorithms');
    const memory = createReconcilerMemory();
    const sources = sourcesOf(
      new PrometheusSource({ url: prom.url }),
      memory,
      slowSpecs({ requestsAtSpecsEnd: [] }),
    );
    await readWorld(sources, new Date());
    change();
    const changed = await readWorld(sources, new Date());
    // The early read of the last query (request 2), then the specs' own (request 3), used.
    expect(prom.queries).toHaveLength(3);
    expect(prom.queries[1]).toBe(prom.queries[0]);
    expect(prom.queries[2]).toContain(text);
    expect(prom.queries[1]).not.toContain(text);
    expect(answered(changed)).toEqual([`3 ${namespace}`]);
    // The next pass reads the new query early: one request.
    const next = await readWorld(sources, new Date());
    expect(prom.queries).toHaveLength(4);
    expect(prom.queries[3]).toBe(prom.queries[2]);
    expect(answered(next)).toEqual([`4 ${namespace}`]);
  });

  it('an early read answered "no data" for the same query is the pass’s reading (no second request)', async () => {
    writeRepo('algorithms');
    const sources = sourcesOf(
      new PrometheusSource({ url: prom.url }),
      createReconcilerMemory(),
      slowSpecs({ requestsAtSpecsEnd: [] }),
    );
    await readWorld(sources, new Date());
    prom.fail.add(2);
    const failed = await readWorld(sources, new Date());
    expect(answered(failed)).toEqual(['no data: HttpError']);
    expect(prom.queries).toHaveLength(2);
  });

  it.each([
    ['the same query: read again', () => undefined, '2 algorithms'],
    ['a changed query: dropped, the new one read', () => writeRepo('team-b'), '2 team-b'],
  ])('an early read that rejects, %s', async (_name, change, want) => {
    writeRepo('algorithms');
    const source = rejecting(new PrometheusSource({ url: prom.url }), new Set([2]));
    const sources = sourcesOf(source, createReconcilerMemory(), slowSpecs({ requestsAtSpecsEnd: [] }));
    await readWorld(sources, new Date());
    change();
    const world = await readWorld(sources, new Date());
    expect(answered(world)).toEqual([want]);
    expect(source.calls).toBe(3);
    await new Promise((r) => setTimeout(r, 100)); // the rejection, had it no handler, is reported
  });

  it('specs that cannot be read: the pass throws their error, the early read’s failure is handled, the next pass reads', async () => {
    writeRepo('algorithms');
    const source = rejecting(new PrometheusSource({ url: prom.url }), new Set([2]));
    let broken = false;
    const specs = slowSpecs({ requestsAtSpecsEnd: [] }, () =>
      broken ? new Error('git fetch failed') : undefined,
    );
    const sources = sourcesOf(source, createReconcilerMemory(), specs);
    await readWorld(sources, new Date());
    broken = true;
    await expect(readWorld(sources, new Date())).rejects.toThrow('git fetch failed');
    await new Promise((r) => setTimeout(r, 100)); // the early read rejects after the pass ended
    broken = false;
    const next = await readWorld(sources, new Date());
    expect(answered(next)).toEqual(['2 algorithms']);
    expect(source.calls).toBe(3);
  });

  describe('a source that cannot read a service metric (no readServiceMetric: no request for it)', () => {
    /** The repo: `serve` scales on the policy's service metric `name`. */
    function writeServiceMetricRepo(name: string): void {
      writeRepo('algorithms');
      writeFileSync(
        join(dir, 'algorithms', 'serve.yaml'),
        algorithmFile('serve').replace(
          '    utilization: {min: 30, max: 80}',
          `    signal: serviceMetric\n    serviceMetric: {name: ${name}, min: 2, max: 10}`,
        ),
      );
      writePolicy([
        '  scaling:',
        '    serviceMetrics:',
        `      - name: ${name}`,
        '        unit: requests/s',
        `        query: 'sum by (namespace, pod) (rate(http_requests_total{namespace="$namespace"}[$window]))'`,
      ]);
    }
    /** The Prometheus source without its service-metric read (as the dcgm-exporter source is). */
    function gpuOnly(): UtilizationSource {
      const inner = new PrometheusSource({ url: prom.url });
      return { name: 'dcgm-only', read: (q) => inner.read(q) };
    }
    const CANNOT = 'dcgm-only cannot read a service metric (it needs --prometheus-url)';

    it('a renamed service metric: the new name’s reading says the source cannot read it', async () => {
      writeServiceMetricRepo('rps');
      const sources = sourcesOf(gpuOnly(), createReconcilerMemory(), slowSpecs({ requestsAtSpecsEnd: [] }));
      const first = await readWorld(sources, new Date());
      expect(first.reading.signals?.['serviceMetric:rps:algorithms']).toMatchObject({ message: CANNOT });
      writeServiceMetricRepo('qps');
      const renamed = await readWorld(sources, new Date());
      expect(Object.keys(renamed.reading.signals ?? {})).toEqual(['serviceMetric:qps:algorithms']);
      expect(renamed.reading.signals?.['serviceMetric:qps:algorithms']).toMatchObject({
        ok: false,
        message: CANNOT,
      });
    });

    it('the same specs: still one request a pass, the early read’s answer used', async () => {
      writeServiceMetricRepo('rps');
      const sources = sourcesOf(gpuOnly(), createReconcilerMemory(), slowSpecs({ requestsAtSpecsEnd: [] }));
      const worlds: World[] = [];
      for (let pass = 0; pass < 3; pass++) worlds.push(await readWorld(sources, new Date()));
      expect(prom.queries).toHaveLength(3);
      expect(worlds.map(answered)).toEqual([['1 algorithms'], ['2 algorithms'], ['3 algorithms']]);
      for (const w of worlds) {
        expect(w.reading.signals?.['serviceMetric:rps:algorithms']).toMatchObject({ message: CANNOT });
      }
    });
  });

  it('gpuops plan’s path (the time a function of the reading): no early read, the read after the specs', async () => {
    writeRepo('algorithms');
    const memory = createReconcilerMemory();
    const watch: SpecsWatch = { requestsAtSpecsEnd: [] };
    const sources = sourcesOf(new PrometheusSource({ url: prom.url }), memory, slowSpecs(watch));
    await readWorld(sources, new Date());
    const judged = new Date('2026-12-07T12:00:00Z');
    const at: JudgeAt = (reading) => (reading.ok ? judged : new Date(0));
    const planned = await readWorld(sources, at);
    expect(watch.requestsAtSpecsEnd).toEqual([0, 1]);
    expect(prom.queries).toHaveLength(2);
    expect(planned.now).toBe(judged);
    expect(answered(planned)).toEqual(['2 algorithms']);
  });
});

describe('utilizationRequests: what a utilisation read asks its source', () => {
  async function requestsOf(source: UtilizationSource): Promise<string> {
    const { repo } = await directorySpecs(dir).read('prod', defaults, createReconcilerMemory());
    return utilizationRequests(source, repo.policy, repo.algorithms);
  }
  const plain: UtilizationSource = {
    name: 'test',
    read: () => Promise.resolve({ ok: false, reason: 'Empty', message: '' }),
  };

  it.each([
    ['the same specs', true, () => writeRepo('algorithms')],
    ['another namespace', false, () => writeRepo('team-b')],
    ['another window', false, () => writeRepo('algorithms', 120)],
    [
      'another signal (gpuMemory: two more reads)',
      false,
      () => {
        writeRepo('algorithms');
        const file = join(dir, 'algorithms', 'serve.yaml');
        const text = algorithmFile('serve').replace('  scaling:\n', '  scaling:\n    signal: gpuMemory\n');
        writeFileSync(file, text);
      },
    ],
  ])('%s: the same requests: %s', async (_name, same, change) => {
    writeRepo('algorithms');
    const before = await requestsOf(plain);
    change();
    const after = await requestsOf(plain);
    expect(after === before).toBe(same);
    expect((JSON.parse(before) as unknown[])[0]).toEqual([
      ['read', expect.objectContaining({ metric: 'DCGM_FI_DEV_GPU_UTIL', namespaces: ['algorithms'] })],
    ]);
  });
});
