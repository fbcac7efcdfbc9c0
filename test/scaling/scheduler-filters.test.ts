/**
 * Capacity answers as kube-scheduler's filters would for the algorithm's pod (issue 41 kind 3,
 * shared input T4-08): free GPUs on a node the filters refuse are no room, and the scale-up moves
 * an unused node in instead of leaving a replica Pending. Each world goes through the snapshot
 * model and the one planner (`planDesiredState`, what `plan` prints and `reconcile` writes), with
 * the Deployment in Git as the placement step renders it from the spec's `template`. Rows marked
 * "failed before" scaled up onto the pool's free GPUs (the replica would stay Pending).
 */
import { readFileSync } from 'node:fs';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { planDesiredState, type DesiredStateInput } from '../../src/controller/desired-state.js';
import { setDeploymentReplicas } from '../../src/manifests/replicas.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import type { Policy, PodTemplate, ResolvedAlgorithm } from '../../src/definitions/types.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const policy = parse(readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
const NOW = new Date('2026-03-01T10:00:00Z');
const DEPLOYMENT = 'clusters/default/algorithms/resnet50-infer/deployment.yaml';
const SELF = { 'gpuops.dev/algorithm': 'resnet50-infer' };
const ONE_PER_NODE = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: SELF } },
    ],
  },
};

function algorithm(
  template?: PodTemplate,
  resources: ResolvedAlgorithm['spec']['resources'] = { gpus: 1, cpu: '4', memory: '16Gi' },
): ResolvedAlgorithm {
  return {
    name: 'resnet50-infer',
    namespace: 'algorithms',
    spec: { image: 'registry.example.com/ml/resnet50:1.4.2', resources, ...(template ? { template } : {}) },
    scaling: { minReplicas: 1, maxReplicas: 6, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 1, timeoutSeconds: 1800 },
    placement: 'short-task',
    source: { file: 'algorithms/resnet50-infer.yaml', line: 1 },
  };
}

function node(
  name: string,
  pool: string,
  o: { gpus?: number; zone?: string; ephemeral?: string } = {},
): V1Node {
  const gpus = String(o.gpus ?? 4);
  const alloc = {
    cpu: '96',
    memory: '1000Gi',
    pods: '110',
    'ephemeral-storage': o.ephemeral ?? '500Gi',
    'nvidia.com/gpu': gpus,
  };
  return {
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'nvidia.com/gpu.product': 'Tesla-T4',
        'gpuops.dev/pool': pool,
        ...(o.zone ? { 'topology.kubernetes.io/zone': o.zone } : {}),
      },
    },
    status: { conditions: [{ type: 'Ready', status: 'True' }], capacity: alloc, allocatable: alloc },
  } as V1Node;
}

function replica(name: string, nodeName: string, affinity?: object): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'algorithms',
      uid: name,
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', ...SELF, 'pod-template-hash': '7d9f6c5b8' },
      ownerReferences: [
        { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f6c5b8', apiVersion: 'apps/v1', uid: 'rs' },
      ],
      creationTimestamp: new Date('2026-03-01T08:00:00Z'),
    },
    spec: {
      nodeName,
      ...(affinity ? { affinity } : {}),
      containers: [
        { name: 'main', resources: { limits: { 'nvidia.com/gpu': '1', cpu: '4', memory: '16Gi' } } },
      ],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as V1Pod;
}

