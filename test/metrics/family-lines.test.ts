/**
 * `familyLines`: the page parser reads only the families a pass asks for. Parsing the kept lines
 * must give what parsing the whole page gives for those families (same samples, same families,
 * same errors of their lines), on real pages, the simulator's and pages built to catch the
 * parser's edges (a family split by others, histograms, no final newline, blank and comment lines).
 */
import { readFileSync } from 'node:fs';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { MetricsParseError, parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import { familyLines } from '../../src/metrics/family-lines.js';
import { formatAmdPage } from '../../src/sim/dcgm/amd-page.js';
import { formatDcgmPage } from '../../src/sim/dcgm/page.js';
import { dcgmGpu } from '../support/dcgm-gpu.js';

const fixture = (p: string) => readFileSync(new URL(`../fixtures/${p}`, import.meta.url), 'utf8');

const gpus = [dcgmGpu(0, 'a-1', 73.4), dcgmGpu(1, '', 0), dcgmGpu(2, 'a-2', 12)];

const PAGES: [string, string][] = [
  ['cluster-mixed gpu-a100-01', fixture('cluster-mixed/dcgm/gpu-a100-01.prom')],
  ['cluster-mixed gpu-a100-03', fixture('cluster-mixed/dcgm/gpu-a100-03.prom')],
  ['cluster-mixed gpu-t4-02', fixture('cluster-mixed/dcgm/gpu-t4-02.prom')],
  ['fleet-faults F06', fixture('fleet-faults/F06/util.prom')],
  ['the simulator’s dcgm-exporter page', formatDcgmPage(gpus)],
  ['the simulator’s AMD page', formatAmdPage('amd-1', gpus)],
  [
    'a family split by another, equal labels on both sides',
    'U{gpu="0"} 1\nOTHER{gpu="0"} 5\nU{gpu="0"} 2\nU{gpu="1"} 3\n',
  ],
  ['a family split by blank and comment lines only', 'U{gpu="0"} 1\n\n# a comment\nU{gpu="0"} 2\n'],
  ['no final newline, the last line kept', '# TYPE U gauge\nU{gpu="0"} 1\nU{gpu="1"} 2'],
  ['no final newline, the last line dropped', '# TYPE U gauge\nU{gpu="0"} 1\nOTHER 2'],
  ['no final newline, a comment last', 'U{gpu="0"} 1\n# end'],
  [
    'histograms: the asked one and another',
    '# TYPE H histogram\nH_bucket{le="1"} 1\nH_bucket{le="+Inf"} 2\nH_sum 3\nH_count 2\n# TYPE O histogram\nO_bucket{le="1"} 1\nO_count 1\nU 4\n',
  ],
  ['a gauge with a _count neighbour', '# TYPE U gauge\nU 1\nU_count 7\nU 2\n'],
  [
    'indented lines, tabs, HELP and TYPE of others between',
    '  U{gpu="0"}\t1\n# HELP O o\n# TYPE O gauge\n\tU{gpu="1"} 2\n',
  ],
  ['a prefix of the asked name', 'U_X 1\nUU 2\nU 3\n'],
  ['nothing asked on the page', 'OTHER 1\n'],
  ['empty', ''],
];
const ASKED: string[][] = [
  ['DCGM_FI_DEV_GPU_UTIL'],
  ['DCGM_FI_DEV_GPU_UTIL', 'gpu_gfx_activity'],
  ['DCGM_FI_DEV_FB_USED'],
  ['U'],
  ['H', 'U'],
];

type Families = ReturnType<typeof parsePrometheusTextFormat>;
const only = (f: Families, names: Set<string>) => f.filter((x) => names.has(x.name));

describe('familyLines', () => {
  it.each(PAGES)('%s: the asked families parse as on the whole page', (_, page) => {
    for (const asked of ASKED) {
      const names = new Set(asked);
      expect(only(parsePrometheusTextFormat(familyLines(page, names)), names)).toEqual(
        only(parsePrometheusTextFormat(page), names),
      );
    }
  });

  it('keeps the lines of the asked families only', () => {
    const page = fixture('cluster-mixed/dcgm/gpu-a100-01.prom');
    const kept = familyLines(page, new Set(['DCGM_FI_DEV_GPU_UTIL'])).split('\n');
    expect(kept.filter((l) => l.includes('DCGM_FI_DEV_GPU_UTIL')).length).toBe(
      page.split('\n').filter((l) => l.includes('DCGM_FI_DEV_GPU_UTIL')).length,
    );
    expect(kept.every((l) => l === '' || /DCGM_FI_DEV_GPU_UTIL|gpuops_other_families/.test(l))).toBe(true);
    expect(kept.length).toBeLessThan(page.split('\n').length / 2);
  });
});

describe('parseDcgmPage with metrics', () => {
  it.each(PAGES.slice(0, 6))('%s: the series of a full parse of the same metric', (_, page) => {
    for (const metric of ['DCGM_FI_DEV_GPU_UTIL', 'DCGM_FI_DEV_FB_USED']) {
      const options = { source: 'p.prom', scrapedAtMs: 1000, node: 'n' };
      const full = parseDcgmPage(page, options).filter((s) => s.metric === metric);
      expect(parseDcgmPage(page, { ...options, metrics: [metric] })).toEqual(full);
    }
  });

  it('names the line of a malformed sample of the asked family in the whole page', () => {
    const page = fixture('cluster-mixed/dcgm/gpu-t4-02.prom');
    const bad = page.replace(
      'DCGM_FI_DEV_GPU_UTIL{gpu="1"',
      'DCGM_FI_DEV_GPU_UTIL{gpu="9" 3\nDCGM_FI_DEV_GPU_UTIL{gpu="1"',
    );
    const read = () =>
      parseDcgmPage(bad, { source: 'x.prom', scrapedAtMs: 0, metrics: ['DCGM_FI_DEV_GPU_UTIL'] });
    expect(read).toThrow(MetricsParseError);
    expect(read).toThrow(/^x\.prom:10: /);
  });

  it('reads the asked family past a malformed line of a family it does not read', () => {
    const page = fixture('cluster-mixed/dcgm/gpu-t4-02.prom');
    const bad = page.replace(
      'DCGM_FI_DEV_SM_CLOCK{',
      'DCGM_FI_DEV_SM_CLOCK{gpu="9" 3\nDCGM_FI_DEV_SM_CLOCK{',
    );
    expect(() => parseDcgmPage(bad, { source: 'x.prom', scrapedAtMs: 0 })).toThrow(MetricsParseError);
    const util = parseDcgmPage(bad, { source: 'x.prom', scrapedAtMs: 0, metrics: ['DCGM_FI_DEV_GPU_UTIL'] });
    expect(util.map((s) => s.value)).toEqual([61, 0, 0, 0]);
  });
});
