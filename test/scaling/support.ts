/** Builders for scaling tests: the shipped default policy, an algorithm, pods, samples, nodes. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { PodInfo } from '../../src/cluster/types.js';
import { scalingFacts, type Facts } from '../../src/scaling/rules/facts.js';
import type { NodeCapacity, PodSample, ScalingInput } from '../../src/scaling/types.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import type { DecisionRecord } from '../../src/store/types.js';

const defaultPolicy = parse(
  readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8'),
) as Policy;

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };

/** The shipped `policies/default.yaml`, with scaling fields overridden. */
export function policy(scaling: DeepPartial<Policy['spec']['scaling']> = {}): Policy {
  const p = structuredClone(defaultPolicy);
  const s = p.spec.scaling;
  Object.assign(s, {
    ...scaling,
    utilization: s.utilization,
    scaleUp: s.scaleUp,
    scaleDown: s.scaleDown,
    hpa: s.hpa,
  });
  Object.assign(s.utilization, scaling.utilization ?? {});
  Object.assign(s.scaleUp, scaling.scaleUp ?? {});
  Object.assign(s.scaleDown, scaling.scaleDown ?? {});
  return p;
}

/**
 * Default policy with every cooldown and stabilisation window off, and headroom sizing's hysteresis
 * too (`headroomDownMargin` 0, `headroomFlapHoldSeconds` 0: one target up and down) unless given.
 */
export function policyNoWindows(scaling: DeepPartial<Policy['spec']['scaling']> = {}): Policy {
  return policy({
    headroomDownMargin: 0,
    headroomFlapHoldSeconds: 0,
    ...scaling,
    scaleUp: { cooldownSeconds: 0, stabilizationWindowSeconds: 0, ...scaling.scaleUp },
    scaleDown: { cooldownSeconds: 0, stabilizationWindowSeconds: 0, ...scaling.scaleDown },
  });
}

export function algorithm(
  o: {
    name?: string;
    gpus?: number;
    minReplicas?: number;
    maxReplicas?: number;
    min?: number;
    max?: number;
  } = {},
): ResolvedAlgorithm {
  return {
    name: o.name ?? 'resnet50-infer',
    namespace: 'algorithms',
    spec: { image: 'registry.example.com/ml/resnet50:1.4.2', resources: { gpus: o.gpus ?? 1 } },
    scaling: {
      minReplicas: o.minReplicas ?? 1,
      maxReplicas: o.maxReplicas ?? 8,
      utilization: { min: o.min ?? 30, max: o.max ?? 80 },
    },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: 'auto',
    source: { file: 'algorithms/resnet50.yaml', line: 1 },
  };
}

export function pod(name: string, o: Partial<PodInfo> & { rs?: string } = {}): PodInfo {
  const { rs, ...rest } = o;
  return {
    namespace: 'algorithms',
    name,
    uid: `uid-${name}`,
    labels: {},
    nodeName: 'lt-1',
    phase: 'Running',
    ready: true,
    terminating: false,
    gpuRequest: 1,
    managed: true,
    algorithm: 'resnet50-infer',
    owner: { kind: 'ReplicaSet', name: rs ?? 'resnet50-infer-7d9f' },
    unschedulable: false,
    createdAt: '2025-01-01T00:00:00Z',
    requests: { cpuMillis: 0, memoryBytes: 0 },
    startedAt: '2025-01-01T00:00:00Z',
    ...rest,
  };
}

export function sample(podName: string, utilization: number, at = '2025-06-01T12:00:00.000Z'): PodSample {
  return { namespace: 'algorithms', pod: podName, utilization, at, gpus: [`GPU-${podName}`] };
}

/** Room a node builder gives unless told: 96 cores, 1000Gi and 110 pod slots free (GPUs are the limit). */
export const PLENTY = { cpuMillis: 96_000, memoryBytes: 1000 * 2 ** 30, pods: 110 };

/**
 * A node's capacity for scaling tests: `freeGpus` free of `allocatableGpus` (default: all of them
 * free), `free` cpu/memory/pods (default {@link PLENTY}).
 */
export function node(
  name: string,
  pool: NodeCapacity['pool'],
  freeGpus: number,
  gpuProduct: string | null = 'NVIDIA-A100-SXM4-80GB',
  o: { allocatableGpus?: number; free?: Partial<NodeCapacity['free']> } = {},
): NodeCapacity {
  return {
    node: name,
    pool,
    gpuProduct,
    allocatableGpus: o.allocatableGpus ?? freeGpus,
    freeGpus,
    free: { ...PLENTY, ...o.free },
  };
}

/**
 * `n` Ready pods (one GPU each) sharing `gpus` GPUs of load evenly (each at `gpus·100/n` %), the
 * algorithm's replica limits 1..20: the headroom rules' load in whole GPUs.
 */
export function evenLoad(gpus: number, n: number): ScalingInput {
  return {
    ...baseInput(Array<number>(n).fill((gpus * 100) / n)),
    algorithm: algorithm({ minReplicas: 1, maxReplicas: 20 }),
  };
}

