import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MetricsParseError, parseDcgmPage } from './dcgm-text.js';
import { parseQueryAnswer } from './query-result.js';
import type { GpuSeries, UtilizationQuery, UtilizationReading, UtilizationSource } from './types.js';

/**
 * Parses one saved metrics file for `gpuops plan --metrics FILE`: a Prometheus query-result JSON
 * (starts with `{`) or a dcgm-exporter page (text format). For a page, the file name without
 * `.prom`/`.txt` is the node it probably belongs to (`dcgm/<node>.prom`, as in the fixtures): a
 * hint attribution reads only when the series' own `node` and `Hostname` do not tell the node
 * (a name a person chose is no evidence against the page's own labels). Samples without a
 * timestamp are dated `fileTimeMs`.
 *
 * @throws MetricsParseError naming the file (and line, for pages).
 */
export function parseMetricsFile(
  file: string,
  text: string,
  metric: string,
  fileTimeMs: number,
  window: { windowSeconds?: number; historySeconds?: number } = {},
): GpuSeries[] {
  return parseMetricsFileAnswer(file, text, metric, fileTimeMs, window).series;
}

/**
 * {@link parseMetricsFile}, with a saved query answer's `warnings` and `infos` (a partial answer
 * saved to a file is as partial as it was on the wire).
 * @throws MetricsParseError naming the file (and line, for pages).
 */
export function parseMetricsFileAnswer(
  file: string,
  text: string,
  metric: string,
  fileTimeMs: number,
  window: { windowSeconds?: number; historySeconds?: number } = {},
): { series: GpuSeries[]; warnings?: string[]; infos?: string[] } {
  if (text.trimStart().startsWith('{')) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new MetricsParseError(
        file,
        null,
        `invalid JSON: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    const { series, warnings, infos } = parseQueryAnswer(body, { source: file, metric, ...window });
    return { series, ...(warnings ? { warnings } : {}), ...(infos ? { infos } : {}) };
  }
  const node = path.basename(file).replace(/\.(prom|txt|metrics)$/, '');
  return {
    series: parseDcgmPage(text, { source: file, scrapedAtMs: fileTimeMs, metrics: [metric], nodeHint: node }),
  };
}

/**
 * Saved files as a source. `fileTimeMs` dates samples without timestamps (for `plan`, pass the
 * plan's `now` so saved pages are not all stale). A file that cannot be read or parsed is listed
 * in `errors`; the others go on. The reading is evaluated at the newest sample of the files
 * (their own time: a dump from last week gives last week's decision), unless `evaluatedAtMs` is
 * given (`plan --now`).
 */
export class MetricsFileSource implements UtilizationSource {
  readonly name = 'metrics files';
  constructor(
    private readonly files: string[],
    private readonly fileTimeMs: number,
    private readonly evaluatedAtMs: number | null = null,
  ) {}

  async read(query: UtilizationQuery): Promise<UtilizationReading> {
    const series: GpuSeries[] = [];
    const errors: string[] = [];
    const warnings: string[] = [];
    const infos: string[] = [];
    for (const file of this.files) {
      try {
        const answer = parseMetricsFileAnswer(
          file,
          await readFile(file, 'utf8'),
          query.metric,
          this.fileTimeMs,
          {
            windowSeconds: query.windowSeconds,
            historySeconds: query.historySeconds ?? 0,
          },
        );
        series.push(...answer.series);
        for (const w of answer.warnings ?? []) warnings.push(`${file}: ${w}`);
        for (const i of answer.infos ?? []) infos.push(`${file}: ${i}`);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (series.length === 0) {
      return {
        ok: false,
        reason: errors.length ? 'BadResponse' : 'Empty',
        message: errors.length ? errors.join('; ') : `no ${query.metric} series in ${this.files.join(', ')}`,
      };
    }
    let newest = -Infinity;
    for (const s of series) if (s.timestamp > newest) newest = s.timestamp;
    return {
      ok: true,
      series,
      errors,
      evaluatedAt: this.evaluatedAtMs ?? newest,
      ...(warnings.length ? { warnings } : {}),
      ...(infos.length ? { infos } : {}),
    };
  }
}
