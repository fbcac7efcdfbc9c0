/**
 * Contracts of the GPU utilisation sources (`src/metrics`). A source returns raw per-GPU series,
 * exactly as dcgm-exporter labels them; attribution to pods and algorithms is pure and lives in
 * `src/scaling/attribute.ts`.
 */
import type { DCGM } from '../util/index.js';

/**
 * The DCGM fields gpuops reads: utilisation (policy `scaling.metric`), graphics engine activity
 * (signal `gpuEngineActive`), framebuffer used and free in MiB (signal `gpuMemory`).
 */
export type DcgmMetric = (typeof DCGM)[Exclude<keyof typeof DCGM, 'prefix'>];

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
  /**
   * What the source's own history says about the series over the scale-down stabilisation
   * window (a range query, a range-vector function or a `query_range` answer); absent when the
   * answer is one instant (a dcgm page, a plain vector).
   */
  window?: SeriesWindow;
}

/** A series over a window of history, as the source recorded it. */
export interface SeriesWindow {
  /** Highest sample in the window, in the metric's own unit. */
  max: number;
  /**
   * Milliseconds since the epoch of the oldest evidence (the series existed then); it covers the
   * whole window when `evaluatedAt − oldest` ≥ the window. Null: the series began inside the
   * window (a Prometheus answer says that much, not when).
   */
  oldest: number | null;
}

/** What one pass asks a source for. */
export interface UtilizationQuery {
  metric: DcgmMetric;
  /** Averaging window (seconds), policy `scaling.windowSeconds`. */
  windowSeconds: number;
  /**
   * History to read in the same query (seconds), policy `scaling.scaleDown.stabilizationWindowSeconds`;
   * 0 or absent: none.
   */
  historySeconds?: number;
  /**
   * The namespaces whose pods attribution counts (the algorithms'). A source that can filter on
   * the server (Prometheus) asks only for their series; the others read everything (attribution
   * drops the rest). Absent: every series. Empty: there is nothing to attribute.
   */
  namespaces?: readonly string[];
}

/** Why a source has no data; never read as 0 %. */
export type NoDataReason = 'Unreachable' | 'Timeout' | 'HttpError' | 'BadResponse' | 'Empty' | 'TooLarge';

/**
 * The answer of one source for one pass: series, or "no data" with a reason and message. A
 * partial answer (some dcgm pages failed) is `ok` with the failures listed in `errors`.
 */
export type UtilizationReading =
  | {
      ok: true;
      series: GpuSeries[];
      errors: string[];
      /**
       * When the answer was evaluated, by the source's own clock (milliseconds since the epoch):
       * the `time` of a Prometheus query, the newest sample of saved files, the scrape time of
       * dcgm pages. Sample ages are measured against it, never against another clock.
       */
      evaluatedAt?: number;
      /**
       * The store's own warnings (Prometheus, Thanos, Mimir: `status: success` with `warnings`
       * when some stores or shards did not answer): the answer may be partial, and which series
       * it lacks is not said. Absent: none.
       */
      warnings?: string[];
      /** The store's `infos` (notes on the query; no data missing). Absent: none. */
      infos?: string[];
      /** The readings of the other signals the pass's algorithms scale on, by signal key. */
      signals?: Readonly<Record<string, UtilizationReading>>;
    }
  | {
      ok: false;
      reason: NoDataReason;
      message: string;
      signals?: Readonly<Record<string, UtilizationReading>>;
    };

/** What one pass asks a source for a service metric: the policy's template, for one namespace. */
export interface ServiceMetricQuery {
  /** The policy's name of the metric (series carry it as `metric`). */
  name: string;
  template: string;
  namespace: string;
  windowSeconds: number;
}

/** A GPU utilisation source: Prometheus, dcgm-exporter pages, or saved files. Never throws. */
export interface UtilizationSource {
  readonly name: string;
  read(query: UtilizationQuery): Promise<UtilizationReading>;
  /**
   * A per-pod service metric (one series per pod, labels `namespace` and `pod`, in its own unit);
   * only a source that runs PromQL (Prometheus) has it. Never throws.
   */
  readServiceMetric?(query: ServiceMetricQuery): Promise<UtilizationReading>;
}