/** Three Ready pods at `utils`, three replicas in Git, two free GPUs in pool long-task. */
export function baseInput(utils: number[] = [50, 50, 50]): ScalingInput {
  const pods = utils.map((_, i) => pod(`resnet50-infer-7d9f-${i}`));
  return {
    algorithm: algorithm(),
    pool: 'long-task',
    replicas: utils.length,
    pods,
    samples: utils.map((u, i) => sample(`resnet50-infer-7d9f-${i}`, u)),
    poolNodes: [node('lt-1', 'long-task', 2)],
    unusedNodes: [node('a-unused-t4', 'unused', 4, 'Tesla-T4'), node('z-unused-a100', 'unused', 8)],
    recent: [],
  };
}

interface RawPod {
  metadata: {
    namespace: string;
    name: string;
    uid?: string;
    labels?: Record<string, string>;
    deletionTimestamp?: string;
    creationTimestamp?: string;
  };
  spec: {
    nodeName?: string;
    containers?: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } }[];
  };
  status: { phase: PodInfo['phase']; conditions?: { type: string; status: string }[] };
}

/** Whole `nvidia.com/gpu` the app containers request (a limit alone stands for the request). */
function rawGpus(p: RawPod): number {
  return (p.spec.containers ?? []).reduce((sum, c) => {
    const r = c.resources ?? {};
    return sum + Number(r.requests?.['nvidia.com/gpu'] ?? r.limits?.['nvidia.com/gpu'] ?? 0);
  }, 0);
}

/**
 * The cluster-mixed fixture's pods as PodInfo (only the fields attribution reads), with the pods
 * named in `managed` labelled as gpuops-managed pods of the given algorithm. Kept independent of
 * the snapshot model so these tests only fail for attribution's own reasons.
 */
export function fixturePods(managed: Record<string, string> = {}): PodInfo[] {
  const raw = JSON.parse(
    readFileSync(new URL('../fixtures/cluster-mixed/pods.json', import.meta.url), 'utf8'),
  ) as { items: RawPod[] };
  return raw.items.map((p) => {
    const alg = Object.entries(managed).find(([prefix]) => p.metadata.name.startsWith(prefix))?.[1] ?? null;
    return pod(p.metadata.name, {
      namespace: p.metadata.namespace,
      uid: p.metadata.uid ?? p.metadata.name,
      labels: p.metadata.labels ?? {},
      nodeName: p.spec.nodeName ?? null,
      gpuRequest: rawGpus(p),
      phase: p.status.phase,
      ready: (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'),
      terminating: p.metadata.deletionTimestamp !== undefined,
      managed: alg !== null,
      algorithm: alg,
      owner: null,
    });
  });
}

/**
 * A recorded scaling decision of `resnet50-infer` at `at` (ISO-8601): `action` and `reason` as
 * `decideOne` writes them, replicas from → to, and the utilisation it judged (percent; null: none).
 */
export function scalingRecord(
  at: string,
  action: string,
  reason: string,
  from: number | null,
  to: number | null,
  u: number | null,
): DecisionRecord {
  return {
    kind: 'scaling',
    subject: 'resnet50-infer',
    action,
    reason,
    message: '',
    replicasFrom: from,
    replicasTo: to,
    utilization: u,
    at,
  };
}

/** The time every rule table decides at. */
export const RULE_NOW = new Date('2025-06-01T12:00:00Z');

/** An ISO-8601 time `s` seconds before {@link RULE_NOW}. */
export function secondsAgo(s: number): string {
  return new Date(RULE_NOW.getTime() - s * 1000).toISOString();
}

/** The facts a rule reads, from an input and a policy (default: no windows), at {@link RULE_NOW}. */
export function factsOf(input: ScalingInput = baseInput(), p: Policy = policyNoWindows()): Facts {
  return scalingFacts(input, p, RULE_NOW);
}

/** {@link scalingRecord}'s fields after its time: action, reason, replicas from and to, utilisation. */
type RecordFields = Parameters<typeof scalingRecord> extends [string, ...infer F] ? F : never;

/** A {@link scalingRecord} `s` seconds before {@link RULE_NOW} (negative: after it). */
export function recordAgo(s: number, ...fields: RecordFields): DecisionRecord {
  return scalingRecord(secondsAgo(s), ...fields);
}

/**
 * The facts a rule of the recorded decisions reads (cooldown, stabilisation and peak windows, the
 * flap hold): `input` (default {@link baseInput}) with `recent` as its records, under `p`, at
 * {@link RULE_NOW}.
 */
export function factsWith(
  recent: DecisionRecord[],
  p: Policy = policyNoWindows(),
  input: ScalingInput = baseInput(),
): Facts {
  return factsOf({ ...input, recent }, p);
}

/** A verdict or target as one line for a table: `action reason to` or `to N`, null as `null`. */
export function brief(v: { action?: string; reason?: string; to: number } | null): string {
  if (v === null) return 'null';
  return v.action === undefined ? `to ${v.to}` : `${v.action} ${v.reason} ${v.to}`;
}
