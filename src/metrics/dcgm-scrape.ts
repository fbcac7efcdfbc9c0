import { DcgmPageMemo } from './dcgm-page-memo.js';
import type { GpuSeries, UtilizationQuery, UtilizationReading, UtilizationSource } from './types.js';

/** One dcgm-exporter endpoint; `node` names the node it runs on, when known. */
export interface DcgmTarget {
  url: string;
  node?: string;
}

/** {@link DcgmScrapeOptions.maxPageBytes} when not given. */
export const DEFAULT_MAX_PAGE_BYTES = 16 * 2 ** 20;

/**
 * A page's text, read up to `maxBytes`.
 * @throws Error past `maxBytes` (reading stops and the body is cancelled)
 */
async function readPage(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of response.body ?? []) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new Error(`the page is larger than ${maxBytes} bytes; reading stopped there`);
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks)); // as Response.text(): UTF-8, a BOM skipped
}

/** Settings of {@link DcgmScrapeSource}. */
export interface DcgmScrapeOptions {
  targets: DcgmTarget[];
  /** Request deadline per page (milliseconds); default 5 000. */
  timeoutMs?: number;
  /**
   * Bytes of one page read at most (default 16 MiB; dcgm-exporter's page of 8 GPUs is about
   * 100 kB): a larger page is that target's error, and the others go on.
   */
  maxPageBytes?: number;
  /** The clock, for the scrape time of samples without a timestamp. */
  now: () => Date;
  fetch?: typeof fetch;
}

/**
 * GPU utilisation scraped straight from dcgm-exporter pages (`--dcgm-url`, when there is no
 * Prometheus). Each page is fetched in parallel and parsed with `parse-prometheus-text-format`.
 * A page that fails is listed in `errors` and the others go on; when every page fails, or no page
 * has the metric, the reading is "no data". Values are instant (the exporter's latest), not
 * averaged over the window.
 */
export class DcgmScrapeSource implements UtilizationSource {
  readonly name = 'dcgm-exporter';
  /** Each target's last page parse, reused while its utilisation lines are unchanged. */
  private readonly pages = new DcgmPageMemo();
  constructor(private readonly options: DcgmScrapeOptions) {}

  async read(query: UtilizationQuery): Promise<UtilizationReading> {
    const doFetch = this.options.fetch ?? fetch;
    const scrapedAtMs = this.options.now().getTime();
    const results = await Promise.all(
      this.options.targets.map(async (target): Promise<{ series: GpuSeries[] } | { error: string }> => {
        try {
          const response = await doFetch(target.url, {
            signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000),
          });
          if (!response.ok) return { error: `${target.url}: HTTP ${response.status}` };
          const text = await readPage(response, this.options.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES);
          const series = this.pages.parse(target.url, text, {
            source: target.url,
            scrapedAtMs,
            metrics: [query.metric],
            ...(target.node === undefined ? {} : { node: target.node }),
          });
          return { series };
        } catch (err) {
          return { error: `${target.url}: ${err instanceof Error ? err.message : String(err)}` };
        }
      }),
    );
    const series: GpuSeries[] = [];
    const errors: string[] = [];
    for (const r of results) {
      if ('error' in r) errors.push(r.error);
      else series.push(...r.series);
    }
    if (series.length === 0) {
      const failed = errors.length === results.length && results.length > 0;
      return {
        ok: false,
        reason: failed ? 'Unreachable' : 'Empty',
        message: failed
          ? `no dcgm-exporter page could be read: ${errors.join('; ')}`
          : `no ${query.metric} series on ${results.length} dcgm-exporter page(s)${errors.length ? `; ${errors.join('; ')}` : ''}`,
      };
    }
    return { ok: true, series, errors, evaluatedAt: scrapedAtMs };
  }
}
