/**
 * A mixed fleet of NVIDIA A100 and AMD Instinct MI300X nodes (`test/fixtures/fleet-amd`): AMD
 * nodes are classified into pools, and an algorithm asking `amd.com/gpu` is benchmarked, placed
 * and scaled on AMD nodes only — an NVIDIA one on NVIDIA nodes only — through the real snapshot
 * model, pool rules, renderers, plan and scaling pass.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { Snapshot } from '../../src/cluster/types.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { placementSection } from '../../src/change-sets/pr-sections.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { parseDcgmPage } from '../../src/metrics/dcgm-text.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import type { BenchmarkOutcome } from '../../src/placement/types.js';
import { planDesiredState } from '../../src/plan/desired-state.js';
import { assignPools } from '../../src/pools/assign.js';
import { nodeCapacity } from '../../src/scaling/capacity.js';
import { decideScaling } from '../../src/scaling/decide-scaling.js';
import { replicasThatFit, templateRequest } from '../../src/scaling/fit.js';
import { DCGM } from '../../src/util/vocabulary.js';
import { noData, policy, templates } from '../support/cluster-mixed.js';

const NOW = new Date('2026-12-01T10:00:00Z');
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const fixture = (file: string): { items: Obj[] } =>
  JSON.parse(readFileSync(new URL(`../fixtures/fleet-amd/${file}`, import.meta.url), 'utf8'));

/** The fixture's nodes with the pool labels given (node → pool), and left out the ones in `drop`. */
function nodes(pools: Record<string, string> = {}, drop: string[] = []): Obj[] {
  return fixture('nodes.json')
    .items.filter((n) => !drop.includes(n.metadata.name))
    .map((n) => {
      const pool = pools[n.metadata.name];
      return pool
        ? { ...n, metadata: { ...n.metadata, labels: { ...n.metadata.labels, 'gpuops.dev/pool': pool } } }
        : n;
    });
}

/** `count` Running, Ready pods of algorithm `alg` on `node`, each asking one GPU of `resource`. */
function replicas(alg: string, node: string, resource: string, count: number): Obj[] {
  return Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `${alg}-7d9f-${i}`,
      namespace: 'algorithms',
      uid: `uid-${alg}-${i}`,
      creationTimestamp: '2026-12-01T08:00:00Z',
      labels: { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': alg },
      ownerReferences: [{ kind: 'ReplicaSet', name: `${alg}-7d9f`, controller: true }],
    },
    spec: {
      nodeName: node,
      containers: [{ name: alg, resources: { requests: { [resource]: '1' }, limits: { [resource]: '1' } } }],
    },
    status: {
      phase: 'Running',
      startTime: '2026-12-01T08:00:05Z',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-01T08:01:00Z' }],
    },
  }));
}

const snapshotOf = (n: Obj[], pods: Obj[] = []): Snapshot =>
  buildSnapshot(n as never, [...fixture('pods.json').items, ...pods] as never, NOW);

