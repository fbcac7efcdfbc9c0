import { describe, expect, it } from 'vitest';
import { groupLabels, parsePrometheusGroups } from '../../src/replay/trace-groups.js';
import { offeredLoad } from '../../src/replay/trace.js';

type Series = { metric: Record<string, string>; values: [number, string][] };
const answer = (...result: Series[]) =>
  JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } });
const pod = (namespace: string, deployment: string, name: string, values: [number, string][]): Series => ({
  metric: { namespace, deployment, pod: name },
  values,
});
const BY = ['namespace', 'deployment'];

describe('parsePrometheusGroups: one service per group', () => {
  // What `max by (namespace, deployment, pod) (DCGM_FI_DEV_GPU_UTIL)` answers, step 60 s.
  const text = answer(
    pod('ml', 'resnet', 'resnet-1', [
      [1000, '20'],
      [1060, '40'],
      [1120, '10'],
    ]),
    pod('ml', 'resnet', 'resnet-2', [
      [1060, '35.5'],
      [1120, '90'],
    ]),
    pod('ml', 'bert', 'bert-1', [
      [1000, '70'],
      [1060, '80'],
    ]),
    pod('vision', 'resnet', 'resnet-1', [[1120, '5']]),
  );

  it('sums each group’s pods per instant, groups sorted by name', () => {
    const gs = parsePrometheusGroups(text, 'h.json', BY);
    expect(gs.map((g) => g.group)).toEqual(['ml/bert', 'ml/resnet', 'vision/resnet']);
    const loads = (i: number) => gs[i]!.trace.instants.map((x) => [x.t, offeredLoad(x)]);
    expect(loads(1)).toEqual([
      [1000, 20],
      [1060, 75.5],
      [1120, 100],
    ]);
    expect(gs.map((g) => g.trace.pods)).toEqual([1, 2, 1]);
    expect(gs[1]!.trace.source).toBe('h.json#ml/resnet');
  });

  it('every group holds every instant of the answer: no pod (load 0) where it has no sample', () => {
    const gs = parsePrometheusGroups(text, 'h.json', BY);
    expect(gs[0]!.trace.instants.map((x) => [x.t, x.values.length])).toEqual([
      [1000, 1],
      [1060, 1],
      [1120, 0],
    ]);
    expect(gs[2]!.trace.instants.map((x) => offeredLoad(x))).toEqual([0, 0, 5]);
  });

  it('one label groups wider: by namespace, the two resnet-1 pods stay apart across namespaces', () => {
    const gs = parsePrometheusGroups(text, 'h.json', ['namespace']);
    expect(gs.map((g) => [g.group, g.trace.pods])).toEqual([
      ['ml', 3],
      ['vision', 1],
    ]);
    expect(gs[0]!.trace.instants.map(offeredLoad)).toEqual([90, 155.5, 100]);
  });

  it('accepts a series of two samples two steps apart (a pod that came back: too few to show a step)', () => {
    const gs = parsePrometheusGroups(
      answer(
        pod('ml', 'a', 'p', [
          [0, '10'],
          [60, '10'],
          [120, '10'],
        ]),
        pod('ml', 'b', 'q', [
          [0, '50'],
          [120, '50'],
        ]),
      ),
      'h.json',
      BY,
    );
    expect(gs[1]!.trace.instants.map(offeredLoad)).toEqual([50, 0, 50]);
  });

  const steps60and30 = answer(
    pod('ml', 'a', 'p', [
      [0, '10'],
      [30, '10'],
      [60, '10'],
    ]),
    pod('ml', 'b', 'q', [
      [0, '50'],
      [60, '50'],
      [120, '50'],
    ]),
  );
  it.each([
    [
      'CsvTrace',
      'value,timestamp_anon,container_ip\n10,1,a\n',
      'h.json: --group-by namespace,deployment needs a Prometheus query_range answer (JSON)',
    ],
    ['NoSeries', answer(), 'h.json: data.result: no series with samples (the query matched nothing)'],
    ['OnlyEmptySeries', answer(pod('ml', 'a', 'p', [])), 'h.json: data.result: no series with samples'],
    [
      'SeriesWithoutLabel',
      answer(pod('ml', 'a', 'p', [[0, '1']]), { metric: { namespace: 'ml', pod: 'x' }, values: [[0, '1']] }),
      'h.json: data.result[1].metric: no label "deployment" to group by (has: namespace, pod)',
    ],
    [
      'EmptyLabelValue',
      answer({ metric: { namespace: '', deployment: 'a' }, values: [[0, '1']] }),
      'data.result[0].metric: no label "namespace"',
    ],
    [
      'MismatchedSteps',
      steps60and30,
      'h.json: data.result[1] ({"namespace":"ml","deployment":"b","pod":"q"}): mismatched steps: its samples are at least 60 s apart, data.result[0]\'s 30 s',
    ],
    [
      'OffTheGrid',
      answer(
        pod('ml', 'a', 'p', [
          [0, '1'],
          [60, '1'],
        ]),
        pod('ml', 'b', 'q', [[90, '1']]),
      ),
      'h.json: data.result[1].values[0][0]: mismatched steps: time 90 is off the 60 s grid from 0',
    ],
    [
      'BadValue',
      answer(pod('ml', 'a', 'p', [[0, '120']])),
      'h.json: data.result[0].values[0][1]: expected a utilisation in percent between 0 and 100, got 120',
    ],
  ])('%s: names the file and what is wrong', (_n, input, message) => {
    expect(() => parsePrometheusGroups(input, 'h.json', BY)).toThrow(message);
  });
});

describe('groupLabels', () => {
  it('reads comma-separated label names', () => {
    expect(groupLabels('namespace, deployment')).toEqual(['namespace', 'deployment']);
  });
  it.each(['', 'namespace,', 'app.kubernetes.io/name'])('refuses "%s"', (v) => {
    expect(() => groupLabels(v)).toThrow(`--group-by: expected comma-separated label names`);
  });
});
