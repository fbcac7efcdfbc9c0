/**
 * Contracts of the GPU utilisation sources (`src/metrics`). A source returns raw per-GPU series,
 * exactly as dcgm-exporter labels them; attribution to pods and algorithms is pure and lives in
 * `src/scaling/attribute.ts`.
 */

/** The DCGM fields gpuops can scale on (policy `scaling.metric`). */
export type DcgmMetric = 'DCGM_FI_DEV_GPU_UTIL' | 'DCGM_FI_PROF_GR_ENGINE_ACTIVE';

/**
 * One GPU series: the labels dcgm-exporter put on it (`gpu`, `UUID`, `modelName`, `Hostname`,
 * `namespace`, `pod`, `container`, and `exported_*` when Prometheus renamed them), its value in
 * the metric's own unit (percent for `DCGM_FI_DEV_GPU_UTIL`, ratio 0..1 for
 * `DCGM_FI_PROF_GR_ENGINE_ACTIVE`; may be NaN or ±Inf as the exporter wrote it), and the time of
 * its newest sample (milliseconds since the Unix epoch).
 */
export interface GpuSeries {
  /** The DCGM field name. */
  metric: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the Unix epoch of the newest sample the value covers. */
  timestamp: number;
}

/** What one pass asks a source for. */
export interface UtilizationQuery {
  metric: DcgmMetric;
  /** Averaging window (seconds), policy `scaling.windowSeconds`. */
  windowSeconds: number;
}

/** Why a source has no data; never read as 0 %. */
export type NoDataReason = 'Unreachable' | 'Timeout' | 'HttpError' | 'BadResponse' | 'Empty';

/**
 * The answer of one source for one pass: series, or "no data" with a reason and message. A
 * partial answer (some dcgm pages failed) is `ok` with the failures listed in `errors`.
 */
export type UtilizationReading =
  { ok: true; series: GpuSeries[]; errors: string[] } | { ok: false; reason: NoDataReason; message: string };

/** A GPU utilisation source: Prometheus, dcgm-exporter pages, or saved files. Never throws. */
export interface UtilizationSource {
  readonly name: string;
  read(query: UtilizationQuery): Promise<UtilizationReading>;
}
