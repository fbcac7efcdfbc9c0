import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import { parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute } from '../../src/scaling/attribute.js';
import type { Attribution } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { fixturePods, policy } from './support.js';

const dir = new URL('../fixtures/cluster-mixed/', import.meta.url);
const read = (f: string) => readFileSync(new URL(f, dir), 'utf8');
const SCRAPED = Date.parse('2025-06-01T12:00:00Z');
const NOW = new Date(SCRAPED + 30_000);
const PAGES = ['gpu-a100-01', 'gpu-a100-03', 'gpu-t4-02'];

const foreign = fixturePods();

/** The fixture's pods, with `llm-finetune-0` and `video-decode-…` made gpuops-managed. */
function managedPods(patch: Record<string, Partial<PodInfo>> = {}): PodInfo[] {
  return fixturePods({ 'llm-finetune-0': 'llm-finetune', 'video-decode': 'video-decode' }).map((p) => ({
    ...p,
    ...(patch[p.name] ?? {}),
  }));
}

function pages(edit: (text: string, node: string) => string = (t) => t): GpuSeries[] {
  return PAGES.flatMap((node) =>
    parseDcgmPage(edit(read(`dcgm/${node}.prom`), node), {
      source: `dcgm/${node}.prom`,
      scrapedAtMs: SCRAPED,
      node,
    }),
  );
}

/** As Prometheus stores a dcgm-exporter scraped without honor_labels: the target's pod wins. */
function asScrapedByPrometheus(text: string, node: string): string {
  return text.replace(/namespace="([^"]*)",pod="([^"]*)"/g, (_m, ns: string, pod: string) => {
    return `exported_namespace="${ns}",exported_pod="${pod}",namespace="gpu-operator",pod="nvidia-dcgm-exporter-${node === 'gpu-a100-03' ? '0003' : 'x'}"`;
  });
}

interface Row {
  name: string;
  series: () => GpuSeries[];
  pods?: () => PodInfo[];
  policy?: Policy;
  now?: Date;
  check: (a: Attribution) => void;
}

const samplesOf = (a: Attribution, alg: string) =>
  (a.byAlgorithm.get(alg)?.samples ?? []).map((s) => [
    `${s.namespace}/${s.pod}`,
    s.utilization,
    s.gpus.length,
  ]);
const reasons = (a: Attribution) => [...new Set(a.dropped.map((d) => `${d.pod}:${d.reason}`))].sort();

