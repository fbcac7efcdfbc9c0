import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { GpuSeries } from './types.js';
import { DCGM, VENDORS } from '../util/index.js';
import { inCommonSpelling, utilisationMetrics } from './vendor-series.js';
import { familyLines } from './family-lines.js';

/** A page or file that cannot be parsed; names the source and, when known, the 1-based line. */
export class MetricsParseError extends Error {
  constructor(
    readonly source: string,
    readonly line: number | null,
    message: string,
  ) {
    super(`${source}${line === null ? '' : `:${line}`}: ${message}`);
    this.name = 'MetricsParseError';
  }
}

/** Options of {@link parseDcgmPage}. */
export interface DcgmPageOptions {
  /** File name or URL, for error messages. */
  source: string;
  /** Time of the scrape (ms since epoch), used for samples that carry no timestamp. */
  scrapedAtMs: number;
  /**
   * Only these metric families are returned (default: every family named `DCGM_FI_*` and every
   * vendor's utilisation metric); asking `DCGM_FI_DEV_GPU_UTIL` takes every vendor's
   * (`utilisationMetrics`).
   */
  metrics?: readonly string[];
  /**
   * The node the page belongs to, when known (the page's URL or file name). Added as label
   * `node` when the series has none: dcgm-exporter's `Hostname` is its own pod's name, not the
   * node's (fixtures/cluster-mixed README).
   */
  node?: string;
  /**
   * A node the page probably belongs to, from something a person named (a saved file's name):
   * added as label {@link NODE_HINT_LABEL}, which attribution reads only when neither `node` nor
   * `Hostname` tells the node (`src/scaling/series-node.ts`).
   */
  nodeHint?: string;
}

/** The label a {@link DcgmPageOptions.nodeHint} is kept under (never sent by an exporter). */
export const NODE_HINT_LABEL = 'gpuops_node_hint';

/**
 * Parses one GPU exporter page (Prometheus text exposition format, as dcgm-exporter serves it at
 * `:9400/metrics` and AMD's device-metrics-exporter at `:5000/metrics`) with
 * `parse-prometheus-text-format` into raw per-GPU series, in dcgm-exporter's spelling
 * (`inCommonSpelling`: AMD's `gpu_gfx_activity` comes back as `DCGM_FI_DEV_GPU_UTIL`). Values stay
 * in the field's unit; `NaN`/`±Inf` are kept (attribution drops them with a reason). With
 * `metrics`, only those families' lines are parsed (`familyLines`): a syntax error in another
 * family's line is not found, as that family is not read.
 *
 * @throws MetricsParseError naming `source` and the offending line.
 */
export function parseDcgmPage(text: string, options: DcgmPageOptions): GpuSeries[] {
  const wanted = wantedFamilies(options.metrics);
  const lines = wanted ? familyLines(text, wanted) : text;
  return stampSeries(parsePageLines(text, lines, wanted, options), options.scrapedAtMs);
}

/** A series of a page before the scrape time is known: `timestamp` undefined when the sample has none. */
export type UnstampedSeries = Omit<GpuSeries, 'timestamp'> & { timestamp: number | undefined };

/**
 * The family names `metrics` asks for (every vendor's for `DCGM_FI_DEV_GPU_UTIL`,
 * `utilisationMetrics`), or null for "every `DCGM_FI_*` family and every vendor's utilisation".
 */
export function wantedFamilies(metrics: readonly string[]): Set<string>;
export function wantedFamilies(metrics: readonly string[] | undefined): Set<string> | null;
export function wantedFamilies(metrics: readonly string[] | undefined): Set<string> | null {
  return metrics ? new Set(metrics.flatMap(utilisationMetrics)) : null;
}

/**
 * The series of `lines` (`text`, or its {@link familyLines} for `wanted`) as
 * {@link parseDcgmPage} gives them, before stamping: `options.scrapedAtMs` is not read.
 *
 * @throws MetricsParseError naming `options.source` and the offending line of `text`.
 */
export function parsePageLines(
  text: string,
  lines: string,
  wanted: ReadonlySet<string> | null,
  options: Omit<DcgmPageOptions, 'scrapedAtMs' | 'metrics'>,
): UnstampedSeries[] {
  let families;
  try {
    // With `metrics`, only their families' lines are parsed (a pass reads one of dozens).
    families = parsePrometheusTextFormat(lines);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new MetricsParseError(options.source, lineOf(text, message), message);
  }
  const vendorMetrics = new Set(VENDORS.map((v) => v.utilisation.metric));
  const out: UnstampedSeries[] = [];
  for (const family of families) {
    const taken = wanted
      ? wanted.has(family.name)
      : family.name.startsWith(DCGM.prefix) || vendorMetrics.has(family.name);
    if (!taken) continue;
    for (const sample of family.metrics) {
      if (sample.value === undefined) continue;
      const labels = { ...(sample.labels ?? {}) };
      if (options.node !== undefined && labels.node === undefined) labels.node = options.node;
      if (options.nodeHint !== undefined) labels[NODE_HINT_LABEL] = options.nodeHint;
      const series = {
        metric: family.name,
        labels,
        value: parseSampleValue(sample.value),
        timestamp: sample.timestamp_ms === undefined ? undefined : Number(sample.timestamp_ms),
      };
      out.push(inCommonSpelling(series));
    }
  }
  return out;
}

/**
 * Fresh copies of `series` (labels too, so a caller may change them) with `scrapedAtMs`
 * (milliseconds since the epoch) as the timestamp of those whose sample had none.
 */
export function stampSeries(series: readonly UnstampedSeries[], scrapedAtMs: number): GpuSeries[] {
  return series.map((s) => ({ ...s, labels: { ...s.labels }, timestamp: s.timestamp ?? scrapedAtMs }));
}

/** Prometheus sample values: a float, `NaN`, `+Inf`, `-Inf` (exposition format). */
export function parseSampleValue(value: string): number {
  switch (value) {
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return Number(value);
  }
}

/** The 1-based line of the text the library's error message quotes, or null. */
function lineOf(text: string, message: string): number | null {
  const m = /invalid line: (.*)$/s.exec(message);
  if (!m) return null;
  const bad = m[1]!;
  const index = text.split('\n').findIndex((l) => l === bad || l.trim() === bad.trim());
  return index < 0 ? null : index + 1;
}
