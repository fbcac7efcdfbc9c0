/**
 * `attribute` on hand-made series, one trap per row: each label rule, each drop reason with the
 * message `plan` prints, and each boundary with its neighbour (0..100 % plus the 0.5 slack, the
 * stale limit). The fixture-page rows in `attribute.test.ts` show the same rules on real pages.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo } from '../../src/cluster/types.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { attribute, gpuKey } from '../../src/scaling/attribute.js';
import type { Attribution } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { pod, policy } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T = NOW.getTime();
const UTIL = 'DCGM_FI_DEV_GPU_UTIL';
const RATIO = 'DCGM_FI_PROF_GR_ENGINE_ACTIVE';

/** One series of GPU `uuid` on pod `algorithms/<podName>` (`podName` '' = no pod). */
function s(
  uuid: string,
  podName: string,
  value: number,
  o: { metric?: string; at?: number; labels?: Record<string, string>; window?: GpuSeries['window'] } = {},
): GpuSeries {
  return {
    metric: o.metric ?? UTIL,
    labels: { UUID: uuid, gpu: '0', Hostname: 'lt-1', namespace: 'algorithms', pod: podName, ...o.labels },
    value,
    timestamp: o.at ?? T,
    ...(o.window ? { window: o.window } : {}),
  };
}

const PODS: PodInfo[] = [pod('p-a'), pod('p-b'), pod('p-c', { algorithm: 'other-alg' })];
/** `p-a` holding two GPUs (the rows of a pod's several GPUs). */
const TWO_GPUS: PodInfo[] = [pod('p-a', { gpuRequest: 2 }), pod('p-b')];

interface Row {
  name: string;
  series: GpuSeries[];
  pods?: PodInfo[];
  policy?: Policy;
  check: (a: Attribution) => void;
}

const samples = (a: Attribution, alg = 'resnet50-infer') => a.byAlgorithm.get(alg)?.samples ?? [];
const utils = (a: Attribution, alg?: string) => samples(a, alg).map((x) => [x.pod, x.utilization]);
const drops = (a: Attribution) => a.dropped.map((d) => [d.pod, d.reason, d.message]);

