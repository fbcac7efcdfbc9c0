import { MetricsParseError } from './dcgm-text.js';
import { utilizationQuery } from './query.js';
import { parseQueryAnswer } from './query-result.js';
import type { UtilizationQuery, UtilizationReading, UtilizationSource } from './types.js';

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
  /** Request deadline (milliseconds); default 10 000. */
  timeoutMs?: number;
  /** Injected for tests; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * GPU utilisation through the Prometheus HTTP API (`POST /api/v1/query`): ONE instant query per
 * pass for every GPU (see `utilizationQuery`), with the scale-down stabilisation window's history
 * when the query asks for it; with `query.namespaces`, only the series of pods in those
 * namespaces, aggregated to the labels attribution reads (no request when the list is empty). No `time` is sent: Prometheus evaluates at its own now, and the
 * reading's `evaluatedAt` is that time (the vector's timestamps), so sample ages never depend on
 * the controller's clock. An unreachable server, a timeout, an HTTP or
 * PromQL error and an empty result are all "no data" with a reason — never 0 %.
 */
export class PrometheusSource implements UtilizationSource {
  readonly name: string;
  constructor(private readonly options: PrometheusSourceOptions) {
    this.name = `prometheus ${options.url}`;
  }

  async read(query: UtilizationQuery): Promise<UtilizationReading> {
    const metric = this.options.metric ?? query.metric;
    if (query.namespaces?.length === 0) {
      return { ok: false, reason: 'Empty', message: `${this.name}: no algorithm namespace to read` };
    }
    const promql = utilizationQuery(
      metric,
      query.windowSeconds,
      this.options.selector,
      query.historySeconds ?? 0,
      query.namespaces,
    );
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
    const { body, head } = await readJson(response);
    if (!response.ok) {
      const detail = isErrorBody(body) ? body.error : head;
      return { ok: false, reason: 'HttpError', message: `${this.name}: HTTP ${response.status}: ${detail}` };
    }
    try {
      const { series, evaluatedAt } = parseQueryAnswer(body, { source: this.name, metric });
      if (series.length === 0) {
        return { ok: false, reason: 'Empty', message: `${this.name}: no ${metric} series for ${promql}` };
      }
      return { ok: true, series, errors: [], ...(evaluatedAt === null ? {} : { evaluatedAt }) };
    } catch (err) {
      if (err instanceof MetricsParseError) return { ok: false, reason: 'BadResponse', message: err.message };
      throw err;
    }
  }
}

/**
 * The body as JSON (undefined when it is not JSON) and, for an HTTP error, its first 200
 * characters. The text goes out of scope here (a slice of it would keep it alive): a fleet's
 * answer is tens of MB, and the series are built after it is freed.
 */
async function readJson(response: Response): Promise<{ body: unknown; head: string }> {
  const text = await response.text().catch(() => '');
  const head = response.ok ? '' : text.slice(0, 200);
  try {
    return { body: JSON.parse(text) as unknown, head };
  } catch {
    return { body: undefined, head };
  }
}

function isErrorBody(v: unknown): v is { error: string } {
  return typeof v === 'object' && v !== null && typeof (v as { error?: unknown }).error === 'string';
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message}: ${cause.message}` : err.message;
}
