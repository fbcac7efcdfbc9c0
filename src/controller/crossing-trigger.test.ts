import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type {
  ServiceMetricQuery,
  UtilizationQuery,
  UtilizationReading,
  UtilizationSource,
} from '../metrics/types.js';
import type { Watchlist } from '../scaling/crossing-watch.js';
import { pod, policy } from '../../test/scaling/support.js';
import { PassWaker, runCrossingTrigger } from './crossing-trigger.js';

const watch: Watchlist = {
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  windowSeconds: 60,
  namespaces: ['algorithms'],
  algorithms: [
    {
      name: 'a',
      namespace: 'algorithms',
      view: {
        sizing: 'step',
        min: 30,
        max: 80,
        replicas: 1,
        minReplicas: 1,
        maxReplicas: 4,
        gpus: 1,
        headroomFactor: 1,
        headroomDownMargin: 0,
      },
      pods: ['a-0'],
      heldUntilMs: Infinity,
    },
  ],
  judge: {
    pods: [pod('a-0', { algorithm: 'a', nodeName: 'n1' })],
    policy: policy({ staleSampleSeconds: 120 }),
    deploymentOf: (p) => p.algorithm,
    sharedNodes: new Map(),
  },
};

/** A source that answers `values` in turn (then the last again), recording each query. */
function source(values: number[], evaluatedAt?: number): UtilizationSource & { queries: UtilizationQuery[] } {
  const queries: UtilizationQuery[] = [];
  let i = 0;
  return {
    name: 'test',
    queries,
    read(q): Promise<UtilizationReading> {
      queries.push(q);
      const value = values[Math.min(i++, values.length - 1)]!;
      return Promise.resolve({
        ok: true,
        errors: [],
        series: [
          {
            metric: q.metric,
            labels: { namespace: 'algorithms', pod: 'a-0', node: 'n1' },
            value,
            timestamp: 0,
          },
        ],
        ...(evaluatedAt === undefined ? {} : { evaluatedAt }),
      });
    },
  };
}

describe('PassWaker', () => {
  it('a wake cuts the sleep short; a wake with no one asleep is kept for the next sleep', async () => {
    const w = new PassWaker();
    const t0 = Date.now();
    setTimeout(() => w.wake(), 20);
    await w.sleep(10_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
    w.wake();
    const t1 = Date.now();
    await w.sleep(10_000);
    expect(Date.now() - t1).toBeLessThan(1_000);
  });
  it('an abort ends the sleep', async () => {
    const w = new PassWaker();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 20);
    const t0 = Date.now();
    await w.sleep(10_000, ac.signal);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
  it('a signal aborted before the sleep (a stop during the pass) returns at once, not after ms', async () => {
    const w = new PassWaker();
    const ac = new AbortController();
    ac.abort();
    const t0 = Date.now();
    await w.sleep(10_000, ac.signal);
    expect(Date.now() - t0).toBeLessThan(5_000);
  });
});

describe('runCrossingTrigger', () => {
  it('reads with the pass scoped query and calls back once on the crossing, not while it stays out', async () => {
    const src = source([50, 90, 95, 95]);
    const ac = new AbortController();
    const crossings: string[][] = [];
    const readings = runCrossingTrigger({
      source: src,
      intervalSeconds: 0.01,
      watchlist: () => watch,
      onCrossing: (a) => crossings.push(a),
      now: () => 0,
      log: pino({ level: 'silent' }),
      signal: ac.signal,
    });
    while (src.queries.length < 4) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    expect(await readings).toBeGreaterThanOrEqual(4);
    expect(crossings).toEqual([['a']]);
    expect(src.queries[0]).toEqual({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      windowSeconds: 60,
      namespaces: ['algorithms'],
    });
  });

  it("judges sample age at the answer's evaluation time: a sample stale on the trigger's clock still counts", async () => {
    const crossingsWith = async (evaluatedAt?: number) => {
      const src = source([90], evaluatedAt);
      const ac = new AbortController();
      const crossings: string[][] = [];
      const t = runCrossingTrigger({
        source: src,
        intervalSeconds: 0.01,
        watchlist: () => watch,
        onCrossing: (a) => crossings.push(a),
        now: () => 10_000_000,
        log: pino({ level: 'silent' }),
        signal: ac.signal,
      });
      while (src.queries.length < 2) await new Promise((r) => setTimeout(r, 5));
      ac.abort();
      await t;
      return crossings;
    };
    expect(await crossingsWith(1000)).toEqual([['a']]);
    expect(await crossingsWith()).toEqual([]);
  });

  it('an algorithm on a service metric: that metric read each tick, its crossing starts a pass, the GPU is not its signal', async () => {
    const vllm = {
      name: 'vllm-waiting',
      unit: 'requests',
      query: 'sum by (namespace, pod) (waiting{namespace="$namespace"})',
    };
    const onService: Watchlist = {
      ...watch,
      algorithms: [
        {
          ...watch.algorithms[0]!,
          signal: { kind: 'serviceMetric', unit: 'requests', serviceMetric: vllm },
          view: { ...watch.algorithms[0]!.view, min: 2, max: 10 },
        },
      ],
    };
    // The GPU reads 95 % throughout (above any GPU band); the queue goes 5, 5, 12 waiting requests.
    const src = source([95]);
    const queue = [5, 5, 12];
    const serviceQueries: ServiceMetricQuery[] = [];
    src.readServiceMetric = (q) => {
      serviceQueries.push(q);
      const value = queue[Math.min(serviceQueries.length - 1, queue.length - 1)]!;
      const series = [
        { metric: q.name, labels: { namespace: 'algorithms', pod: 'a-0' }, value, timestamp: 0 },
      ];
      return Promise.resolve({ ok: true, errors: [], series });
    };
    const ac = new AbortController();
    const crossings: [number, string[]][] = [];
    const t = runCrossingTrigger({
      source: src,
      intervalSeconds: 0.01,
      watchlist: () => onService,
      onCrossing: (a) => crossings.push([serviceQueries.length, a]),
      now: () => 0,
      log: pino({ level: 'silent' }),
      signal: ac.signal,
    });
    // Four readings of the queue (or, were it never read, fifty of the GPU).
    while (serviceQueries.length < 4 && src.queries.length < 50) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    await t;
    // Fired at the third reading, the first with 12 > 10; not at the first two (5, inside 2..10).
    expect(crossings).toEqual([[3, ['a']]]);
    expect(serviceQueries[0]).toEqual({
      name: 'vllm-waiting',
      template: vllm.query,
      namespace: 'algorithms',
      windowSeconds: 60,
    });
    // No algorithm scales on the policy's metric: it is not read at all.
    expect(src.queries).toEqual([]);
  });

  it('reads nothing without a watchlist or while not leading', async () => {
    const src = source([90]);
    const ac = new AbortController();
    const t = runCrossingTrigger({
      source: src,
      intervalSeconds: 0.01,
      watchlist: () => null,
      onCrossing: () => undefined,
      active: () => false,
      now: () => 0,
      log: pino({ level: 'silent' }),
      signal: ac.signal,
    });
    await new Promise((r) => setTimeout(r, 60));
    ac.abort();
    expect(await t).toBe(0);
    expect(src.queries).toEqual([]);
  });
});