function alg(name: string, vendor?: 'amd' | 'nvidia'): ResolvedAlgorithm {
  return {
    name,
    namespace: 'algorithms',
    spec: {
      image: `registry.example.com/ml/${name}:1.0.0`,
      resources: { gpus: 1 },
      ...(vendor ? { gpu: { vendor } } : {}),
    },
    scaling: { minReplicas: 1, maxReplicas: 16, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: 'long-task',
    source: { file: `algorithms/${name}.yaml`, line: 1 },
  };
}
const AMD_ALG = alg('llm-amd', 'amd');
const NV_ALG = alg('llm-nv');

/** The GPU exporter pages of `node`'s pods as Prometheus would scrape them, every GPU at `percent`. */
function reading(pods: Obj[], percent: number, page: 'amd' | 'nvidia'): UtilizationReading {
  const lines = pods.map((p, i) =>
    page === 'amd'
      ? `gpu_gfx_activity{gpu_id="${i}",gpu_uuid="u-${p.metadata.name}",hostname="${p.spec.nodeName}",pod="${p.metadata.name}",namespace="algorithms",container="c"} ${percent}`
      : `DCGM_FI_DEV_GPU_UTIL{gpu="${i}",UUID="GPU-${p.metadata.name}",Hostname="exporter",pod="${p.metadata.name}",namespace="algorithms",container="c"} ${percent}`,
  );
  const series = parseDcgmPage(lines.join('\n') + '\n', {
    source: 'page',
    scrapedAtMs: NOW.getTime(),
    metrics: [DCGM.GPU_UTIL],
    node: pods[0]!.spec.nodeName,
  });
  return { ok: true, series, errors: [] };
}

describe('mixed NVIDIA + AMD fleet', () => {
  it('the snapshot reads each node by its vendor: resource, product label, taint', () => {
    const s = snapshotOf(nodes());
    expect(s.nodes.map((n) => [n.name, n.vendor, n.gpuProduct, n.gpuAllocatable, n.schedulable])).toEqual([
      ['amd-mi300x-01', 'amd', 'AMD_Instinct_MI300X_OAM', 8, true],
      ['amd-mi300x-02', 'amd', 'AMD_Instinct_MI300X_OAM', 8, true],
      ['amd-mi300x-03', 'amd', 'AMD_Instinct_MI300X_OAM', 8, true],
      ['cpu-01', 'nvidia', null, 0, true],
      ['nv-a100-01', 'nvidia', 'NVIDIA-A100-SXM4-80GB', 8, true],
      ['nv-a100-02', 'nvidia', 'NVIDIA-A100-SXM4-80GB', 8, true],
    ]);
    const pods = replicas('llm-amd', 'amd-mi300x-02', 'amd.com/gpu', 3);
    const amd2 = snapshotOf(nodes(), pods).nodes.find((n) => n.name === 'amd-mi300x-02')!;
    expect([amd2.gpuRequested, amd2.requested.other?.['amd.com/gpu']]).toEqual([3, undefined]);
  });

  it('classifies AMD nodes into pools: one test node per vendor, the rest unused, the CPU node in none', () => {
    const a = assignPools(snapshotOf(nodes()), policy);
    expect(a.map((x) => [x.node, x.to, x.reason, x.message])).toEqual([
      ['amd-mi300x-01', 'test', 'TestPool', 'becomes test for AMD: 1 of 1 test nodes'],
      ['amd-mi300x-02', 'unused', 'Unused', 'eligible (8 GPUs allocatable): unused'],
      ['amd-mi300x-03', 'unused', 'Unused', 'eligible (8 GPUs allocatable): unused'],
      ['cpu-01', null, 'NoGPU', 'no nvidia.com/gpu or amd.com/gpu capacity: not a GPU node'],
      ['nv-a100-01', 'test', 'TestPool', 'becomes test for NVIDIA: 1 of 1 test nodes'],
      ['nv-a100-02', 'unused', 'Unused', 'eligible (8 GPUs allocatable): unused'],
    ]);
  });

  it.each<[string, ResolvedAlgorithm, string, string]>([
    ['AmdBenchmarkOnTheAmdTestNodeOnly', AMD_ALG, 'amd.com/gpu', 'amd-mi300x-01'],
    ['NvidiaBenchmarkOnTheNvidiaTestNodeOnly', NV_ALG, 'nvidia.com/gpu', 'nv-a100-01'],
  ])('%s', (_name, algorithm, resource, node) => {
    const job = renderBenchmarkJob({
      algorithm,
      policy: policy.spec,
      specHash: 'a'.repeat(64),
      sequence: 1,
      template: templates.benchmarkJob,
    }) as Obj;
    const pod = job.spec.template.spec;
    expect(pod.containers[0].resources).toEqual({
      requests: { [resource]: '1' },
      limits: { [resource]: '1' },
    });
    expect(pod.tolerations[0]).toEqual({ key: resource, operator: 'Exists', effect: 'NoSchedule' });
    const testNodes = nodes({ 'amd-mi300x-01': 'test', 'nv-a100-01': 'test' });
    const where = nodeCapacity(snapshotOf(testNodes))
      .filter((c) => c.pool === 'test' && replicasThatFit(c, templateRequest(pod)!) > 0)
      .map((c) => c.node);
    expect(where).toEqual([node]);
  });

  it('places each algorithm asking its own vendor: resource, toleration, product label', () => {
    const ok: BenchmarkOutcome = { status: 'Succeeded', medianSeconds: 5000, message: 'measured' };
    const plan = planDesiredState({
      cluster: 'prod',
      repo: {
        policy,
        errors: [],
        algorithms: [
          AMD_ALG,
          { ...NV_ALG, spec: { ...NV_ALG.spec, gpu: { product: ['NVIDIA-A100-SXM4-80GB'] } } },
        ],
      },
      snapshot: snapshotOf(nodes({ 'amd-mi300x-01': 'test', 'nv-a100-01': 'test' })),
      base: new Map(),
      benchmarks: new Map([
        ['llm-amd', ok],
        ['llm-nv', ok],
      ]),
      reading: noData,
      recent: [],
      templates,
      now: NOW,
    });
    const file = (name: string) =>
      parse(
        plan.changeSets
          .flatMap((c) => c.files)
          .find((f) => f.path === `clusters/prod/algorithms/${name}/deployment.yaml`)!.content!,
      ) as Obj;
    const amd = file('llm-amd').spec.template.spec;
    expect(amd.containers[0].resources.requests).toEqual({ 'amd.com/gpu': '1' });
    expect(amd.tolerations.map((t: Obj) => t.key)).toEqual(['amd.com/gpu', 'gpuops.dev/pool']);
    expect(amd.affinity).toBeUndefined();
    const nv = file('llm-nv').spec.template.spec;
    expect(nv.containers[0].resources.requests).toEqual({ 'nvidia.com/gpu': '1' });
    expect(nv.tolerations.map((t: Obj) => t.key)).toEqual(['nvidia.com/gpu', 'gpuops.dev/pool']);
    expect(
      nv.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        .matchExpressions[0].key,
    ).toBe('nvidia.com/gpu.product');
  });

  it("an AMD algorithm naming its product is pinned by the AMD node labeller's label, and its PR says so", () => {
    const mi300x: ResolvedAlgorithm = {
      ...AMD_ALG,
      spec: { ...AMD_ALG.spec, gpu: { vendor: 'amd', product: ['AMD_Instinct_MI300X_OAM'] } },
    };
    const ok: BenchmarkOutcome = { status: 'Succeeded', medianSeconds: 5000, message: 'measured' };
    const plan = planDesiredState({
      cluster: 'prod',
      repo: { policy, errors: [], algorithms: [mi300x] },
      snapshot: snapshotOf(nodes({ 'amd-mi300x-01': 'test', 'nv-a100-01': 'test' })),
      base: new Map(),
      benchmarks: new Map([['llm-amd', ok]]),
      reading: noData,
      recent: [],
      templates,
      now: NOW,
    });
    const deployment = plan.changeSets
      .flatMap((c) => c.files)
      .find((f) => f.path === 'clusters/prod/algorithms/llm-amd/deployment.yaml')!;
    const pod = (parse(deployment.content!) as Obj).spec.template.spec;
    expect(
      pod.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    ).toEqual([
      {
        matchExpressions: [
          { key: 'amd.com/gpu.product-name', operator: 'In', values: ['AMD_Instinct_MI300X_OAM'] },
        ],
      },
    ]);
    const placement = plan.output.placements.find((x) => x.algorithm === 'llm-amd')!;
    const text = placementSection({ placement, runs: [], longTaskThresholdSeconds: 3600 }, 10);
    expect(text).toContain('labelled `amd.com/gpu.product-name` `AMD_Instinct_MI300X_OAM`');
    expect(text).not.toContain('nvidia.com');
  });

  /** A full long-task node of `algorithm` at 95 %, unused nodes of both vendors (but `drop`). */
  function scaleUp(
    algorithm: ResolvedAlgorithm,
    full: string,
    resource: string,
    page: 'amd' | 'nvidia',
    drop: string[] = [],
  ) {
    const pods = replicas(algorithm.name, full, resource, 8);
    const pools: Record<string, string> = {
      'amd-mi300x-01': 'test',
      'amd-mi300x-02': 'unused',
      'amd-mi300x-03': 'unused',
      'nv-a100-01': 'unused',
      'nv-a100-02': 'unused',
      [full]: 'long-task',
    };
    return decideScaling({
      algorithms: [{ algorithm, pool: 'long-task', replicas: 8 }],
      snapshot: snapshotOf(nodes(pools, drop), pods),
      reading: reading(pods, 95, page),
      recent: [],
      policy,
      now: NOW,
    }).decisions[0]!;
  }

  it.each<[string, ResolvedAlgorithm, string, string, 'amd' | 'nvidia', string[], string[]]>([
    ['AmdScaleUpMovesAnUnusedAmdNode', AMD_ALG, 'amd-mi300x-02', 'amd.com/gpu', 'amd', [], ['amd-mi300x-03']],
    [
      'AmdScaleUpNeverMovesAnNvidiaNode',
      AMD_ALG,
      'amd-mi300x-02',
      'amd.com/gpu',
      'amd',
      ['amd-mi300x-03'],
      [],
    ],
    [
      'NvidiaScaleUpMovesAnUnusedNvidiaNode',
      NV_ALG,
      'nv-a100-02',
      'nvidia.com/gpu',
      'nvidia',
      [],
      ['nv-a100-01'],
    ],
    [
      'NvidiaScaleUpNeverMovesAnAmdNode',
      NV_ALG,
      'nv-a100-02',
      'nvidia.com/gpu',
      'nvidia',
      ['nv-a100-01'],
      [],
    ],
  ])('%s', (_name, algorithm, full, resource, page, drop, moved) => {
    const d = scaleUp(algorithm, full, resource, page, drop);
    expect(d.utilization).toBe(95);
    if (moved.length > 0) expect(d).toMatchObject({ action: 'relabel', nodes: moved });
    else expect(d).toMatchObject({ action: 'hold', reason: 'NoCapacity' });
  });
});
