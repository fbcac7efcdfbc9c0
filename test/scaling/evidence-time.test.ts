/**
 * Issue 11 §3 and §4: scale-down judged from the source's own history, and sample ages judged
 * against the answer's own evaluation time, never another clock.
 */
import { describe, expect, it } from 'vitest';
import { parseQueryAnswer } from '../../src/metrics/query-result.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import { decideScaling, type AlgorithmState } from '../../src/scaling/decide-scaling.js';
import type { Snapshot } from '../../src/cluster/types.js';
import { algorithm, pod, policy } from './support.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const T = NOW.getTime() / 1000;
const PODS = ['resnet50-infer-7d9f-0', 'resnet50-infer-7d9f-1', 'resnet50-infer-7d9f-2'];

const snapshot: Snapshot = {
  takenAt: NOW.toISOString(),
  nodes: [],
  pods: PODS.map((p) => pod(p)),
} as unknown as Snapshot;
const state: AlgorithmState = { algorithm: algorithm(), pool: 'long-task', replicas: 3 };

const labels = (i: number) => ({
  __name__: 'DCGM_FI_DEV_GPU_UTIL',
  gpu: String(i),
  UUID: `GPU-${i}`,
  Hostname: 'lt-1',
  namespace: 'algorithms',
  pod: PODS[i]!,
});

/** A `query_range` answer: each pod from `lows[i]` to `lows[i] + 4` %, every `step` s for `seconds`, ending at `end`. */
function matrix(seconds: number, end = T, step = 30, lows = [10, 10, 10]) {
  return {
    status: 'success',
    data: {
      resultType: 'matrix',
      result: lows.map((low, i) => ({
        metric: labels(i),
        values: Array.from({ length: seconds / step + 1 }, (_, k) => [
          end - seconds + k * step,
          String(low + ((k + i) % 5)),
        ]),
      })),
    },
  };
}

/** An instant-vector answer evaluated at `at` (seconds) with each pod's newest sample `age` s before it. */
function vector(values: number[], at = T) {
  return {
    status: 'success',
    data: {
      resultType: 'vector',
      result: values.map((v, i) => ({ metric: labels(i), value: [at, String(v)] })),
    },
  };
}

function readingOf(body: unknown): UtilizationReading {
  const { series, evaluatedAt } = parseQueryAnswer(body, {
    source: 'dump.json',
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    windowSeconds: 300,
    historySeconds: 300,
  });
  return { ok: true, series, errors: [], ...(evaluatedAt === null ? {} : { evaluatedAt }) };
}

const decide = (reading: UtilizationReading, now = NOW) =>
  decideScaling({ algorithms: [state], snapshot, reading, recent: [], policy: policy(), now });

describe('scale-down from the source history (§3)', () => {
  it('three pods at 10–14 % for six minutes (matrix, 30 s steps): scale-down 3 → 2 with no recorded pass', () => {
    const r = decide(readingOf(matrix(360)));
    expect(r.decisions[0]).toMatchObject({
      action: 'scale-down',
      reason: 'BelowMin',
      replicas: { from: 3, to: 2 },
    });
    expect(r.decisions[0]!.message).toContain('whole 300s stabilisation window');
    expect(r.decisions[0]!.message).toContain('highest 14%');
  });

  it('the same values as one instant: hold, naming the window', () => {
    const r = decide(readingOf(vector([12, 11, 13])));
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'StabilizationWindow' });
    expect(r.decisions[0]!.message).toContain(
      'one instant is no evidence over the 300s scale-down stabilisation window',
    );
  });

  it.each([
    ['exactly the window (300 s): scale-down', 300, 'scale-down'],
    ['30 s short of the window (270 s): hold', 270, 'hold'],
  ])('history covering %s', (_n, seconds, action) => {
    const d = decide(readingOf(matrix(seconds))).decisions[0]!;
    expect(d.action).toBe(action);
    if (action === 'hold') expect(d.message).toContain('reach back 270s of the 300s');
  });

  it.each([
    ['highest exactly at min (30 %): hold', 26, 'hold'],
    ['highest just below min (29 %): scale-down', 25, 'scale-down'],
  ])('window high %s', (_n, low, action) => {
    // Pod values run low..low+4, so the window's highest is low + 4 on every pod.
    const body = matrix(360, T, 30, [low, low, low]);
    // Keep the current average below min: the last 300 s average is below min either way.
    const d = decide(readingOf(body)).decisions[0]!;
    expect(d.action).toBe(action);
    if (action === 'hold')
      expect(d.message).toContain('highest utilisation in the last 300s is 30% ≥ min 30%');
  });

  it('one pod busy earlier in the window blocks the scale-down (the HPA keeps the highest recommendation)', () => {
    const body = matrix(360);
    const values = body.data.result[1]!.values as [number, string][];
    values[3] = [values[3]![0], '95'];
    const d = decide(readingOf(body)).decisions[0]!;
    expect(d).toMatchObject({ action: 'hold', reason: 'StabilizationWindow' });
  });
});