function foreign(name: string, nodeName: string, gpus: number): V1Pod {
  return {
    metadata: { name, namespace: 'research', uid: name, labels: { app: name } },
    spec: {
      nodeName,
      containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': String(gpus) } } }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  } as V1Pod;
}

function hot(pods: V1Pod[]): UtilizationReading {
  return {
    ok: true,
    errors: [],
    evaluatedAt: NOW.getTime(),
    series: pods
      .filter((p) => p.metadata!.namespace === 'algorithms')
      .map((p, i) => ({
        metric: 'DCGM_FI_DEV_GPU_UTIL',
        labels: {
          gpu: '0',
          UUID: `GPU-${i}`,
          Hostname: 'dcgm',
          node: p.spec!.nodeName!,
          namespace: 'algorithms',
          pod: p.metadata!.name!,
        },
        value: 93,
        timestamp: NOW.getTime() - 5_000,
      })),
  };
}

/** The decision of one pass; the Deployment in Git is the one the placement renders from `alg`. */
function decide(alg: ResolvedAlgorithm, nodes: V1Node[], pods: V1Pod[], replicas: number): ScalingDecision {
  const input: DesiredStateInput = {
    cluster: 'default',
    repo: { policy, errors: [], algorithms: [alg] },
    snapshot: buildSnapshot(nodes, pods, NOW),
    base: new Map(),
    benchmarks: new Map([
      ['resnet50-infer', { status: 'Succeeded', medianSeconds: 12, message: 'measured' }],
    ]),
    reading: hot(pods),
    recent: [],
    templates: loadWorkloadTemplates(),
    now: NOW,
  };
  const placed = planDesiredState(input);
  const rendered = placed.changeSets.flatMap((cs) => cs.files).find((f) => f.path === DEPLOYMENT)!.content!;
  const base = new Map([[DEPLOYMENT, setDeploymentReplicas(rendered, replicas)]]);
  return planDesiredState({ ...input, base }).output.scaling.find((d) => d.algorithm === 'resnet50-infer')!;
}

const T408_NODES = () => [
  node('gpu-s1', 'short-task'),
  node('gpu-s2', 'short-task'),
  node('gpu-t1', 'test', { gpus: 1 }),
  node('gpu-u1', 'unused'),
];

describe('required pod anti-affinity, one replica per node (T4-08)', () => {
  it('the running replicas carry it (Git not yet): no room on the pool, gpu-u1 moves in (failed before)', () => {
    const pods = [replica('r1', 'gpu-s1', ONE_PER_NODE), replica('r2', 'gpu-s2', ONE_PER_NODE)];
    const d = decide(algorithm(), T408_NODES(), pods, 2);
    expect([d.action, d.nodes, d.replicas]).toEqual(['relabel', ['gpu-u1'], { from: 2, to: 3 }]);
    expect(d.message).toContain("gpu-s1: node(s) didn't satisfy existing pods anti-affinity rules");
  });

  it("the Deployment's template carries it, the running pods not: its own term refuses both nodes (failed before)", () => {
    const pods = [replica('r1', 'gpu-s1'), replica('r2', 'gpu-s2')];
    const d = decide(algorithm({ spec: { affinity: ONE_PER_NODE } }), T408_NODES(), pods, 2);
    expect([d.action, d.nodes]).toEqual(['relabel', ['gpu-u1']]);
    expect(d.message).toContain("gpu-s2: node(s) didn't match pod anti-affinity rules");
  });

  it('across the boundary: a pool node without a replica takes the third one, no node moves', () => {
    const pods = [replica('r1', 'gpu-s1', ONE_PER_NODE), replica('r2', 'gpu-s2', ONE_PER_NODE)];
    const nodes = [...T408_NODES(), node('gpu-s3', 'short-task')];
    const d = decide(algorithm({ spec: { affinity: ONE_PER_NODE } }), nodes, pods, 2);
    expect([d.action, d.nodes, d.replicas]).toEqual(['scale-up', [], { from: 2, to: 3 }]);
  });

  it('a scale-up of two replicas needs two nodes: each unused node takes one (4 GPUs each notwithstanding)', () => {
    const pods = [replica('r1', 'gpu-s1', ONE_PER_NODE), replica('r2', 'gpu-s2', ONE_PER_NODE)];
    const nodes = [...T408_NODES(), node('gpu-u2', 'unused')];
    const alg = algorithm({ spec: { affinity: ONE_PER_NODE } });
    const two = { ...policy, spec: { ...policy.spec, scaling: { ...policy.spec.scaling, step: 2 } } };
    const input: DesiredStateInput = {
      cluster: 'default',
      repo: { policy: two, errors: [], algorithms: [alg] },
      snapshot: buildSnapshot(nodes, pods, NOW),
      base: new Map(),
      benchmarks: new Map([
        ['resnet50-infer', { status: 'Succeeded', medianSeconds: 12, message: 'measured' }],
      ]),
      reading: hot(pods),
      recent: [],
      templates: loadWorkloadTemplates(),
      now: NOW,
    };
    const rendered = planDesiredState(input)
      .changeSets.flatMap((cs) => cs.files)
      .find((f) => f.path === DEPLOYMENT)!.content!;
    const d = planDesiredState({
      ...input,
      base: new Map([[DEPLOYMENT, setDeploymentReplicas(rendered, 2)]]),
    }).output.scaling[0]!;
    expect([d.action, [...d.nodes].sort(), d.replicas.to]).toEqual(['relabel', ['gpu-u1', 'gpu-u2'], 4]);
  });
});

describe('topology spread, DoNotSchedule on the zone', () => {
  const SPREAD = {
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'topology.kubernetes.io/zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: SELF },
      },
    ],
  };
  // z1: gpu-s1 runs both replicas (2 GPUs free); z2: gpu-s2 is full with a foreign pod.
  const nodes = () => [
    node('gpu-s1', 'short-task', { zone: 'z1' }),
    node('gpu-s2', 'short-task', { zone: 'z2' }),
    node('gpu-t1', 'test', { gpus: 1, zone: 'z1' }),
    node('gpu-u1', 'unused', { zone: 'z1' }),
    node('gpu-u2', 'unused', { zone: 'z2' }),
  ];
  const pods = () => [replica('r1', 'gpu-s1'), replica('r2', 'gpu-s1'), foreign('batch', 'gpu-s2', 4)];

  it('z1 is 2 ahead of z2: gpu-s1 refuses by maxSkew 1, and the unused node of z2 moves in, not the one of z1 (failed before)', () => {
    const d = decide(algorithm({ spec: SPREAD }), nodes(), pods(), 2);
    expect([d.action, d.nodes]).toEqual(['relabel', ['gpu-u2']]);
    expect(d.message).toContain("gpu-s1: node(s) didn't match pod topology spread constraints");
  });

  it('across the boundary: maxSkew 3 lets the third replica onto gpu-s1 (skew exactly 3)', () => {
    const loose = { topologySpreadConstraints: [{ ...SPREAD.topologySpreadConstraints[0]!, maxSkew: 3 }] };
    const d = decide(algorithm({ spec: loose }), nodes(), pods(), 2);
    expect([d.action, d.nodes, d.replicas.to]).toEqual(['scale-up', [], 3]);
  });
});

