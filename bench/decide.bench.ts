/**
 * Scaling pass at scale: 1,000 algorithms over 20,000 pods (one GPU each, 2,500 nodes of 8 GPUs),
 * from ONE Prometheus answer (the two-part avg/last vector of `utilizationQuery`, generated as
 * the JSON the HTTP API returns). Measures parse + attribute + decide for all algorithms.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { NodeInfo, PodInfo, Snapshot } from '../src/cluster/types.js';
import { parseQueryResult } from '../src/metrics/query-result.js';
import { decideScaling, type AlgorithmState } from '../src/scaling/decide-scaling.js';
import type { Policy } from '../src/definitions/types.js';
import type { DecisionRecord } from '../src/store/types.js';
import { medianMs } from './measure.js';
import type { Figure } from './run.js';

const ALGORITHMS = 1000;
const PODS_PER_ALGORITHM = 20;
const GPUS_PER_NODE = 8;

function sorted(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The generated cluster, answer and history (exported for profiling). */
export function generate() {
  const now = new Date('2025-06-01T12:00:00Z');
  const nowS = now.getTime() / 1000;
  const policy = parse(readFileSync(new URL('../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
  const nodes: NodeInfo[] = [];
  const pods: PodInfo[] = [];
  const result: { metric: Record<string, string>; value: [number, string] }[] = [];
  const algorithms: AlgorithmState[] = [];
  const recent: DecisionRecord[] = [];
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const nodeCount = (ALGORITHMS * PODS_PER_ALGORITHM) / GPUS_PER_NODE + 50;
  for (let n = 0; n < nodeCount; n++) {
    nodes.push({
      name: `gpu-${String(n).padStart(5, '0')}`,
      labels: {},
      ready: true,
      cordoned: false,
      schedulable: true,
      gpuProduct: 'NVIDIA-A100-SXM4-80GB',
      gpuCapacity: GPUS_PER_NODE,
      gpuAllocatable: GPUS_PER_NODE,
      migAllocatable: 0,
      allocatable: { cpuMillis: 96_000, memoryBytes: 1000 * 2 ** 30, pods: 110 },
      requested: { cpuMillis: 0, memoryBytes: 0, pods: 0 },
      gpuRequested: 0,
      foreignGpuRequested: 0,
      managedPods: 0,
      pool: n < nodeCount - 50 ? (n % 2 ? 'long-task' : 'short-task') : 'unused',
      taints: [],
    });
  }
  let slot = 0;
  for (let a = 0; a < ALGORITHMS; a++) {
    const name = `alg-${String(a).padStart(4, '0')}`;
    const load = rand() * 100; // mean utilisation of this algorithm
    for (let i = 0; i < PODS_PER_ALGORITHM; i++, slot++) {
      const node = nodes[Math.floor(slot / GPUS_PER_NODE)]!;
      node.gpuRequested++;
      const podName = `${name}-7d9f-${i}`;
      pods.push({
        namespace: 'algorithms',
        name: podName,
        uid: `${a}-${i}`,
        labels: {},
        nodeName: node.name,
        phase: 'Running',
        ready: true,
        terminating: false,
        gpuRequest: 1,
        managed: true,
        algorithm: name,
        owner: { kind: 'ReplicaSet', name: `${name}-7d9f` },
        unschedulable: false,
        createdAt: '2025-05-01T00:00:00Z',
        requests: { cpuMillis: 0, memoryBytes: 0 },
        startedAt: null,
      });
      const metric = {
        gpu: String(slot % GPUS_PER_NODE),
        UUID: `GPU-${String(slot).padStart(8, '0')}`,
        modelName: 'NVIDIA A100-SXM4-80GB',
        Hostname: `nvidia-dcgm-exporter-${node.name}`,
        node: node.name,
        exported_namespace: 'algorithms',
        exported_pod: podName,
        namespace: 'gpu-operator',
        pod: `nvidia-dcgm-exporter-${node.name}`,
      };
      const util = Math.max(0, Math.min(100, load + (rand() - 0.5) * 10));
      // Prometheus answers with labels sorted by name.
      result.push({ metric: sorted({ ...metric, gpuops_stat: 'avg' }), value: [nowS, util.toFixed(2)] });
      result.push({ metric: sorted({ ...metric, gpuops_stat: 'last' }), value: [nowS, String(nowS - 3)] });
    }
    algorithms.push({
      algorithm: {
        name,
        namespace: 'algorithms',
        spec: { image: 'registry.example.com/ml/x:1', resources: { gpus: 1 } },
        scaling: { minReplicas: 1, maxReplicas: 40, utilization: { min: 30, max: 80 } },
        benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
        placement: 'auto',
        source: { file: `algorithms/${name}.yaml`, line: 1 },
      },
      pool: a % 2 ? 'long-task' : 'short-task',
      replicas: PODS_PER_ALGORITHM,
    });
    // One earlier pass, before the scale-down stabilisation window, so scale-downs may happen.
    recent.push({
      kind: 'scaling',
      subject: name,
      action: 'hold',
      reason: 'WithinRange',
      message: '',
      replicasFrom: PODS_PER_ALGORITHM,
      replicasTo: PODS_PER_ALGORITHM,
      utilization: 50,
      at: new Date(now.getTime() - 400_000).toISOString(),
    });
  }
  const snapshot: Snapshot = { takenAt: now.toISOString(), nodes, pods };
  const answer = JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
  return { now, policy, snapshot, answer, algorithms, recent };
}

export default async function bench(): Promise<Figure[]> {
  const g = generate();
  const body: unknown = JSON.parse(g.answer);
  let actions = new Map<string, number>();
  const pass = (decoded: unknown) => {
    const series = parseQueryResult(decoded, { source: 'bench', metric: 'DCGM_FI_DEV_GPU_UTIL' });
    const { decisions } = decideScaling({
      algorithms: g.algorithms,
      snapshot: g.snapshot,
      reading: { ok: true, series, errors: [] },
      recent: g.recent,
      policy: g.policy,
      now: g.now,
    });
    if (decisions.length !== ALGORITHMS)
      throw new Error(`expected ${ALGORITHMS} decisions, got ${decisions.length}`);
    actions = new Map();
    for (const d of decisions) actions.set(d.reason, (actions.get(d.reason) ?? 0) + 1);
  };
  const ms = await medianMs(() => pass(body));
  // CPU time of the same work: on a shared, busy machine wall time overstates it.
  const cpu0 = process.cpuUsage();
  pass(body);
  const cpuMs = process.cpuUsage(cpu0).user / 1000;
  const withJson = await medianMs(() => pass(JSON.parse(g.answer)), 3);
  if (!actions.get('AboveMax') || !actions.get('BelowMin') || !actions.get('WithinRange')) {
    throw new Error(
      `bench data should exercise scale-up, scale-down and hold: ${JSON.stringify([...actions])}`,
    );
  }
  const what = '1,000 algorithms / 20,000 pods from one Prometheus answer';
  return [
    { name: `scaling pass (attribute + decide), ${what}`, value: ms, unit: 'ms', target: 300 },
    { name: `scaling pass, CPU time (all threads, incl. GC)`, value: cpuMs, unit: 'ms' },
    {
      name: `scaling pass incl. JSON decoding of the ${(g.answer.length / 1e6).toFixed(1)} MB answer`,
      value: withJson,
      unit: 'ms',
    },
  ];
}