const rows: Row[] = [
  {
    name: 'ForeignWorkloadsAreNotAttributed',
    series: () => pages(),
    pods: () => foreign,
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      expect(reasons(a)).toEqual(['llm-finetune-0:NotManaged', 'video-decode-5c9d7-2xq8w:NotManaged']);
    },
  },
  {
    name: 'PodWithSeveralGpusCountsOnceWithTheirMean',
    series: () => pages(),
    check: (a) => {
      expect(samplesOf(a, 'llm-finetune')).toEqual([['research/llm-finetune-0', 95.5, 4]]);
      expect(samplesOf(a, 'video-decode')).toEqual([['media/video-decode-5c9d7-2xq8w', 61, 1]]);
      expect(a.byAlgorithm.get('llm-finetune')!.samples[0]!.at).toBe('2025-06-01T12:00:00.000Z');
    },
  },
  {
    name: 'EmptyPodBelongsToNoAlgorithmButItsGpuIsListed',
    series: () => pages(),
    check: (a) => {
      // 8 idle GPUs on gpu-a100-01, 4 on gpu-a100-03, 3 on gpu-t4-02.
      expect(a.unattributed).toHaveLength(15);
      expect(new Set(a.unattributed.map((g) => g.host))).toEqual(new Set(PAGES));
      expect(a.unattributed.every((g) => g.utilization === 0)).toBe(true);
    },
  },
  {
    name: 'EmptyPodWithLoadMarksTheGpuBusy',
    series: () =>
      pages((t, n) =>
        n === 'gpu-t4-02' ? t.replace(/(DCGM_FI_DEV_GPU_UTIL\{gpu="1".*pod=""\}) 0/, '$1 73') : t,
      ),
    check: (a) => {
      const busy = a.unattributed.filter((g) => g.utilization > 0);
      expect(busy).toEqual([
        { gpu: 'GPU-32f055c7-1c09-46c0-4565-632e4f921d89', host: 'gpu-t4-02', utilization: 73 },
      ]);
    },
  },
  {
    name: 'GrEngineActiveRatioIsNormalisedToPercent',
    series: () => pages(),
    policy: policy({ metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' }),
    check: (a) => {
      const [[pod, util, gpus]] = samplesOf(a, 'llm-finetune') as [[string, number, number]];
      expect([pod, gpus]).toEqual(['research/llm-finetune-0', 4]);
      expect(util).toBeCloseTo(95.5, 6);
      expect(samplesOf(a, 'video-decode')[0]![1]).toBeCloseTo(61, 6);
    },
  },
  {
    name: 'ExportedPodWinsOverTheExporterPod',
    series: () => pages(asScrapedByPrometheus),
    check: (a) => {
      expect(samplesOf(a, 'llm-finetune')).toEqual([['research/llm-finetune-0', 95.5, 4]]);
      expect(a.unattributed).toHaveLength(15); // exported_pod="" is no pod, though `pod` names the exporter
    },
  },
  {
    name: 'StaleSamplesAreDropped',
    series: () => pages(),
    now: new Date(SCRAPED + 121_000),
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      expect(a.unattributed).toHaveLength(0);
      expect(a.dropped.find((d) => d.pod === 'llm-finetune-0')!.message).toContain('121s old (limit 120s)');
    },
  },
  {
    // Boundary: a sample exactly staleSampleSeconds (120 s) old is kept …
    name: 'SampleExactlyAtTheStaleLimitCounts',
    series: () => pages(),
    now: new Date(SCRAPED + 120_000),
    check: (a) => {
      expect(samplesOf(a, 'llm-finetune')).toEqual([['research/llm-finetune-0', 95.5, 4]]);
      expect(a.dropped.filter((d) => d.reason === 'Stale')).toEqual([]);
    },
  },
  {
    // … and one millisecond older is Stale, with its age.
    name: 'SampleOneMillisecondPastTheStaleLimitIsStale',
    series: () => pages(),
    now: new Date(SCRAPED + 120_001),
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      const d = a.dropped.find((x) => x.pod === 'llm-finetune-0')!;
      expect(d).toMatchObject({ reason: 'Stale', ageSeconds: 120 });
    },
  },
  {
    name: 'NaNAndInfAreDroppedTheOtherGpusStillCount',
    series: () =>
      pages((t, n) =>
        n === 'gpu-a100-03'
          ? t
              .replace(/(DCGM_FI_DEV_GPU_UTIL\{gpu="0".*\}) 97/, '$1 NaN')
              .replace(/(DCGM_FI_DEV_GPU_UTIL\{gpu="1".*\}) 95/, '$1 +Inf')
          : t,
      ),
    check: (a) => {
      expect(samplesOf(a, 'llm-finetune')).toEqual([['research/llm-finetune-0', 95, 2]]);
      expect(reasons(a)).toContain('llm-finetune-0:NotFinite');
    },
  },
  {
    name: 'NotReadyTerminatingAndUnknownPodsDoNotCount',
    series: () => pages((t) => t.replace(/pod="video-decode-5c9d7-2xq8w"/g, 'pod="video-decode-gone"')),
    pods: () => managedPods({ 'llm-finetune-0': { ready: false } }),
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      expect(reasons(a)).toEqual(['llm-finetune-0:PodNotReady', 'video-decode-gone:UnknownPod']);
    },
  },
  {
    name: 'TerminatingPodDoesNotCount',
    series: () => pages(),
    pods: () => managedPods({ 'llm-finetune-0': { terminating: true } }),
    check: (a) => {
      expect(a.byAlgorithm.has('llm-finetune')).toBe(false);
      expect(reasons(a)).toContain('llm-finetune-0:PodTerminating');
    },
  },
  {
    name: 'TimeSlicedGpuIsCountedOnceAndFlagged',
    // A second pod of the same algorithm reported on the video-decode pod's GPU.
    series: () =>
      pages((t, n) => {
        if (n !== 'gpu-t4-02') return t;
        const line = t.split('\n').find((l) => l.startsWith('DCGM_FI_DEV_GPU_UTIL{gpu="0"'))!;
        return `${t}${line.replace('video-decode-5c9d7-2xq8w', 'video-decode-5c9d7-zz9k1')}\n`;
      }),
    pods: () => {
      const base = managedPods();
      const twin = base.find((p) => p.name === 'video-decode-5c9d7-2xq8w')!;
      return [...base, { ...twin, name: 'video-decode-5c9d7-zz9k1', uid: 'twin' }];
    },
    check: (a) => {
      const v = a.byAlgorithm.get('video-decode')!;
      expect(v.samples.map((s) => s.pod)).toEqual(['video-decode-5c9d7-2xq8w']);
      expect(v.flags).toHaveLength(1);
      expect(v.flags[0]!.pods).toEqual(['media/video-decode-5c9d7-2xq8w', 'media/video-decode-5c9d7-zz9k1']);
      expect(v.dropped.map((d) => [d.pod, d.reason])).toEqual([['video-decode-5c9d7-zz9k1', 'SharedGpu']]);
    },
  },
];

describe('attribute (fixture dcgm pages)', () => {
  it.each(rows)('$name', (row) => {
    const a = attribute(
      row.series(),
      (row.pods ?? (() => managedPods()))(),
      row.policy ?? policy(),
      row.now ?? NOW,
    );
    row.check(a);
  });
});
