/**
 * Starts a real Prometheus (`/usr/bin/prometheus`, the Debian package; `.ci/install-services.sh`
 * installs it) for integration tests: a temp dir, a generated config scraping the given targets
 * every second, a free loopback port. `startPrometheus` resolves once the server is ready and
 * every target has been scraped successfully at least once; `stop()` kills it and removes the dir.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

/** One scrape target: `host:port` plus optional path and target labels (e.g. `pod`, `namespace`). */
export interface ScrapeTarget {
  address: string;
  metricsPath?: string;
  labels?: Record<string, string>;
  /**
   * Its `job` label: default `dcgm-exporter`, what the dcgm-exporter Helm chart's Service gives
   * (gpuops counts only the dcgm-exporter jobs); another name stands for any other target.
   */
  job?: string;
}

export interface RunningPrometheus {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Waits until every target has been scraped `n` more times (by `lastScrape` time). */
  waitForScrapes(n: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bound then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** More of the Prometheus config than scrape targets. */
export interface PrometheusOptions {
  /**
   * `remote_read` endpoints read for recent data too (`read_recent`): one that does not answer
   * makes every query a partial answer, `status: success` with `warnings`, as a Thanos or Mimir
   * store that is down does.
   */
  remoteRead?: string[];
}

function config(targets: ScrapeTarget[], options: PrometheusOptions = {}): string {
  // JSON is YAML: no YAML writer needed for a config nobody reads by hand.
  return JSON.stringify({
    global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
    ...(options.remoteRead
      ? { remote_read: options.remoteRead.map((url) => ({ url, read_recent: true, remote_timeout: '1s' })) }
      : {}),
    scrape_configs: targets.map((t, i) => ({
      job_name: `target-${i}`,
      metrics_path: t.metricsPath ?? '/metrics',
      static_configs: [{ targets: [t.address], labels: t.labels ?? {} }],
      // One scrape config per target (each has its own path), the job label as a real one names it.
      relabel_configs: [{ target_label: 'job', replacement: t.job ?? 'dcgm-exporter' }],
    })),
  });
}

interface TargetsAnswer {
  data: { activeTargets: { health: string; lastScrape: string; scrapeUrl: string; lastError: string }[] };
}

/** @throws Error when the binary is missing, or Prometheus is not ready with targets up in `timeoutMs`. */
export async function startPrometheus(
  targets: ScrapeTarget[],
  timeoutMs = 20_000,
  options: PrometheusOptions = {},
): Promise<RunningPrometheus> {
  if (!existsSync(PROMETHEUS_BIN)) {
    throw new Error(`${PROMETHEUS_BIN} not found: install the Debian package (bash .ci/install-services.sh)`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-prometheus-'));
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(configFile, config(targets, options));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const child: ChildProcess = spawn(
    PROMETHEUS_BIN,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  child.stderr?.on('data', (b: Buffer) => (log = (log + b.toString()).slice(-4000)));
  let exited = false;
  child.once('exit', () => (exited = true));

  const stop = async () => {
    if (!exited) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const until = async (what: string, ok: () => Promise<boolean>, ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      if (exited) throw new Error(`prometheus exited while waiting until ${what}: ${log}`);
      if (await ok().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`prometheus: timed out waiting until ${what}: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const activeTargets = async () =>
    ((await (await fetch(`${url}/api/v1/targets`)).json()) as TargetsAnswer).data.activeTargets;

  try {
    await until('ready', async () => (await fetch(`${url}/-/ready`)).ok, timeoutMs);
    await until(
      'every target is up',
      async () => {
        const t = await activeTargets();
        return t.length === targets.length && t.every((x) => x.health === 'up');
      },
      timeoutMs,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    async waitForScrapes(n, ms = 15_000) {
      const start = Date.now();
      // Each scrape is 1 s apart; wait until every target's last scrape is n intervals after start.
      await until(
        `${n} more scrapes`,
        async () => (await activeTargets()).every((t) => Date.parse(t.lastScrape) >= start + (n - 1) * 1000),
        ms,
      );
    },
    stop,
  };
}

/** A loopback HTTP server serving dcgm-exporter pages for Prometheus to scrape. */
export interface ExporterPages {
  /** `127.0.0.1:PORT`, the scrape targets' address. */
  address: string;
  close(): Promise<void>;
}

/**
 * Serves `pages[path]()` as Prometheus text (a page that returns null, or a path not listed, is a
 * 404, as a dcgm-exporter that is down answers a scrape).
 */
export async function serveExporterPages(pages: Record<string, () => string | null>): Promise<ExporterPages> {
  const server = createHttpServer((req, res) => {
    const body = pages[req.url ?? '']?.() ?? null;
    res.writeHead(body === null ? 404 : 200, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