describe('whose clock (§4)', () => {
  const fresh = (at: number, age: number) => {
    const body = vector([50, 55, 60], at);
    // the `last` half: newest sample `age` s before the evaluation time
    const withLast = {
      status: 'success',
      data: {
        resultType: 'vector',
        result: body.data.result.flatMap((x) => [
          { metric: { ...x.metric, gpuops_stat: 'avg' }, value: x.value },
          { metric: { ...x.metric, gpuops_stat: 'last' }, value: [at, String(at - age)] },
        ]),
      },
    };
    return readingOf(withLast);
  };

  it('Prometheus 200 s behind the controller: fresh data is used, the skew is reported', () => {
    const r = decide(fresh(T - 200, 5));
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'WithinRange', utilization: 55 });
    expect(r.metrics.skewSeconds).toBe(-200);
    expect(r.metrics.warnings.join()).toContain('200 s behind');
    expect(r.metrics.dropped).toEqual([]);
  });

  it("Prometheus 200 s ahead: 290-s-old data is stale at the answer's own time", () => {
    const r = decide(fresh(T + 200, 290));
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'NoData', utilization: null });
    expect(r.decisions[0]!.message).toContain('Stale: 3 (oldest 290 s); stale limit 120 s');
    expect(r.metrics.skewSeconds).toBe(200);
    expect(r.metrics.warnings.join()).toContain('200 s ahead');
    expect(r.metrics.dropped).toEqual([{ reason: 'Stale', count: 3, oldestSeconds: 290 }]);
  });

  it('no skew warning up to the stale limit (120 s), one beyond it', () => {
    expect(decide(fresh(T - 120, 5)).metrics.warnings).toEqual([]);
    expect(decide(fresh(T - 121, 5)).metrics.warnings).toHaveLength(1);
  });

  it("a dump from last week is judged at its own time: last week's decision, not NoData", () => {
    const weekAgo = T - 7 * 24 * 3600;
    const r = decide(readingOf(matrix(360, weekAgo)));
    expect(r.decisions[0]).toMatchObject({ action: 'scale-down', replicas: { from: 3, to: 2 } });
    expect(r.metrics.evaluatedAt).toBe(new Date(weekAgo * 1000).toISOString());
  });

  it('the same dump judged at --now a week later: NoData, naming why (Stale, oldest 604800 s)', () => {
    const weekAgo = T - 7 * 24 * 3600;
    const reading = { ...readingOf(matrix(360, weekAgo)), evaluatedAt: NOW.getTime() } as UtilizationReading;
    const r = decide(reading);
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'NoData' });
    expect(r.decisions[0]!.message).toContain('Stale: 3 (oldest 604800 s)');
  });

  it('series of pods not in the snapshot are counted as UnknownPod', () => {
    const body = vector([50, 55, 60]);
    body.data.result.push(
      { metric: { ...labels(0), pod: 'gone-a' }, value: [T, '10'] },
      { metric: { ...labels(1), pod: 'gone-b' }, value: [T, '10'] },
    );
    const r = decide(readingOf(body));
    expect(r.metrics.dropped).toEqual([{ reason: 'UnknownPod', count: 2 }]);
  });
});