describe('every resource the pod asks for counts, by the init-container rule', () => {
  it('ephemeral storage the pool node lacks: no room there, the unused node with enough moves in (failed before)', () => {
    const tpl = {
      spec: {
        containers: [
          {
            resources: {
              requests: { 'ephemeral-storage': '100Gi' },
              limits: { 'ephemeral-storage': '100Gi' },
            },
          },
        ],
      },
    };
    const nodes = [
      node('gpu-s1', 'short-task', { ephemeral: '50Gi' }),
      node('gpu-t1', 'test', { gpus: 1 }),
      node('gpu-u1', 'unused', { ephemeral: '200Gi' }),
    ];
    const d = decide(algorithm(tpl), nodes, [replica('r1', 'gpu-s1')], 1);
    expect([d.action, d.nodes]).toEqual(['relabel', ['gpu-u1']]);
    expect(d.message).toContain('gpu-s1: Insufficient ephemeral-storage');
  });

  it('across the boundary: exactly the storage asked for is room', () => {
    const tpl = {
      spec: {
        containers: [
          {
            resources: { requests: { 'ephemeral-storage': '50Gi' }, limits: { 'ephemeral-storage': '50Gi' } },
          },
        ],
      },
    };
    const nodes = [
      node('gpu-s1', 'short-task', { ephemeral: '100Gi' }),
      node('gpu-t1', 'test', { gpus: 1 }),
      node('gpu-u1', 'unused'),
    ];
    // r1 runs without the template's storage request (an older revision): 100Gi are left, the new pod asks 50.
    const d = decide(algorithm(tpl), nodes, [replica('r1', 'gpu-s1')], 1);
    expect([d.action, d.nodes, d.replicas.to]).toEqual(['scale-up', [], 2]);
  });

  it('an init container asking 2 GPUs makes the replica a 2-GPU pod: 1 free GPU is no room (failed before)', () => {
    const tpl = {
      spec: {
        initContainers: [{ name: 'warm', image: 'x', resources: { limits: { 'nvidia.com/gpu': '2' } } }],
      },
    };
    const nodes = [
      node('gpu-s1', 'short-task', { gpus: 2 }),
      node('gpu-t1', 'test', { gpus: 1 }),
      node('gpu-u1', 'unused'),
    ];
    const d = decide(algorithm(tpl), nodes, [replica('r1', 'gpu-s1')], 1);
    expect([d.action, d.nodes]).toEqual(['relabel', ['gpu-u1']]);
  });
});
