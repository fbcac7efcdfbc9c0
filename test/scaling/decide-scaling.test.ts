/**
 * One scaling pass (`decideScaling`) on hand-made snapshots and readings: free GPUs per node
 * (`nodeCapacity`, `podSlots`), what each algorithm is handed (its own pods, samples, records and
 * dropped series), and the metrics report `plan` prints (skew warning at the stale limit, drops
 * counted by reason).
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, PodInfo, Snapshot } from '../../src/cluster/types.js';
import type { GpuSeries, UtilizationReading } from '../../src/metrics/types.js';
import { nodeCapacity, podSlots } from '../../src/scaling/capacity.js';
import { decideScaling, type AlgorithmState } from '../../src/scaling/decide-scaling.js';
import { countDropped } from '../../src/scaling/metrics-report.js';
import type { DroppedSeries } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import type { DecisionRecord } from '../../src/store/types.js';
import { algorithm, node, pod, policyNoWindows } from './support.js';
import { nodeInfo } from '../support/node-info.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T = NOW.getTime();

const gpuNode = (name: string, o: Partial<NodeInfo> = {}): NodeInfo =>
  nodeInfo(name, { pool: 'long-task', ...o });
const snap = (nodes: NodeInfo[], pods: PodInfo[] = []): Snapshot => ({
  takenAt: NOW.toISOString(),
  nodes,
  pods,
});

describe('nodeCapacity', () => {
  it.each<[string, NodeInfo[], PodInfo[], [string, number][]]>([
    [
      'AllocatableLessRequestedByBoundLivePods',
      [gpuNode('n')],
      [pod('a', { nodeName: 'n', gpuRequest: 3 })],
      [['n', 5]],
    ],
    [
      'UnboundSucceededAndFailedPodsHoldNone',
      [gpuNode('n')],
      [
        pod('a', { nodeName: null, phase: 'Pending', gpuRequest: 4 }),
        pod('b', { nodeName: 'n', phase: 'Succeeded', gpuRequest: 4 }),
        pod('c', { nodeName: 'n', phase: 'Failed', gpuRequest: 4 }),
        pod('d', { nodeName: 'n', phase: 'Pending', gpuRequest: 1 }),
      ],
      [['n', 7]],
    ],
    [
      'PodsOfAnotherNodeDoNotCount',
      [gpuNode('n'), gpuNode('m')],
      [pod('a', { nodeName: 'm', gpuRequest: 8 })],
      [
        ['m', 0],
        ['n', 8],
      ],
    ],
    [
      'TheNodesOwnRequestedWinsWhenLarger',
      [gpuNode('n', { gpuRequested: 6 })],
      [pod('a', { nodeName: 'n', gpuRequest: 2 })],
      [['n', 2]],
    ],
    [
      'NeverBelowZero',
      [gpuNode('n', { gpuAllocatable: 2 })],
      [pod('a', { nodeName: 'n', gpuRequest: 3 })],
      [['n', 0]],
    ],
    ['NotReadyOffersNone', [gpuNode('n', { ready: false })], [], [['n', 0]]],
    ['CordonedOffersNone', [gpuNode('n', { cordoned: true })], [], [['n', 0]]],
    ['UnschedulableOffersNone', [gpuNode('n', { schedulable: false })], [], [['n', 0]]],
    ['NodeWithoutGpusIsLeftOut', [gpuNode('cpu', { gpuCapacity: 0, gpuAllocatable: 0 })], [], []],
    ['CapacityWithoutAllocatableIsListed', [gpuNode('n', { gpuAllocatable: 0 })], [], [['n', 0]]],
    [
      'AllocatableWithoutCapacityIsListed',
      [gpuNode('n', { gpuCapacity: 0, gpuAllocatable: 1 })],
      [],
      [['n', 1]],
    ],
    [
      'SortedByName',
      [gpuNode('b'), gpuNode('a'), gpuNode('c')],
      [],
      [
        ['a', 8],
        ['b', 8],
        ['c', 8],
      ],
    ],
  ])('%s', (_name, nodes, pods, want) => {
    expect(nodeCapacity(snap(nodes, pods)).map((c) => [c.node, c.freeGpus])).toEqual(want);
  });

  it('keeps pool and GPU product', () => {
    expect(nodeCapacity(snap([gpuNode('n', { pool: 'unused', gpuProduct: null })]))).toEqual([
      {
        node: 'n',
        pool: 'unused',
        gpuProduct: null,
        allocatableGpus: 8,
        freeGpus: 8,
        free: { cpuMillis: 96_000, memoryBytes: 1000 * 2 ** 30, pods: 110 },
      },
    ]);
  });
});

describe('podSlots: a pod never spans nodes', () => {
  it.each<[string, number[], number, number]>([
    ['WholeFits', [4, 4], 2, 4],
    ['RemaindersDoNotAdd', [3, 3], 2, 2],
    ['NoNodes', [], 1, 0],
  ])('%s', (_name, free, gpus, want) => {
    expect(
      podSlots(
        free.map((f, i) => node(`n${i}`, 'long-task', f)),
        { gpus, cpuMillis: 0, memoryBytes: 0 },
      ),
    ).toBe(want);
  });
});

describe('countDropped: by reason, largest count first, then by name', () => {
  const d = (reason: DroppedSeries['reason'], ageSeconds?: number): DroppedSeries => ({
    gpu: 'G',
    namespace: 'ns',
    pod: 'p',
    reason,
    message: '',
    ...(ageSeconds === undefined ? {} : { ageSeconds }),
  });
  it.each<[string, DroppedSeries[], string]>([
    ['Nothing', [], ''],
    [
      'LargestFirst',
      [d('UnknownPod'), d('Stale', 200), d('Stale', 604800), d('Stale', 5)],
      'Stale: 3 (oldest 604800 s), UnknownPod: 1',
    ],
    [
      'TiesByReasonName',
      [d('UnknownPod'), d('NotFinite'), d('PodNotReady')],
      'NotFinite: 1, PodNotReady: 1, UnknownPod: 1',
    ],
    ['TiesByReasonNameWhateverTheOrder', [d('PodNotReady'), d('NotFinite')], 'NotFinite: 1, PodNotReady: 1'],
  ])('%s', (_name, dropped, want) => {
    expect(countDropped(dropped)).toBe(want);
  });
});

const series = (podName: string, value: number, o: { ns?: string; at?: number } = {}): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { UUID: `G-${podName}`, Hostname: 'lt-1', namespace: o.ns ?? 'algorithms', pod: podName },
  value,
  timestamp: o.at ?? T,
});
const ok = (s: GpuSeries[], o: { evaluatedAt?: number; errors?: string[] } = {}): UtilizationReading => ({
  ok: true,
  series: s,
  errors: o.errors ?? [],
  ...(o.evaluatedAt === undefined ? {} : { evaluatedAt: o.evaluatedAt }),
});
const state = (name: string, o: Partial<AlgorithmState> = {}): AlgorithmState => ({
  algorithm: algorithm({ name }),
  pool: 'long-task',
  replicas: 2,
  ...o,
});
/** A pod of algorithm `alg`'s Deployment (its ReplicaSet `<alg>-7d9f`). */
const podOf = (alg: string, name: string, o: Partial<PodInfo> & { rs?: string } = {}) =>
  pod(name, { algorithm: alg, rs: `${alg}-7d9f`, ...o });
