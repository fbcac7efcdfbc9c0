/**
 * The scaling inputs a reconciler keeps between passes (`kept-inputs.ts`): a steady pass (only the
 * values moved) copies the last pass's inputs, and a pass where any value an input is built from
 * changed gives the inputs a fresh build gives. Each case changes one such value; a kept input
 * served stale would differ from the fresh one in that field (each case checks that it would).
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo, PodInfo, ReplicaSetInfo, Snapshot } from '../cluster/types.js';
import type { PodConstraints } from '../cluster/scheduling/pod-constraints.js';
import type { GpuSeries, UtilizationReading } from '../metrics/types.js';
import type { Policy } from '../definitions/types.js';
import { algorithm, pod, policyNoWindows } from '../../test/scaling/support.js';
import { nodeInfo } from '../../test/support/node-info.js';
import { decideScaling, type AlgorithmState } from './decide-scaling.js';
import type { LoopTiming } from './loop-windows.js';
import { plainLookups, type ScalingLookups } from './lookups.js';
import { createScalingMemo, rememberedScaling } from './scaling-memo.js';
import type { ScalingInput } from './types.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const T = NOW.getTime();
const NAMES = ['a', 'b'];
/** The same node objects every pass, as the watch cache hands them out while nothing changed. */
const NODES = [nodeInfo('lt-1', { pool: 'long-task', labels: { zone: 'z1' } })];
const NODES_Z2 = [nodeInfo('lt-1', { pool: 'long-task', labels: { zone: 'z2' } })];

/** Everything one pass is decided on; each case changes one part. */
interface World {
  states: AlgorithmState[];
  pods: PodInfo[];
  replicaSets: ReplicaSetInfo[];
  reading: (values: number[]) => UtilizationReading;
  policy: Policy;
  autoscalers: Snapshot['autoscalers'];
  loop: LoopTiming;
  nodes: NodeInfo[];
}

const rs = (alg: string, name = `${alg}-7d9f`, o: Partial<ReplicaSetInfo> = {}): ReplicaSetInfo => ({
  namespace: 'algorithms',
  name,
  owner: { kind: 'Deployment', name: alg },
  revision: 1,
  replicas: 2,
  ...o,
});
const podOf = (alg: string, i: number, o: Partial<PodInfo> & { rs?: string } = {}): PodInfo =>
  pod(`${alg}-${i}`, {
    algorithm: alg,
    rs: `${alg}-7d9f`,
    readyAt: '2025-01-01T00:01:00Z',
    createdAt: '2025-01-01T00:00:00Z',
    ...o,
  });
const constraints = (zone: string): PodConstraints => ({
  namespace: 'algorithms',
  labels: {},
  nodeSelector: { zone },
  nodeAffinity: null,
  tolerations: [],
  affinity: [],
  antiAffinity: [],
  spread: [],
});
const series = (p: PodInfo, value: number): GpuSeries => ({
  metric: 'DCGM_FI_DEV_GPU_UTIL',
  labels: { UUID: `G-${p.name}`, Hostname: 'lt-1', namespace: p.namespace, pod: p.name },
  value,
  timestamp: T,
});

function baseWorld(): World {
  const pods = NAMES.flatMap((a) => [podOf(a, 0), podOf(a, 1)]);
  const states = NAMES.map((name): AlgorithmState => ({
    algorithm: algorithm({ name }),
    pool: 'long-task',
    replicas: 2,
    hpa: null,
    products: { products: ['NVIDIA-A100'], required: false },
    request: { gpus: 1, cpuMillis: 1000, memoryBytes: 2 ** 30 },
    pod: constraints('z1'),
  }));
  return {
    states,
    pods,
    replicaSets: NAMES.map((a) => rs(a)),
    reading: (values) => ({
      ok: true,
      series: pods.map((p, i) => series(p, values[i % values.length]!)),
      errors: [],
    }),
    policy: policyNoWindows({ scaleUp: { cooldownSeconds: 120 }, scaleDown: { cooldownSeconds: 120 } }),
    autoscalers: [],
    loop: { sampleSeconds: 15, reactionSeconds: 15 },
    nodes: NODES,
  };
}