const rows: Row[] = [
  // ---- 0..100 % with 0.5 of slack: both sides of each end. ----
  {
    name: 'ZeroPercentCounts',
    series: [s('G0', 'p-a', 0)],
    check: (a) => expect(utils(a)).toEqual([['p-a', 0]]),
  },
  {
    name: 'BelowZeroIsOutOfRange',
    series: [s('G0', 'p-a', -0.1)],
    check: (a) => {
      expect(utils(a)).toEqual([]);
      expect(drops(a)).toEqual([
        ['p-a', 'OutOfRange', `GPU G0 of pod algorithms/p-a: -0.1% is outside 0..100% (${UTIL})`],
      ]);
    },
  },
  {
    name: 'HundredAndAHalfCountsAsHundred',
    series: [s('G0', 'p-a', 100.5)],
    check: (a) => expect(utils(a)).toEqual([['p-a', 100]]),
  },
  {
    name: 'JustAboveTheSlackIsOutOfRange',
    series: [s('G0', 'p-a', 100.6)],
    check: (a) => expect(drops(a).map((d) => d[1])).toEqual(['OutOfRange']),
  },
  {
    name: 'RatioMetricIsTimesHundredAndItsWindowToo',
    series: [s('G0', 'p-a', 0.42, { metric: RATIO, window: { max: 0.9, oldest: T - 300_000 } })],
    policy: policy({ metric: RATIO }),
    check: (a) => {
      expect(utils(a)).toEqual([['p-a', 42]]);
      expect(samples(a)[0]!.window).toEqual({ max: 90, coveredSeconds: 300 });
    },
  },
  {
    name: 'RatioAboveOnePointZeroZeroFiveIsOutOfRange',
    series: [s('G0', 'p-a', 1.01, { metric: RATIO })],
    policy: policy({ metric: RATIO }),
    check: (a) =>
      expect(drops(a)).toEqual([
        ['p-a', 'OutOfRange', `GPU G0 of pod algorithms/p-a: 101% is outside 0..100% (${RATIO})`],
      ]),
  },
  {
    name: 'SeriesOfAnotherMetricAreIgnoredSilently',
    series: [s('G0', 'p-a', 50, { metric: 'DCGM_FI_DEV_FB_USED' })],
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      expect(a.dropped).toEqual([]);
      expect(a.unattributed).toEqual([]);
    },
  },
  // ---- Bad values and ages, with the message plan prints. ----
  {
    name: 'NotFiniteNamesGpuAndPod',
    series: [s('G0', 'p-a', Number.NaN), s('G1', '', Number.POSITIVE_INFINITY)],
    check: (a) =>
      expect(drops(a)).toEqual([
        ['p-a', 'NotFinite', 'GPU G0 of pod algorithms/p-a: value NaN is not a number'],
        ['', 'NotFinite', 'GPU G1: value Infinity is not a number'],
      ]),
  },
  {
    name: 'StaleNamesAgeLimitAndTheAnswersTime',
    series: [s('G0', 'p-a', 50, { at: T - 121_000 })],
    check: (a) => {
      expect(a.dropped).toEqual([
        {
          gpu: 'G0',
          namespace: 'algorithms',
          pod: 'p-a',
          reason: 'Stale',
          ageSeconds: 121,
          message:
            "GPU G0 of pod algorithms/p-a: newest sample is 121s old (limit 120s) at the answer's evaluation time 2025-06-01T12:00:00.000Z",
        },
      ]);
    },
  },
  {
    name: 'StaleLimitFollowsThePolicy',
    series: [s('G0', 'p-a', 50, { at: T - 121_000 })],
    policy: policy({ staleSampleSeconds: 121 }),
    check: (a) => expect(utils(a)).toEqual([['p-a', 50]]),
  },
  {
    name: 'OnlyStaleDropsCarryAnAge',
    series: [s('G0', 'p-x', 50)],
    check: (a) => expect(Object.keys(a.dropped[0]!)).not.toContain('ageSeconds'),
  },
  // ---- Pods: which label names the pod, and which pods count. ----
  {
    name: 'ExportedNamespaceAndPodWin',
    series: [
      s('G0', 'dcgm-exporter-x', 60, {
        labels: { exported_namespace: 'algorithms', exported_pod: 'p-a', namespace: 'gpu-operator' },
      }),
    ],
    check: (a) => expect(utils(a)).toEqual([['p-a', 60]]),
  },
  {
    name: 'ExportedPodEqualToHostnameStillNamesTheWorkload',
    series: [s('G0', 'x', 60, { labels: { exported_pod: 'p-a', Hostname: 'p-a' } })],
    check: (a) => expect(utils(a)).toEqual([['p-a', 60]]),
  },
  {
    name: 'PodEqualToHostnameIsTheExporterSoNoPod',
    series: [s('G0', 'exp-1', 70, { labels: { Hostname: 'exp-1', node: 'gpu-7' } })],
    check: (a) => {
      expect(a.unattributed).toEqual([{ gpu: 'G0', host: 'gpu-7', utilization: 70 }]);
      expect(a.dropped).toEqual([]);
    },
  },
  {
    name: 'PodOtherThanHostnameIsAWorkload',
    series: [s('G0', 'p-a', 70, { labels: { Hostname: 'exp-1' } })],
    pods: [pod('p-a'), pod('exp-1', { namespace: 'gpu-operator', managed: false, algorithm: null })],
    check: (a) => {
      expect(utils(a)).toEqual([['p-a', 70]]);
      expect(a.unattributed).toEqual([]);
    },
  },
  {
    name: 'UnattributedHostIsNodeElseHostnameElseEmpty',
    series: [
      s('G0', '', 100.4, { labels: { Hostname: 'exp-1' } }),
      s('G1', '', 5, { labels: { node: 'gpu-1', Hostname: 'exp-1' } }),
      s('G2', '', 0, { labels: { namespace: '', Hostname: '' } }),
    ],
    check: (a) =>
      expect(a.unattributed).toEqual([
        { gpu: 'G0', host: 'exp-1', utilization: 100 },
        { gpu: 'G1', host: 'gpu-1', utilization: 5 },
        { gpu: 'G2', host: '', utilization: 0 },
      ]),
  },
  {
    name: 'EachKindOfPodThatDoesNotCountNamesWhy',
    series: [s('G0', 'gone', 1), s('G1', 'p-t', 1), s('G2', 'p-n', 1), s('G3', 'p-f', 1), s('G4', 'p-l', 1)],
    pods: [
      pod('p-t', { terminating: true, ready: false }),
      pod('p-n', { ready: false }),
      pod('p-f', { managed: false, algorithm: null }),
      pod('p-l', { managed: true, algorithm: null }),
    ],
    check: (a) => {
      expect(a.byAlgorithm.size).toBe(0);
      expect(drops(a)).toEqual([
        ['gone', 'UnknownPod', 'GPU G0 of pod algorithms/gone: pod is not in the snapshot'],
        ['p-t', 'PodTerminating', 'GPU G1 of pod algorithms/p-t: pod is terminating'],
        ['p-n', 'PodNotReady', 'GPU G2 of pod algorithms/p-n: pod is not Ready'],
        ['p-f', 'NotManaged', 'GPU G3 of pod algorithms/p-f: pod is not managed by gpuops'],
        ['p-l', 'NotManaged', 'GPU G4 of pod algorithms/p-l: pod is not managed by gpuops'],
      ]);
    },
  },
  {
    name: 'LabelledButNotManagedDoesNotCount',
    series: [s('G0', 'p-m', 1)],
    pods: [pod('p-m', { managed: false })],
    check: (a) => expect(drops(a).map((d) => d[1])).toEqual(['NotManaged']),
  },
  // ---- One GPU counts once. ----
  {
    name: 'SameGpuTwiceForOnePodNewestCounts',
    series: [s('G0', 'p-a', 10, { at: T - 20_000 }), s('G0', 'p-a', 90, { at: T - 5_000 })],
    check: (a) => {
      expect(utils(a)).toEqual([['p-a', 90]]);
      expect(drops(a)).toEqual([
        ['p-a', 'Duplicate', 'GPU G0 of pod algorithms/p-a is reported twice; the newest series counts'],
      ]);
      expect(a.flags).toEqual([]);
      expect(a.byAlgorithm.get('resnet50-infer')!.dropped.map((d) => d.reason)).toEqual(['Duplicate']);
    },
  },
  {
    name: 'SameGpuThreeTimesNewestCountsWhateverTheOrder',
    series: [
      s('G0', 'p-a', 50, { at: T - 5_000 }),
      s('G0', 'p-a', 10, { at: T - 20_000 }),
      s('G0', 'p-a', 30, { at: T - 1_000 }),
    ],
    check: (a) => {
      expect(utils(a)).toEqual([['p-a', 30]]);
      expect(drops(a).map((d) => d[1])).toEqual(['Duplicate', 'Duplicate']);
    },
  },
  {
    name: 'TimeSlicedGpuCountsForTheFirstPodByNameAndFlagsEveryAlgorithm',
    series: [s('G0', 'p-c', 30), s('G0', 'p-b', 20), s('G0', 'p-a', 10)],
    check: (a) => {
      expect(utils(a)).toEqual([['p-a', 10]]);
      const flag = {
        kind: 'TimeSlicedGpu',
        gpu: 'G0',
        pods: ['algorithms/p-a', 'algorithms/p-b', 'algorithms/p-c'],
        countedFor: 'algorithms/p-a',
        message:
          'GPU G0 is reported under 3 pods (algorithms/p-a, algorithms/p-b, algorithms/p-c): time-sliced; counted once, for algorithms/p-a',
      };
      expect(a.flags).toEqual([flag]);
      expect(a.byAlgorithm.get('resnet50-infer')!.flags).toEqual([flag]);
      // The other algorithm gets an entry with the flag and its dropped series, but no sample.
      expect(a.byAlgorithm.get('other-alg')).toEqual({
        algorithm: 'other-alg',
        samples: [],
        flags: [flag],
        dropped: [
          {
            gpu: 'G0',
            namespace: 'algorithms',
            pod: 'p-c',
            reason: 'SharedGpu',
            message:
              'GPU G0 is time-sliced between algorithms/p-a, algorithms/p-b, algorithms/p-c; counted once, for algorithms/p-a',
          },
        ],
      });
      expect(drops(a).map((d) => [d[0], d[1]])).toEqual([
        ['p-b', 'SharedGpu'],
        ['p-c', 'SharedGpu'],
      ]);
    },
  },
  {
    name: 'DifferentGpusOfOnePodAreNotDuplicates',
    pods: TWO_GPUS,
    series: [s('G1', 'p-a', 80, { at: T - 9_000 }), s('G0', 'p-a', 40, { at: T - 3_000 })],
    check: (a) => {
      expect(samples(a)).toEqual([
        {
          namespace: 'algorithms',
          pod: 'p-a',
          utilization: 60,
          at: '2025-06-01T11:59:57.000Z',
          gpus: ['G0', 'G1'],
        },
      ]);
      expect(a.dropped).toEqual([]);
      expect(a.flags).toEqual([]);
    },
  },
  {
    name: 'SamplesAreSortedByPod',
    series: [s('G2', 'p-b', 20), s('G1', 'p-a', 10)],
    check: (a) =>
      expect(utils(a)).toEqual([
        ['p-a', 10],
        ['p-b', 20],
      ]),
  },
  // ---- The source's own history over the window. ----
  {
    name: 'WindowOfSeveralGpusMeanOfHighestLeastCoverage',
    pods: TWO_GPUS,
    series: [
      s('G0', 'p-a', 10, { window: { max: 30, oldest: T - 400_000 } }),
      s('G1', 'p-a', 10, { window: { max: 50, oldest: T - 310_500 } }),
    ],
    check: (a) => expect(samples(a)[0]!.window).toEqual({ max: 40, coveredSeconds: 310.5 }),
  },
  {
    name: 'WindowBeganInsideIsNullCoverage',
    pods: TWO_GPUS,
    series: [
      s('G0', 'p-a', 10, { window: { max: 30, oldest: null } }),
      s('G1', 'p-a', 10, { window: { max: 50, oldest: T - 400_000 } }),
    ],
    check: (a) => expect(samples(a)[0]!.window).toEqual({ max: 40, coveredSeconds: null }),
  },
  {
    name: 'WindowNullCoverageOnTheSecondGpuStaysNull',
    pods: TWO_GPUS,
    series: [
      s('G0', 'p-a', 10, { window: { max: 30, oldest: T - 400_000 } }),
      s('G1', 'p-a', 10, { window: { max: 50, oldest: null } }),
    ],
    check: (a) => expect(samples(a)[0]!.window).toEqual({ max: 40, coveredSeconds: null }),
  },
  {
    name: 'OneGpuWithoutWindowMeansNoWindow',
    pods: TWO_GPUS,
    series: [s('G0', 'p-a', 10, { window: { max: 30, oldest: T - 400_000 } }), s('G1', 'p-a', 10)],
    check: (a) => expect(samples(a)[0]!.window).toBeUndefined(),
  },
  {
    name: 'WindowMaxIsClampedAndCoverageNeverNegative',
    series: [
      s('G0', 'p-a', 10, { window: { max: 140, oldest: T + 5_000 } }),
      s('G1', 'p-b', 10, { window: { max: -3, oldest: T - 1_000 } }),
    ],
    check: (a) =>
      expect(samples(a).map((x) => x.window)).toEqual([
        { max: 100, coveredSeconds: 0 },
        { max: 0, coveredSeconds: 1 },
      ]),
  },
];

describe('attribute (hand-made series)', () => {
  it.each(rows)('$name', (row) => {
    row.check(attribute(row.series, row.pods ?? PODS, row.policy ?? policy(), NOW));
  });
});

describe('gpuKey', () => {
  it.each<[string, Record<string, string>, string]>([
    ['UuidWins', { UUID: 'GPU-1', node: 'n', gpu: '3' }, 'GPU-1'],
    ['MigInstanceOfTheUuid', { UUID: 'GPU-1', GPU_I_ID: '2' }, 'GPU-1/mig-2'],
    ['EmptyUuidFallsBackToNodeAndIndex', { UUID: '', node: 'n', Hostname: 'h', gpu: '3' }, 'n/3'],
    ['NoNodeUsesHostname', { Hostname: 'h', gpu: '3' }, 'h/3'],
    ['NothingKnown', {}, '?/?'],
    ['MigWithoutUuid', { node: 'n', gpu: '0', GPU_I_ID: '1' }, 'n/0/mig-1'],
    ['EmptyMigIdIsNoMig', { UUID: 'GPU-1', GPU_I_ID: '' }, 'GPU-1'],
  ])('%s', (_name, labels, want) => {
    expect(gpuKey(labels)).toBe(want);
  });
});
