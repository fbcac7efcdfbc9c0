/**
 * The GPU utilisation source the settings name (an adapter): saved files, Prometheus (with the
 * bearer token of `GPUOPS_PROMETHEUS_TOKEN`), dcgm-exporter pages, or none.
 */
import { DcgmScrapeSource, type DcgmTarget, MetricsFileSource, PrometheusSource } from '../metrics/index.js';
import type { UtilizationSource } from '../metrics/index.js';

/** Where GPU utilisation comes from: saved files, Prometheus, dcgm-exporter pages, or nowhere. */
export interface MetricsSettings {
  metricsFiles?: string[];
  prometheusUrl?: string;
  /** Bearer token for Prometheus (from `GPUOPS_PROMETHEUS_TOKEN`, never a flag). */
  prometheusToken?: string;
  /** The dcgm-exporter job(s) of `--dcgm-job` (the source's default when absent). */
  dcgmJob?: string;
  /** The AMD device-metrics-exporter job(s) of `--amd-metrics-job` (the source's default when absent). */
  amdMetricsJob?: string;
  dcgmUrl?: string[];
  /** dcgm-exporter endpoints with the node each runs on (the demo's); wins over `dcgmUrl`. */
  dcgmTargets?: DcgmTarget[];
  /**
   * How the dcgm-exporter pages are fetched (default the global `fetch`): the replay's engines
   * read their simulator's pages in-process (`sim/dcgm/pages.ts`).
   */
  dcgmFetch?: typeof fetch;
  /** `plan --now`: judge saved files at this time instead of their newest sample. */
  evaluatedAt?: Date;
}

/**
 * The utilisation source the settings name, in order: `--metrics` files, `--prometheus-url`,
 * `--dcgm-url`; null when none is set (every scaling decision is then "no data").
 * @param now the clock of the pass (dcgm pages are stamped with it; files are judged from it)
 */
export function utilizationSource(settings: MetricsSettings, now: () => Date): UtilizationSource | null {
  if (settings.metricsFiles && settings.metricsFiles.length > 0) {
    return new MetricsFileSource(
      settings.metricsFiles,
      now().getTime(),
      settings.evaluatedAt === undefined ? null : settings.evaluatedAt.getTime(),
    );
  }
  if (settings.prometheusUrl) {
    const token = settings.prometheusToken;
    return new PrometheusSource({
      url: settings.prometheusUrl,
      ...(settings.dcgmJob ? { jobs: settings.dcgmJob } : {}),
      ...(settings.amdMetricsJob ? { amdJobs: settings.amdMetricsJob } : {}),
      ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
    });
  }
  const targets = settings.dcgmTargets ?? (settings.dcgmUrl ?? []).map((url) => ({ url }));
  if (targets.length > 0)
    return new DcgmScrapeSource({
      targets,
      now,
      ...(settings.dcgmFetch ? { fetch: settings.dcgmFetch } : {}),
    });
  return null;
}

/**
 * The metrics settings of `--prometheus-url` / `--dcgm-url`, with the Prometheus bearer token
 * read from `GPUOPS_PROMETHEUS_TOKEN`: the one place gpuops reads it (never a flag, never logged).
 */
export function metricsSettingsOf(
  settings: { prometheusUrl?: string; dcgmUrl?: string[]; dcgmJob?: string; amdMetricsJob?: string },
  env: NodeJS.ProcessEnv,
): MetricsSettings {
  return {
    prometheusUrl: settings.prometheusUrl,
    ...(settings.dcgmJob ? { dcgmJob: settings.dcgmJob } : {}),
    ...(settings.amdMetricsJob ? { amdMetricsJob: settings.amdMetricsJob } : {}),
    prometheusToken: env.GPUOPS_PROMETHEUS_TOKEN,
    dcgmUrl: settings.dcgmUrl,
  };
}