/** One pass over `w` with `values`; the inputs `decideInTurn` was given, by algorithm. */
function pass(w: World, values: number[], lookups: ScalingLookups): Map<string, ScalingInput> {
  const seen = new Map<string, ScalingInput>();
  decideScaling({
    algorithms: w.states,
    snapshot: {
      takenAt: NOW.toISOString(),
      nodes: w.nodes,
      pods: w.pods,
      replicaSets: w.replicaSets,
      ...(w.autoscalers ? { autoscalers: w.autoscalers } : {}),
    },
    reading: w.reading(values),
    recent: [],
    policy: w.policy,
    now: NOW,
    loop: w.loop,
    lookups: {
      ...lookups,
      decider: (capacity) => {
        const decide = lookups.decider(capacity);
        return (input, policy, now) => {
          seen.set(input.algorithm.name, input);
          return decide(input, policy, now);
        };
      },
    },
  });
  return seen;
}

/**
 * An input as data: the placer by its key and by what it answers on the pass's nodes (its
 * functions are new objects each build, and its key does not name the nodes it reads).
 */
function data(input: ScalingInput): unknown {
  const { placer, poolNodes, unusedNodes: _u, ...rest } = input;
  return { ...rest, placer: placer ? [placer.key, placer.slots(poolNodes, input.pool, 10)] : null };
}

const edit = (w: World, name: string, o: Partial<AlgorithmState>): AlgorithmState[] =>
  w.states.map((s) => (s.algorithm.name === name ? { ...s, ...o } : s));

/**
 * Each case: the world of the second pass, one value an input is built from changed; with a third
 * element, the world both passes start from (where the base world's other values would change with
 * that one and hide a value missing from the key).
 */
const CASES: [string, (w: World) => World, ((w: World) => World)?][] = [
  [
    'AlgorithmObject',
    (w) => ({ ...w, states: edit(w, 'a', { algorithm: algorithm({ name: 'a', min: 10 }) }) }),
  ],
  ['Pool', (w) => ({ ...w, states: edit(w, 'a', { pool: 'short-task' }) })],
  ['Replicas', (w) => ({ ...w, states: edit(w, 'a', { replicas: 3 }) })],
  ['Claimed', (w) => ({ ...w, states: edit(w, 'a', { claimed: [podOf('a', 9, { rs: 'standby-1' })] }) })],
  ['CurrentReplicaSet', (w) => ({ ...w, states: edit(w, 'a', { currentReplicaSet: 'a-other' }) })],
  [
    'Hpa',
    (w) => ({
      ...w,
      states: edit(w, 'a', { hpa: { currentReplicas: 2, desiredReplicas: 3, maxReplicas: 6 } }),
    }),
  ],
  [
    'Products',
    (w) => ({ ...w, states: edit(w, 'a', { products: { products: ['NVIDIA-H100'], required: false } }) }),
  ],
  [
    'ProductsRequired',
    // The same products array, only `required` flipped (a new array alone would change the key).
    (w) => ({
      ...w,
      states: edit(w, 'a', { products: { products: w.states[0]!.products!.products, required: true } }),
    }),
  ],
  [
    'Request',
    (w) => ({ ...w, states: edit(w, 'a', { request: { gpus: 1, cpuMillis: 2000, memoryBytes: 2 ** 30 } }) }),
  ],
  ['PodConstraints', (w) => ({ ...w, states: edit(w, 'a', { pod: constraints('z2') }) })],
  [
    'ReplicaSetFailure',
    (w) => ({ ...w, replicaSets: [rs('a', 'a-7d9f', { failure: 'quota exceeded' }), rs('b')] }),
  ],
  ['NewerReplicaSet', (w) => ({ ...w, replicaSets: [...w.replicaSets, rs('a', 'a-8e0a', { revision: 2 })] })],
  ['PodAdded', (w) => ({ ...w, pods: [...w.pods, podOf('a', 2)] })],
  // Without a pod to place, no placer layout (built from the snapshot's pods) is in the key: the
  // pod list alone must be.
  [
    'PodAddedNoPlacer',
    (w) => ({ ...w, pods: [...w.pods, podOf('a', 2)] }),
    (w) => ({ ...w, states: edit(w, 'a', { pod: undefined }) }),
  ],
  [
    'PodStartup',
    (w) => ({
      ...w,
      pods: w.pods.map((p) => (p.name === 'a-0' ? { ...p, readyAt: '2025-01-01T00:09:00Z' } : p)),
    }),
  ],
  ['NoData', (w) => ({ ...w, reading: () => ({ ok: false, reason: 'Unreachable', message: 'down' }) })],
  [
    'PartialData',
    (w) => ({
      ...w,
      reading: (v) => ({ ...(w.reading(v) as object), warnings: ['store 2 down'] }) as UtilizationReading,
    }),
  ],
  [
    'PolicyEngine',
    (w) => ({
      ...w,
      policy: {
        ...w.policy,
        spec: { ...w.policy.spec, scaling: { ...w.policy.spec.scaling, engine: 'hpa' } },
      },
      autoscalers: [hpa('a', true)],
    }),
  ],
  // The same autoscaler objects in both passes, only the engine moved: the policy alone decides
  // whether gpuops's own HPA is another autoscaler.
  [
    'PolicyEngineOnly',
    (w) => ({
      ...w,
      policy: {
        ...w.policy,
        spec: { ...w.policy.spec, scaling: { ...w.policy.spec.scaling, engine: 'hpa' } },
      },
    }),
    // gpuops's own HPA (named as the algorithm): another autoscaler only while the engine is gpuops.
    (w) => ({ ...w, autoscalers: [{ ...hpa('a', true), name: 'a' }] }),
  ],
  ['ForeignAutoscaler', (w) => ({ ...w, autoscalers: [hpa('a', false)] })],
  ['NodeLabels', (w) => ({ ...w, nodes: NODES_Z2 })],
  ['Loop', (w) => ({ ...w, loop: { sampleSeconds: 5, reactionSeconds: 5 } })],
];

