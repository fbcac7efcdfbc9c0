/** Utilisation sources (Prometheus, dcgm-exporter scrapes, a metrics file), the queries they answer and their types. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { DcgmScrapeSource } from './dcgm-scrape.js';
export type { DcgmTarget } from './dcgm-scrape.js';
export { MetricsFileSource } from './metrics-file.js';
export { PrometheusSource } from './prometheus.js';
export { GPU_MEMORY_METRIC, gpuMemorySeries } from './service-metric.js';
export type {
  DcgmMetric,
  GpuSeries,
  UtilizationQuery,
  UtilizationReading,
  UtilizationSource,
} from './types.js';
