/**
 * The Prometheus that scrapes the local cluster's dcgm-exporter pages: the Debian package's
 * `/usr/bin/prometheus` (`.ci/install-services.sh` installs it), every second, its targets found
 * by HTTP service discovery (`/dcgm/targets`), so a node that gains or loses GPUs is followed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, startProcess, type RunningProcess } from './process.js';

/** The Prometheus binary: `PROMETHEUS_BIN` from the environment, else the Debian package's. */
export const PROMETHEUS_BIN = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

/** A running Prometheus. */
export interface LocalPrometheus {
  url: string;
  process: RunningProcess;
}

/** The configuration (JSON is YAML) for service discovery at `exporters` (`http://host:port`). */
export function prometheusConfig(exporters: string): string {
  return JSON.stringify({
    global: { scrape_interval: '1s', scrape_timeout: '900ms', evaluation_interval: '1s' },
    scrape_configs: [
      {
        job_name: 'dcgm-exporter',
        http_sd_configs: [{ url: `${exporters}/dcgm/targets`, refresh_interval: '5s' }],
      },
    ],
  });
}

/** Starts Prometheus with data and configuration in `dir`. */
export async function startPrometheus(dir: string, exporters: string): Promise<LocalPrometheus> {
  const config = path.join(dir, 'prometheus.yml');
  writeFileSync(config, prometheusConfig(exporters));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = await startProcess({
    name: 'prometheus',
    bin: PROMETHEUS_BIN,
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'prometheus-data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    logFile: path.join(dir, 'prometheus.log'),
    ports: [port],
    ready: async () => (await fetch(`${url}/-/ready`)).ok,
  });
  return { url, process: proc };
}