function hpa(target: string, managed: boolean): NonNullable<Snapshot['autoscalers']>[number] {
  return {
    namespace: 'algorithms',
    name: `${target}-hpa`,
    target: { kind: 'Deployment', name: target },
    owner: null,
    managed,
  };
}

describe('kept scaling inputs', () => {
  it('a steady pass copies the last inputs (their other fields the same objects) and equals a fresh build', () => {
    const memo = createScalingMemo();
    const kept = rememberedScaling(memo);
    const w = baseWorld();
    const first = pass(w, [40, 50, 60, 70], kept);
    const second = pass(w, [41, 52, 59, 68], kept);
    expect(memo.inputs.kept).toBe(2);
    const fresh = pass(w, [41, 52, 59, 68], plainLookups);
    for (const name of NAMES) {
      expect(data(second.get(name)!)).toEqual(data(fresh.get(name)!));
      expect(second.get(name)!.samples).not.toEqual(first.get(name)!.samples);
      expect(second.get(name)!.products).toBe(first.get(name)!.products);
      expect(second.get(name)!.loop).toBe(first.get(name)!.loop);
      expect(second.get(name)!.placer).toBe(first.get(name)!.placer);
    }
    // A new snapshot array of the same autoscaler objects is the same key (the watch cache maps anew).
    const third = pass({ ...w, autoscalers: [] }, [40, 50, 60, 70], kept);
    expect(memo.inputs.kept).toBe(2);
    expect(third.get('a')!.loop).toBe(first.get('a')!.loop);
  });

  it.each(CASES)('%s: built afresh, equal to a fresh build', (_, change, before = (w) => w) => {
    const memo = createScalingMemo();
    const kept = rememberedScaling(memo);
    const w = before(baseWorld());
    const first = pass(w, [40, 50, 60, 70], kept);
    const next = change(w);
    const second = pass(next, [41, 52, 59, 68], kept);
    const fresh = pass(next, [41, 52, 59, 68], plainLookups);
    expect([...second.keys()]).toEqual([...fresh.keys()]);
    for (const name of NAMES) expect(data(second.get(name)!), name).toEqual(data(fresh.get(name)!));
    // What a stale input would have been: the first pass's with this pass's samples, flags and records.
    const a = second.get('a')!;
    const stale = { ...first.get('a')!, samples: a.samples, flags: a.flags, recent: a.recent };
    expect(data(a)).not.toEqual(data(stale));
  });
});
