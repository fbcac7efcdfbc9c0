/**
 * AMD device-metrics-exporter pages read like dcgm-exporter's: `gpu_gfx_activity` (percent) in
 * dcgm-exporter's spelling, its own label names mapped, and the neighbours that must not count.
 */
import { describe, expect, it } from 'vitest';
import { parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import { inCommonSpelling, utilisationMetrics } from '../../src/metrics/vendor-series.js';
import { DCGM } from '../../src/util/vocabulary.js';

const AT = Date.parse('2026-12-01T10:00:00Z');

/** One line of an AMD exporter page as the exporter labels it (`pod=""` on a GPU nobody holds). */
const line = (labels: Record<string, string>, value: string, metric = 'gpu_gfx_activity') =>
  `${metric}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}} ${value}`;
const held = {
  card_model: '102-G30211-0C',
  gpu_id: '2',
  gpu_uuid: 'ccff74a1-0000-1000-80e0-c6d49f5b0d86',
  hostname: 'amd-mi300x-01',
  serial_number: '692409005408',
  pod: 'llm-amd-6f7c9-abcde',
  namespace: 'algorithms',
  container: 'llm-amd',
};
const page = (...lines: string[]) => `# HELP gpu_gfx_activity Graphics engine usage percentage
# TYPE gpu_gfx_activity gauge
${lines.join('\n')}
`;
const read = (text: string, metrics: string[] | undefined = [DCGM.GPU_UTIL], node?: string) =>
  parseDcgmPage(text, {
    source: 'amd-mi300x-01.prom',
    scrapedAtMs: AT,
    ...(metrics ? { metrics } : {}),
    ...(node ? { node } : {}),
  });

describe('AMD exporter page', () => {
  it.each<
    [
      string,
      string,
      string[] | undefined,
      { metric: string; labels: Record<string, string>; value: number }[],
    ]
  >([
    [
      'HeldGpuBecomesCommonSeries',
      page(line(held, '73')),
      [DCGM.GPU_UTIL],
      [
        {
          metric: DCGM.GPU_UTIL,
          labels: {
            card_model: '102-G30211-0C',
            gpu: '2',
            UUID: 'ccff74a1-0000-1000-80e0-c6d49f5b0d86',
            Hostname: 'amd-mi300x-01',
            node: 'amd-mi300x-01',
            serial_number: '692409005408',
            pod: 'llm-amd-6f7c9-abcde',
            namespace: 'algorithms',
            container: 'llm-amd',
          },
          value: 73,
        },
      ],
    ],
    [
      'UnheldGpuKeepsEmptyPod',
      page(line({ ...held, pod: '', namespace: '', container: '' }, '0')),
      [DCGM.GPU_UTIL],
      [
        {
          metric: DCGM.GPU_UTIL,
          labels: expect.objectContaining({ pod: '', namespace: '', node: 'amd-mi300x-01' }) as never,
          value: 0,
        },
      ],
    ],
    ['NoSamplesIsNoData', page(), [DCGM.GPU_UTIL], []],
    [
      'NoAmdFamilyIsNoData',
      '# TYPE gpu_power_usage gauge\ngpu_power_usage{gpu_id="0"} 300\n',
      [DCGM.GPU_UTIL],
      [],
    ],
    ['MemoryActivityIsNotUtilisation', page(line(held, '55', 'gpu_umc_activity')), [DCGM.GPU_UTIL], []],
    ['UppercaseFieldNameIsNotTheMetric', page(line(held, '55', 'GPU_GFX_ACTIVITY')), [DCGM.GPU_UTIL], []],
    ['EngineActiveAsksNoAmdMetric', page(line(held, '55')), [DCGM.GR_ENGINE_ACTIVE], []],
    [
      'DefaultFamiliesTakeIt',
      page(line(held, '12')),
      undefined,
      [expect.objectContaining({ value: 12 }) as never],
    ],
    [
      'WithoutUuidTheIndexAndHostRemain',
      page(line({ gpu_id: '5', hostname: 'amd-mi300x-01', pod: 'p', namespace: 'algorithms' }, '40')),
      [DCGM.GPU_UTIL],
      [
        {
          metric: DCGM.GPU_UTIL,
          labels: {
            gpu: '5',
            Hostname: 'amd-mi300x-01',
            node: 'amd-mi300x-01',
            pod: 'p',
            namespace: 'algorithms',
          },
          value: 40,
        },
      ],
    ],
  ])('%s', (_name, text, metrics, want) => {
    expect(read(text, metrics).map(({ metric, labels, value }) => ({ metric, labels, value }))).toEqual(want);
  });

  it("a scrape target's node label wins over the exporter's hostname", () => {
    const [s] = read(
      page(line({ ...held, hostname: 'amd-mi300x-01.example.internal' }, '9')),
      [DCGM.GPU_UTIL],
      'amd-mi300x-01',
    );
    expect(s!.labels.node).toBe('amd-mi300x-01');
    expect(s!.labels.Hostname).toBe('amd-mi300x-01.example.internal');
  });

  it('a dcgm-exporter series and a series of no vendor come back unchanged', () => {
    const nv = {
      metric: DCGM.GPU_UTIL,
      labels: { gpu: '0', UUID: 'GPU-1', pod: 'x' },
      value: 5,
      timestamp: AT,
    };
    const other = { metric: 'gpu_umc_activity', labels: { gpu_id: '0' }, value: 5, timestamp: AT };
    expect(inCommonSpelling(nv)).toBe(nv);
    expect(inCommonSpelling(other)).toBe(other);
  });

  it('only GPU utilisation is answered by every vendor', () => {
    expect(utilisationMetrics(DCGM.GPU_UTIL)).toEqual([DCGM.GPU_UTIL, 'gpu_gfx_activity']);
    expect(utilisationMetrics(DCGM.FB_USED)).toEqual([DCGM.FB_USED]);
  });
});
