/**
 * One pass has one answer per node (issue 41 kind 7, shared input T4-13): the pools step's answer
 * is what scaling judges, so a node the pass takes out of `unused` (a foreign workload) is never
 * also the unused node a scale-up moves, and no two change sets of a pass write the same path.
 * The T4-13 row failed before the fix (gpu-u3 left `unused` in the pools PR and moved into
 * short-task by the scale PR); the invariant runs over 200 generated worlds.
 */
import { readFileSync } from 'node:fs';
import type { V1Container, V1Node, V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { planDesiredState, type DesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import { planFiles } from '../../src/change-sets/change-set.js';
import { setDeploymentReplicas } from '../../src/manifests/replicas.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { RESNET } from '../scaling/one-deployment.js';

const policy = parse(readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
const NOW = new Date('2026-03-01T10:00:00Z');
const templates = loadWorkloadTemplates();

function node(name: string, gpus: number, pool: string | null): V1Node {
  return {
    metadata: {
      name,
      labels: { 'nvidia.com/gpu.product': 'Tesla-T4', ...(pool ? { 'gpuops.dev/pool': pool } : {}) },
    },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      capacity: { 'nvidia.com/gpu': String(gpus) },
      allocatable: { 'nvidia.com/gpu': String(gpus) },
    },
  } as V1Node;
}

const gpuContainer = (name: string, gpus: number, always = false): V1Container => ({
  name,
  image: 'x',
  resources: { limits: { 'nvidia.com/gpu': String(gpus) } },
  ...(always ? { restartPolicy: 'Always' } : {}),
});

function foreign(
  name: string,
  nodeName: string,
  containers: V1Container[],
  inits: V1Container[] = [],
): V1Pod {
  return {
    metadata: { name, namespace: 'research', uid: name, labels: { app: name } },
    spec: { nodeName, containers, ...(inits.length ? { initContainers: inits } : {}) },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as V1Pod;
}

function replica(name: string, nodeName: string): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      uid: name,
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': 'resnet50-infer' },
      ownerReferences: [
        { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f6c5b8', apiVersion: 'apps/v1', uid: 'rs' },
      ],
      creationTimestamp: new Date('2026-03-01T08:00:00Z'),
    },
    spec: { nodeName, containers: [gpuContainer('main', 1)] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as V1Pod;
}

const DEPLOYMENT = 'clusters/default/algorithms/resnet50-infer/deployment.yaml';

/** The Deployment as the placement step renders it, with `replicas`, as a merged placement left it. */
function deployment(replicas: number): string {
  if (rendered === undefined) {
    const placed = planDesiredState({ ...input(t413base()), base: new Map() });
    rendered = placed.changeSets.flatMap((cs) => cs.files).find((f) => f.path === DEPLOYMENT)!.content!;
  }
  return setDeploymentReplicas(rendered, replicas);
}
let rendered: string | undefined;

const nodeFile = (name: string, pool: string) =>
  `apiVersion: v1\nkind: Node\nmetadata:\n  name: ${name}\n  labels:\n    gpuops.dev/pool: ${pool}\n`;

/** dcgm-exporter lines for `pods` (each with its node's `node` label, as the scrape relabels it). */
function hot(pods: string[], percent: number, nodes: Map<string, string>): UtilizationReading {
  return {
    ok: true,
    errors: [],
    evaluatedAt: NOW.getTime(),
    series: pods.map((pod, i) => ({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      labels: {
        gpu: '0',
        UUID: `GPU-${i}`,
        Hostname: 'dcgm',
        node: nodes.get(pod) ?? '',
        namespace: 'algorithms',
        pod,
      },
      value: percent,
      timestamp: NOW.getTime() - 5_000,
    })),
  };
}

interface World {
  nodes: V1Node[];
  pods: V1Pod[];
  base: Map<string, string>;
  replicas: string[];
  percent: number;
}

function plan(w: World): DesiredState {
  return planDesiredState(input(w));
}

function input(w: World): DesiredStateInput {
  return {
    cluster: 'default',
    repo: { policy, errors: [], algorithms: [RESNET] },
    snapshot: buildSnapshot(w.nodes, w.pods, NOW),
    base: w.base,
    benchmarks: new Map([
      ['resnet50-infer', { status: 'Succeeded', medianSeconds: 12, message: 'measured' }],
    ]),
    reading: hot(w.replicas, w.percent, new Map(w.pods.map((p) => [p.metadata!.name!, p.spec!.nodeName!]))),
    recent: [],
    templates,
    now: NOW,
  };
}

/**
 * Paths two change sets of the pass both write (differ from base). The one shared file by design
 * is an algorithm's Deployment, which its placement change set (pod template, Git's replicas)
 * and its scale change set (only `spec.replicas`) both edit so that both merge cleanly: such a
 * pair counts only when the placement changes the replicas or the scale change more than them.
 */
function sharedPaths(d: DesiredState, base: ReadonlyMap<string, string>): string[] {
  const writer = new Map<string, { branch: string; content: string | null; kind: string }>();
  const shared: string[] = [];
  for (const cs of d.changeSets) {
    for (const f of planFiles(cs.files, base)) {
      const content = cs.files.find((x) => x.path === f.path)!.content;
      const other = writer.get(f.path);
      if (other !== undefined && !mergesCleanly(f.path, base.get(f.path), other, { kind: cs.kind, content }))
        shared.push(`${f.path}: ${other.branch} and ${cs.branch}`);
      writer.set(f.path, { branch: cs.branch, content, kind: cs.kind });
    }
  }
  return shared;
}

type Write = { kind: string; content: string | null };
const replicasOf = (text: string | null | undefined) =>
  text ? (parse(text) as { spec?: { replicas?: number } }).spec?.replicas : undefined;
const withoutReplicas = (text: string | null | undefined) => (text ?? '').replace(/^ {2}replicas: \d+$/m, '');

function mergesCleanly(path: string, base: string | undefined, a: Write, b: Write): boolean {
  if (!path.endsWith('/deployment.yaml') || base === undefined) return false;
  const placement = a.kind === 'placement' ? a : b.kind === 'placement' ? b : null;
  const scale = a.kind === 'scale' ? a : b.kind === 'scale' ? b : null;
  if (!placement || !scale) return false;
  return (
    replicasOf(placement.content) === replicasOf(base) &&
    withoutReplicas(scale.content) === withoutReplicas(base)
  );
}

/** The T4-13 world without its Deployment in Git. */
function t413base(): World {
  const names = ['gpu-s1', 'gpu-t1', 'gpu-u1', 'gpu-u2', 'gpu-u3'];
  const pools = ['short-task', 'test', 'unused', 'unused', 'unused'];
  const gpus = [4, 1, 2, 2, 4];
  const base = new Map<string, string>();
  names.forEach((n, i) => base.set(`clusters/default/nodes/${n}.yaml`, nodeFile(n, pools[i]!)));
  const replicas = ['resnet50-infer-7d9f6c5b8-aaaa1', 'resnet50-infer-7d9f6c5b8-aaaa2'];
  return {
    nodes: names.map((n, i) => node(n, gpus[i]!, pools[i]!)),
    pods: [
      ...replicas.map((r) => replica(r, 'gpu-s1')),
      foreign('eval-2c', 'gpu-s1', [gpuContainer('a', 1), gpuContainer('b', 1)]),
      foreign('prep-init', 'gpu-u1', [gpuContainer('app', 1)], [gpuContainer('prep', 2)]),
      foreign('side-car', 'gpu-u2', [gpuContainer('app', 1)], [gpuContainer('proxy', 1, true)]),
      foreign('warmup', 'gpu-u3', [gpuContainer('app', 1)], [gpuContainer('warm', 1)]),
    ],
    base,
    replicas,
    percent: 93,
  };
}

/** The T4-13 world: gpu-s1 full, three unused nodes each with a foreign multi-container pod. */
function t413(): World {
  const w = t413base();
  w.base.set(DEPLOYMENT, deployment(2));
  return w;
}

describe('one answer per node (T4-13)', () => {
  it('a node leaving unused for a foreign workload is not the node the scale-up moves', () => {
    const w = t413();
    const d = plan(w);
    const u3 = d.output.pools.find((p) => p.node === 'gpu-u3')!;
    expect([u3.to, u3.reason]).toEqual([null, 'ForeignWorkload']);
    const s = d.output.scaling.find((x) => x.algorithm === 'resnet50-infer')!;
    expect(s.nodes).not.toContain('gpu-u3');
    expect([s.action, s.reason]).toEqual(['hold', 'NoCapacity']);
    expect(sharedPaths(d, w.base)).toEqual([]);
  });

  it('across the boundary: the same node with no foreign pod stays unused and is the one moved', () => {
    const w = t413();
    w.pods = w.pods.filter((p) => p.metadata!.name !== 'warmup');
    const d = plan(w);
    expect(d.output.pools.find((p) => p.node === 'gpu-u3')!.to).toBe('unused');
    const s = d.output.scaling.find((x) => x.algorithm === 'resnet50-infer')!;
    expect([s.action, s.nodes]).toEqual(['relabel', ['gpu-u3']]);
    expect(sharedPaths(d, w.base)).toEqual([]);
  });

  it('a node moved by a scale-up that is new to Git is written by the scale change set alone', () => {
    const w = t413();
    w.pods = w.pods.filter((p) => p.metadata!.name !== 'warmup');
    w.base.delete('clusters/default/nodes/gpu-u3.yaml');
    const d = plan(w);
    const s = d.output.scaling.find((x) => x.algorithm === 'resnet50-infer')!;
    expect(s.nodes).toEqual(['gpu-u3']);
    const writers = d.changeSets.filter((cs) =>
      planFiles(cs.files, w.base).some((f) => f.path === 'clusters/default/nodes/gpu-u3.yaml'),
    );
    expect(writers.map((cs) => cs.kind)).toEqual(['scale']);
    expect(sharedPaths(d, w.base)).toEqual([]);
  });
});

/** A small deterministic PRNG (mulberry32): the same seed gives the same world. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generated(seed: number): World {
  const r = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const count = 3 + Math.floor(r() * 6);
  const nodes: V1Node[] = [];
  const pods: V1Pod[] = [];
  const base = new Map<string, string>();
  const replicas: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `gpu-${i}`;
    const observed = pick(['unused', 'unused', 'short-task', 'short-task', 'test', null] as const);
    const gpus = observed === 'short-task' ? pick([1, 1, 2]) : pick([1, 2, 4]);
    nodes.push(node(name, gpus, observed));
    const git = pick([observed, observed, 'unused', null] as const);
    if (git) base.set(`clusters/default/nodes/${name}.yaml`, nodeFile(name, git));
    const shape =
      observed === 'short-task'
        ? pick(['replica', 'replica', 'two'] as const)
        : pick(['none', 'none', 'app', 'init', 'sidecar', 'two'] as const);
    if (shape === 'replica') {
      const pod = `resnet50-infer-7d9f6c5b8-r${i}`;
      replicas.push(pod);
      pods.push(replica(pod, name));
    } else if (shape === 'app') pods.push(foreign(`f${i}`, name, [gpuContainer('a', 1)]));
    else if (shape === 'init')
      pods.push(foreign(`f${i}`, name, [gpuContainer('a', 1)], [gpuContainer('i', Math.min(gpus, 2))]));
    else if (shape === 'sidecar')
      pods.push(foreign(`f${i}`, name, [gpuContainer('a', 1)], [gpuContainer('s', 1, true)]));
    else if (shape === 'two') pods.push(foreign(`f${i}`, name, [gpuContainer('a', 1), gpuContainer('b', 1)]));
  }
  base.set(DEPLOYMENT, deployment(Math.max(1, replicas.length)));
  return { nodes, pods, base, replicas, percent: pick([20, 50, 95, 95]) };
}

describe('invariant over generated worlds: one writer per path, moves only of nodes that stay unused', () => {
  it('holds for 200 worlds', () => {
    const broken: string[] = [];
    let moves = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const w = generated(seed);
      const d = plan(w);
      for (const shared of sharedPaths(d, w.base)) broken.push(`seed ${seed}: ${shared}`);
      const answer = new Map(d.output.pools.map((p) => [p.node, p.to]));
      for (const s of d.output.scaling) {
        for (const n of s.nodes) {
          moves++;
          if (answer.get(n) !== 'unused')
            broken.push(`seed ${seed}: ${n} moved, pools answer ${answer.get(n)}`);
        }
      }
    }
    expect(broken).toEqual([]);
    // The worlds exercise the rule: some passes do move nodes.
    expect(moves).toBeGreaterThan(10);
  });
});