const rec = (subject: string, kind: DecisionRecord['kind'] = 'scaling'): DecisionRecord => ({
  kind,
  subject,
  action: 'scale-up',
  reason: 'AboveMax',
  message: '',
  replicasFrom: 1,
  replicasTo: 2,
  utilization: 90,
  at: new Date(T - 10_000).toISOString(),
});

function pass(o: {
  algorithms?: AlgorithmState[];
  pods?: PodInfo[];
  reading?: UtilizationReading;
  recent?: DecisionRecord[];
  nodes?: NodeInfo[];
  policy?: Policy;
}) {
  return decideScaling({
    algorithms: o.algorithms ?? [state('a')],
    snapshot: snap(o.nodes ?? [gpuNode('lt-1')], o.pods ?? [podOf('a', 'a-0'), podOf('a', 'a-1')]),
    reading: o.reading ?? ok([series('a-0', 50), series('a-1', 60)]),
    recent: o.recent ?? [],
    policy:
      o.policy ?? policyNoWindows({ scaleUp: { cooldownSeconds: 120 }, scaleDown: { cooldownSeconds: 120 } }),
    now: NOW,
  });
}

describe('decideScaling', () => {
  it('decides on the algorithm’s own pods and stores their samples', () => {
    const r = pass({});
    expect(r.decisions).toMatchObject([
      { algorithm: 'a', action: 'hold', reason: 'WithinRange', utilization: 55 },
    ]);
    expect(r.samples).toEqual([
      { algorithm: 'a', namespace: 'algorithms', pod: 'a-0', utilization: 50, at: NOW.toISOString() },
      { algorithm: 'a', namespace: 'algorithms', pod: 'a-1', utilization: 60, at: NOW.toISOString() },
    ]);
    expect(r.metrics).toEqual({
      evaluatedAt: NOW.toISOString(),
      skewSeconds: 0,
      noData: null,
      partial: null,
      dropped: [],
      droppedSeries: [],
      staleLimitSeconds: 120,
      warnings: [],
    });
  });

  it('a failed reading is NoData for every algorithm, naming reason and message', () => {
    const r = pass({ reading: { ok: false, reason: 'Unreachable', message: 'connect ECONNREFUSED' } });
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'NoData', utilization: null });
    expect(r.decisions[0]!.message).toBe(
      'a: no GPU metrics (Unreachable): connect ECONNREFUSED; utilisation unknown, replicas stay at 2',
    );
    expect(r.metrics).toMatchObject({
      evaluatedAt: null,
      skewSeconds: null,
      noData: 'no GPU metrics (Unreachable): connect ECONNREFUSED',
      warnings: [],
    });
    expect(r.samples).toEqual([]);
  });

  it('samples of a pod of the same name in another namespace are not the algorithm’s', () => {
    const other = podOf('a', 'a-1', { namespace: 'elsewhere' });
    const r = pass({
      pods: [podOf('a', 'a-0'), other],
      reading: ok([series('a-0', 50), series('a-1', 90, { ns: 'elsewhere' })]),
    });
    expect(r.samples.map((s) => `${s.namespace}/${s.pod}`)).toEqual(['algorithms/a-0']);
    // Its pods are those of its own namespace: one Ready pod with a sample, of two replicas.
    expect(r.decisions[0]).toMatchObject({ utilization: 50 });
    expect(r.decisions[0]!.message).toContain('over 1 of 1 Ready pod(s)');
  });

  it('pods that are not managed or have no algorithm are nobody’s', () => {
    const r = pass({
      pods: [podOf('a', 'a-0'), podOf('a', 'a-1', { managed: false }), pod('x', { algorithm: null })],
    });
    expect(r.decisions[0]!.message).toContain('over 1 of 1 Ready pod(s)');
  });

  it('a NoData hold counts the dropped series of its own pods, with the stale limit', () => {
    const r = pass({
      algorithms: [state('a'), state('b')],
      pods: [podOf('a', 'a-0'), podOf('a', 'a-1'), podOf('b', 'b-0')],
      reading: ok([
        series('a-0', 50, { at: T - 300_000 }),
        series('a-1', 50, { at: T - 200_000 }),
        series('b-0', Number.NaN),
      ]),
    });
    const [a, b] = r.decisions;
    expect(a!.message).toBe(
      'a: no usable GPU sample for any of 2 Ready pod(s) (series dropped: Stale: 2 (oldest 300 s); stale limit 120 s); utilisation unknown, replicas stay at 2',
    );
    expect(b!.message).toBe(
      'b: no usable GPU sample for any of 1 Ready pod(s) (series dropped: NotFinite: 1); utilisation unknown, replicas stay at 2',
    );
    expect(r.metrics.dropped).toEqual([
      { reason: 'Stale', count: 2, oldestSeconds: 300 },
      { reason: 'NotFinite', count: 1 },
    ]);
  });

  it('a GPU with no pod is never some algorithm’s dropped series', () => {
    const noPod: GpuSeries = { ...series('', Number.NaN), labels: { UUID: 'G-x', pod: '' } };
    const r = pass({ reading: ok([noPod]) });
    expect(r.decisions[0]!.message).toContain('(no series of the source names them)');
    expect(r.metrics.dropped).toEqual([{ reason: 'NotFinite', count: 1 }]);
  });

  it('each algorithm reads only its own scaling records', () => {
    const r = pass({
      reading: ok([series('a-0', 95), series('a-1', 95)]),
      recent: [rec('b'), rec('a', 'placement')],
    });
    expect(r.decisions[0]).toMatchObject({ action: 'scale-up', reason: 'AboveMax' });
    const cooled = pass({
      reading: ok([series('a-0', 95), series('a-1', 95)]),
      recent: [rec('b'), rec('a')],
    });
    expect(cooled.decisions[0]).toMatchObject({ action: 'hold', reason: 'CooldownActive' });
  });

  it('the current ReplicaSet reaches the decision', () => {
    const r = pass({
      algorithms: [state('a', { replicas: 1, currentReplicaSet: 'a-new' })],
      pods: [
        podOf('a', 'a-0', { rs: 'a-old' }),
        podOf('a', 'a-1', { rs: 'a-new', createdAt: '2024-01-01T00:00:00Z' }),
      ],
      reading: ok([series('a-0', 10), series('a-1', 90)]),
    });
    // The current ReplicaSet's pod is the one replica, though the other pod is newer.
    expect(r.decisions[0]).toMatchObject({
      utilization: 90,
      reason: 'AboveMax',
      replicas: { from: 1, to: 2 },
    });
  });

  it.each<[string, AlgorithmState['hpa'], string]>([
    [
      'HpaAtItsMaximum',
      { currentReplicas: 4, desiredReplicas: 4, maxReplicas: 4 },
      'the HPA sits at its maximum of 4 replicas',
    ],
    ['NoHpaStateFallsBackToGit', undefined, 'the HPA owns replicas (2, max 8)'],
  ])('the HPA state reaches the decision: %s', (_name, hpa, message) => {
    const r = pass({
      algorithms: [state('a', hpa ? { hpa } : {})],
      reading: ok([series('a-0', 95), series('a-1', 95)]),
      policy: policyNoWindows({ engine: 'hpa' }),
    });
    expect(r.decisions[0]).toMatchObject({ action: 'hold', reason: 'HPAOwnsReplicas' });
    expect(r.decisions[0]!.message).toContain(message);
  });

  it.each<[string, number, string[]]>([
    ['SkewAtTheStaleLimitNoWarning', -120, []],
    [
      'SkewBehindBeyondTheLimit',
      -121,
      [
        "the metrics source's clock is 121 s behind this controller's (more than the 120 s stale limit); sample ages are measured against the answer's own time 2025-06-01T11:57:59.000Z",
      ],
    ],
    ['SkewAheadAtTheLimitNoWarning', 120, []],
    [
      'SkewAheadBeyondTheLimit',
      121,
      [
        "the metrics source's clock is 121 s ahead of this controller's (more than the 120 s stale limit); sample ages are measured against the answer's own time 2025-06-01T12:02:01.000Z",
      ],
    ],
  ])('%s', (_name, skew, warnings) => {
    const at = T + skew * 1000;
    const r = pass({
      reading: ok([series('a-0', 50, { at }), series('a-1', 60, { at })], { evaluatedAt: at }),
    });
    expect(r.metrics.skewSeconds).toBe(skew);
    expect(r.metrics.warnings).toEqual(warnings);
    expect(r.metrics.evaluatedAt).toBe(new Date(at).toISOString());
    expect(r.decisions[0]).toMatchObject({ reason: 'WithinRange', utilization: 55 });
  });

  it("the source's errors are warnings", () => {
    const r = pass({
      reading: ok([series('a-0', 50), series('a-1', 60)], { errors: ['dcgm/n1.prom: ENOENT'] }),
    });
    expect(r.metrics.warnings).toEqual(['metrics: dcgm/n1.prom: ENOENT']);
  });

  it('free GPUs come from the snapshot: a full pool relabels an unused node', () => {
    const r = pass({
      nodes: [gpuNode('lt-1', { gpuRequested: 8 }), gpuNode('u-1', { pool: 'unused' })],
      reading: ok([series('a-0', 95), series('a-1', 95)]),
    });
    expect(r.decisions[0]).toMatchObject({ action: 'relabel', nodes: ['u-1'], replicas: { from: 2, to: 3 } });
  });
});
