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
    return parseQueryAnswer(body, { source: file, metric, ...window }).series;
  }
  const node = path.basename(file).replace(/\.(prom|txt|metrics)$/, '');
  return parseDcgmPage(text, { source: file, scrapedAtMs: fileTimeMs, metrics: [metric], nodeHint: node });
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
    for (const file of this.files) {
      try {
        series.push(
          ...parseMetricsFile(file, await readFile(file, 'utf8'), query.metric, this.fileTimeMs, {
            windowSeconds: query.windowSeconds,
            historySeconds: query.historySeconds ?? 0,
          }),
        );
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
    return { ok: true, series, errors, evaluatedAt: this.evaluatedAtMs ?? newest };
  }
}
