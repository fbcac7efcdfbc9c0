import { MetricsParseError } from './dcgm-text.js';
import { LabelSetMemo } from './answer-item.js';
import type { QueryAnswer } from './answer-builder.js';
import { AnswerTooLargeError, DEFAULT_ANSWER_LIMITS, type AnswerLimits } from './answer-limits.js';
import { decodeQueryAnswer } from './answer-stream.js';
import { fromQueryAnswer, utilizationQuery } from './query.js';
import { vendorOfUtilisation } from './vendor-series.js';
import { AMD } from '../util/index.js';
import { serviceMetricQuery } from './service-metric.js';
import type { ServiceMetricQuery, UtilizationQuery, UtilizationReading, UtilizationSource } from './types.js';

/** Settings of {@link PrometheusSource}. */
export interface PrometheusSourceOptions {
  /** Base URL of the Prometheus server, e.g. `http://prometheus.monitoring:9090`. */
  url: string;
  /** Sent as-is on every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** Overrides the policy's metric name (e.g. a recording rule); default: the query's. */
  metric?: string;
  /** Extra label matchers inside the selector, e.g. `cluster="prod"`. */
  selector?: string;
  /**
   * The Prometheus `job`s whose DCGM series count, as an RE2 regex Prometheus anchors
   * ({@link DEFAULT_DCGM_JOBS} when absent; `.+` takes any job): only the dcgm-exporter's scrape
   * job speaks for the GPUs, never another target that prints the same metric name.
   */
  jobs?: string;
  /**
   * The same for AMD's device-metrics-exporter, whose `gpu_gfx_activity` answers a request for
   * GPU utilisation too ({@link DEFAULT_AMD_JOBS} when absent).
   */
  amdJobs?: string;
  /** Request deadline (milliseconds); default 10 000. */
  timeoutMs?: number;
  /** How much of one answer is read ({@link DEFAULT_ANSWER_LIMITS} when absent). */
  limits?: Partial<AnswerLimits>;
  /** Injected for tests; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The `job` label of dcgm-exporter's series as the NVIDIA GPU Operator (its Service and
 * ServiceMonitor `nvidia-dcgm-exporter`) and the dcgm-exporter Helm chart (Service
 * `dcgm-exporter`) leave it; the Prometheus Operator names the job after the Service.
 */
export const DEFAULT_DCGM_JOBS = 'dcgm-exporter|nvidia-dcgm-exporter';

/**
 * The `job` label of AMD device-metrics-exporter's series: the AMD GPU operator names the
 * exporter's Service `<DeviceConfig name>-metrics-exporter` (its `app.kubernetes.io/service`
 * label, `internal/metricsexporter` of https://github.com/ROCm/gpu-operator), so the job ends in
 * `metrics-exporter` (`default-metrics-exporter`, `device-metrics-exporter`).
 */
export const DEFAULT_AMD_JOBS = '.*metrics-exporter';

/**
 * The matcher that keeps only the series of the dcgm-exporter job(s): `job=~"<jobs>"`.
 * @throws Error when `jobs` is empty, holds a `"` or a line break, or is not a regular expression
 */
export function jobMatcher(jobs: string): string {
  if (jobs.trim() === '' || /["\n\r]/.test(jobs)) {
    throw new Error(
      `the dcgm-exporter job must be a non-empty regex without quotes or line breaks, got ${JSON.stringify(jobs)}`,
    );
  }
  try {
    new RegExp(`^(?:${jobs})$`);
  } catch (err) {
    throw new Error(
      `the dcgm-exporter job ${JSON.stringify(jobs)} is not a regex: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return `job=~"${jobs.replace(/\\/g, '\\\\')}"`;
}

/**
 * GPU utilisation through the Prometheus HTTP API (`POST /api/v1/query`): ONE instant query per
 * pass for every GPU (see `utilizationQuery`), with the scale-down stabilisation window's history
 * when the query asks for it; with `query.namespaces`, only the series of pods in those
 * namespaces, aggregated to the labels attribution reads (no request when the list is empty), and
 * only of the dcgm-exporter job(s) (`jobs`). No `time` is sent: Prometheus evaluates at its own now, and the
 * reading's `evaluatedAt` is that time (the vector's timestamps), so sample ages never depend on
 * the controller's clock. An unreachable server, a timeout, an HTTP or
 * PromQL error, an empty result and an answer past its byte or series limit (`TooLarge`: reading
 * stops there) are all "no data" with a reason — never 0 %. An answer with `warnings` (a partial
 * answer: some stores or shards did not answer) carries them in the reading, for the scaling rules
 * to refuse a scale-down or node move on it.
 */
export class PrometheusSource implements UtilizationSource {
  readonly name: string;
  /** Matchers of the NVIDIA (dcgm-exporter) series and of AMD's (device-metrics-exporter). */
  private readonly selectors: { nvidia: string; amd: string };
  /**
   * The label sets of the last utilisation answer (`answer-item.ts`): a pass reads the same
   * series as the last one with moved values, and their labels are then not parsed again.
   */
  private readonly labelSets = new LabelSetMemo();
  /** @throws Error when `options.jobs` or `options.amdJobs` is not a usable regex ({@link jobMatcher}) */
  constructor(private readonly options: PrometheusSourceOptions) {
    this.name = `prometheus ${options.url}`;
    const withJob = (jobs: string) =>
      [jobMatcher(jobs), options.selector ?? ''].filter((m) => m.trim() !== '').join(', ');
    this.selectors = {
      nvidia: withJob(options.jobs ?? DEFAULT_DCGM_JOBS),
      amd: withJob(options.amdJobs ?? DEFAULT_AMD_JOBS),
    };
  }

  async read(query: UtilizationQuery): Promise<UtilizationReading> {
    const metric = this.options.metric ?? query.metric;
    if (query.namespaces?.length === 0) {
      return { ok: false, reason: 'Empty', message: `${this.name}: no algorithm namespace to read` };
    }
    const promql = utilizationQuery(
      metric,
      query.windowSeconds,
      (m) => (vendorOfUtilisation(m) === AMD ? this.selectors.amd : this.selectors.nvidia),
      query.historySeconds ?? 0,
      query.namespaces,
    );
    const reading = await this.instant(promql, metric, this.labelSets);
    // Another vendor's series come back in dcgm-exporter's spelling, as a scraped page's do.
    return reading.ok ? { ...reading, series: reading.series.map(fromQueryAnswer) } : reading;
  }

  /**
   * A service metric of the policy's template for one namespace (`serviceMetricQuery`): one
   * instant query, its series named `query.name`; the same "no data" reasons and limits as
   * {@link read}. The dcgm-exporter job matcher does not apply: the template names what it reads.
   */
  async readServiceMetric(query: ServiceMetricQuery): Promise<UtilizationReading> {
    let promql: string;
    try {
      promql = serviceMetricQuery(query.template, query.namespace, query.windowSeconds);
    } catch (err) {
      return { ok: false, reason: 'BadResponse', message: `${this.name}: ${describe(err)}` };
    }
    return this.instant(promql, query.name);
  }

  /**
   * One instant query, decoded as it arrives; series without `__name__` are named `metric`.
   * `labelSets`: the last answer's label sets of the same query, read again rather than parsed.
   */
  private async instant(
    promql: string,
    metric: string,
    labelSets?: LabelSetMemo,
  ): Promise<UtilizationReading> {
    const url = new URL(
      'api/v1/query',
      this.options.url.endsWith('/') ? this.options.url : `${this.options.url}/`,
    );
    const doFetch = this.options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.options.headers },
        body: new URLSearchParams({ query: promql }).toString(),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      return {
        ok: false,
        reason: timeout ? 'Timeout' : 'Unreachable',
        message: `${this.name}: ${timeout ? 'no answer in time' : describe(err)}`,
      };
    }
    if (!response.ok) {
      const { body, head } = await readError(response);
      const detail = isErrorBody(body) ? body.error : head;
      return { ok: false, reason: 'HttpError', message: `${this.name}: HTTP ${response.status}: ${detail}` };
    }
    const limits = { ...DEFAULT_ANSWER_LIMITS, ...this.options.limits };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > limits.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      const err = new AnswerTooLargeError(this.name, 'bytes', limits.maxBytes);
      return { ok: false, reason: 'TooLarge', message: `${err.message} (Content-Length ${declared})` };
    }
    let answer: QueryAnswer;
    try {
      // Decoded as it arrives: a fleet's answer is megabytes, and neither its text nor a JSON tree
      // of it is ever held (`answer-stream.ts`).
      answer = await decodeQueryAnswer(
        response.body ?? emptyBody(),
        { source: this.name, metric },
        limits,
        labelSets,
      );
    } catch (err) {
      if (err instanceof AnswerTooLargeError) return { ok: false, reason: 'TooLarge', message: err.message };
      if (err instanceof MetricsParseError) return { ok: false, reason: 'BadResponse', message: err.message };
      const timeout = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      if (timeout) return { ok: false, reason: 'Timeout', message: `${this.name}: no answer in time` };
      return {
        ok: false,
        reason: 'BadResponse',
        message: `${this.name}: the answer broke off: ${describe(err)}`,
      };
    }
    const { series, evaluatedAt, warnings, infos } = answer;
    if (series.length === 0) {
      const warned = warnings ? ` (the store warned: ${warnings.join('; ')})` : '';
      return {
        ok: false,
        reason: 'Empty',
        message: `${this.name}: no ${metric} series for ${promql}${warned}`,
      };
    }
    return {
      ok: true,
      series,
      errors: [],
      ...(evaluatedAt === null ? {} : { evaluatedAt }),
      ...(warnings ? { warnings } : {}),
      ...(infos ? { infos } : {}),
    };
  }
}

/** An HTTP error's body as JSON (undefined when it is not JSON) and its first 200 characters. */
async function readError(response: Response): Promise<{ body: unknown; head: string }> {
  const text = await response.text().catch(() => '');
  try {
    return { body: JSON.parse(text) as unknown, head: text.slice(0, 200) };
  } catch {
    return { body: undefined, head: text.slice(0, 200) };
  }
}

async function* emptyBody(): AsyncIterable<Uint8Array> {}

function isErrorBody(v: unknown): v is { error: string } {
  return typeof v === 'object' && v !== null && typeof (v as { error?: unknown }).error === 'string';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}
