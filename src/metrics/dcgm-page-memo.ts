/**
 * The last page parse of each dcgm-exporter target, kept while its lines are unchanged:
 * dcgm-exporter samples its GPUs at its collection interval (`--collect-interval`), and a scrape
 * does not make DCGM query the hardware, so scraping faster returns the same cached sample
 * (NVIDIA's "Configure Prometheus for DCGM Exporter"): a signal read every few seconds gets the
 * same utilisation lines most times (the replay's simulated exporter: about nine pages in ten on
 * the bundled trace), and parsing them costs more than comparing them.
 */
import { familyLines } from './family-lines.js';
import {
  type DcgmPageOptions,
  parsePageLines,
  stampSeries,
  type UnstampedSeries,
  wantedFamilies,
} from './dcgm-text.js';
import type { GpuSeries } from './types.js';

/** What one target's last parse read and gave. */
interface Kept {
  lines: string;
  metrics: string;
  node: string | undefined;
  nodeHint: string | undefined;
  series: UnstampedSeries[];
}

/**
 * {@link parseDcgmPage} of one page per target, the same series (fresh copies, stamped with this
 * scrape's time), parsed again only when the wanted families' lines ({@link familyLines}), the
 * metrics, `node` or `nodeHint` differ from that target's last page. Keeps one page's wanted lines
 * per target (a few kB for 8 GPUs), never the whole page; a page that fails to parse is not kept.
 */
export class DcgmPageMemo {
  private readonly kept = new Map<string, Kept>();

  /**
   * The series of `text`, the page of `target` (a URL), as `parseDcgmPage(text, options)` gives.
   * @throws MetricsParseError as {@link parseDcgmPage}.
   */
  parse(
    target: string,
    text: string,
    options: DcgmPageOptions & { metrics: readonly string[] },
  ): GpuSeries[] {
    const wanted = wantedFamilies(options.metrics);
    const lines = familyLines(text, wanted);
    const metrics = options.metrics.join('\n');
    const last = this.kept.get(target);
    if (
      last !== undefined &&
      last.lines === lines &&
      last.metrics === metrics &&
      last.node === options.node &&
      last.nodeHint === options.nodeHint
    )
      return stampSeries(last.series, options.scrapedAtMs);
    this.kept.delete(target);
    const series = parsePageLines(text, lines, wanted, options);
    this.kept.set(target, { lines, metrics, node: options.node, nodeHint: options.nodeHint, series });
    return stampSeries(series, options.scrapedAtMs);
  }
}
