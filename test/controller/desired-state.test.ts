import { parse } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatPlanTable } from '../../src/cli/plan-build.js';
import type { PodInfo, Snapshot } from '../../src/cluster/types.js';
import { planDesiredState, type DesiredStateInput } from '../../src/controller/desired-state.js';
import type { GpuSeries, UtilizationReading } from '../../src/metrics/types.js';
import type { BenchmarkOutcome } from '../../src/placement/types.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { policy, now, snapshot, templates, noData } from '../support/cluster-mixed.js';

function alg(
  name: string,
  o: { gpus?: number; pool?: 'auto' | 'long-task' | 'short-task' } = {},
): ResolvedAlgorithm {
  return {
    name,
    namespace: 'algorithms',
    spec: { image: `registry.example.com/ml/${name}:1.0.0`, resources: { gpus: o.gpus ?? 1 } },
    scaling: { minReplicas: 1, maxReplicas: 8, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: o.pool ?? 'auto',
    source: { file: `algorithms/${name}.yaml`, line: 1 },
  };
}

const ok = (seconds: number): BenchmarkOutcome => ({
  status: 'Succeeded',
  medianSeconds: seconds,
  message: 'measured',
});

function input(base: Map<string, string>, over: Partial<DesiredStateInput> = {}): DesiredStateInput {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [] },
    snapshot,
    base,
    benchmarks: new Map(),
    reading: noData,
    recent: [],
    templates,
    now,
    ...over,
  };
}

/** The base branch after every change set of `plan` merged. */
function merged(base: Map<string, string>, plan: ReturnType<typeof planDesiredState>): Map<string, string> {
  const out = new Map(base);
  for (const cs of plan.changeSets) {
    for (const f of cs.files) {
      if (f.content === null) out.delete(f.path);
      else out.set(f.path, f.content);
    }
  }
  return out;
}

describe('planDesiredState: pools', () => {
  // Computed in each test (beforeEach), not while collecting: mutation testing then sees which
  // test covers the code it runs.
  let first: ReturnType<typeof planDesiredState>;
  beforeEach(() => {
    first = planDesiredState(input(new Map()));
  });

  it('fills the contract: one pools entry per node, node files to create (no kustomization), one pools change set', () => {
    expect(first.output.cluster).toBe('prod');
    expect(first.output.pools).toHaveLength(13);
    expect(first.output.files).toEqual([
      { path: 'clusters/prod/nodes/gpu-a100-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-a100-02.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-h100-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-t4-01.yaml', change: 'create' },
      { path: 'clusters/prod/nodes/gpu-t4-03.yaml', change: 'create' },
    ]);
    expect(first.changeSets.map((c) => c.branch)).toEqual(['gpuops/prod/pools']);
  });

  it('the pools change set writes one Namespace file per algorithm namespace, before any benchmark or placement', () => {
    const algorithms = [alg('a'), alg('b'), { ...alg('c'), namespace: 'vision' }];
    const plan = planDesiredState(input(new Map(), { repo: { policy, errors: [], algorithms } }));
    expect(plan.changeSets.map((c) => c.branch)).toEqual(['gpuops/prod/pools']);
    const ns = plan.changeSets[0]!.files.filter((f) => f.path.includes('/namespaces/'));
    expect(ns.map((f) => f.path)).toEqual([
      'clusters/prod/namespaces/algorithms.yaml',
      'clusters/prod/namespaces/vision.yaml',
    ]);
    const [namespace, binding] = ns[1]!.content!.split('\n---\n').map((d) => parse(d));
    expect(namespace).toMatchObject({ kind: 'Namespace', metadata: { name: 'vision' } });
    expect(namespace.metadata.annotations['argocd.argoproj.io/sync-wave']).toBe('-2');
    expect(binding).toMatchObject({
      kind: 'RoleBinding',
      metadata: { namespace: 'vision' },
      roleRef: { kind: 'ClusterRole', name: 'gpuops-benchmark' },
    });
    // The algorithm leaves: its namespace file stays (deleting a Namespace deletes all in it).
    const after = planDesiredState(
      input(merged(new Map(), plan), { repo: { policy, errors: [], algorithms: [alg('a')] } }),
    );
    expect(after.output.files).toEqual([]);
  });

  it('migrates the old layout once: the pools change set deletes every kustomization file, no placement touches them', () => {
    const resnet = alg('resnet-infer');
    const repo = { policy, errors: [], algorithms: [resnet] };
    const benchmarks = new Map([['resnet-infer', ok(42)]]);
    const current = merged(new Map(), planDesiredState(input(new Map(), { repo, benchmarks })));
    const old = new Map(current);
    const legacy = [
      'clusters/prod/kustomization.yaml',
      'clusters/prod/nodes/kustomization.yaml',
      'clusters/prod/algorithms/resnet-infer/kustomization.yaml',
    ];
    for (const p of legacy) old.set(p, 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n');
    old.set('clusters/other/kustomization.yaml', 'not this cluster\n');
    const plan = planDesiredState(input(old, { repo, benchmarks }));
    expect(plan.changeSets.map((c) => c.branch)).toEqual(['gpuops/prod/pools']);
    expect(plan.changeSets[0]!.files.filter((f) => f.content === null).map((f) => f.path)).toEqual(
      [...legacy].sort(),
    );
    expect(planDesiredState(input(merged(old, plan), { repo, benchmarks })).changeSets).toEqual([]);
  });

  it('a second pass over its own merged output changes nothing', () => {
    const again = planDesiredState(input(merged(new Map(), first)));
    expect(again.output.files).toEqual([]);
    expect(again.changeSets).toEqual([]);
  });

  it('takes pools from Git, not the cluster: a relabel merged but not applied yet is not proposed back', () => {
    const base = merged(new Map(), first);
    const t4 = parse(base.get('clusters/prod/nodes/gpu-t4-01.yaml')!);
    expect(t4.metadata.labels['gpuops.dev/pool']).toBe('unused');
    t4.metadata.labels['gpuops.dev/pool'] = 'long-task';
    base.set('clusters/prod/nodes/gpu-t4-01.yaml', `# edited\n${JSON.stringify(t4)}\n`);
    const plan = planDesiredState(input(base));
    expect(plan.output.pools.find((p) => p.node === 'gpu-t4-01')).toMatchObject({
      from: 'long-task',
      to: 'long-task',
    });
  });

  it('updates a hand-edited file and deletes the file of a node no longer in the cluster', () => {
    const base = merged(new Map(), first);
    base.set('clusters/prod/nodes/gpu-h100-01.yaml', 'edited by hand\n');
    base.set('clusters/prod/nodes/gpu-gone-01.yaml', 'old\n');
    base.set('clusters/other/nodes/x.yaml', 'not ours\n');
    expect(planDesiredState(input(base)).output.files).toEqual([
      { path: 'clusters/prod/nodes/gpu-gone-01.yaml', change: 'delete' },
      { path: 'clusters/prod/nodes/gpu-h100-01.yaml', change: 'update' },
    ]);
  });
});

describe('planDesiredState: placement', () => {
  const algorithms = [
    alg('resnet-infer'),
    alg('bert-train'),
    alg('new-one'),
    alg('pinned', { pool: 'long-task' }),
  ];
  const benchmarks = new Map([
    ['resnet-infer', ok(42)],
    ['bert-train', ok(900)],
  ]);
  let plan: ReturnType<typeof planDesiredState>;
  beforeEach(() => {
    plan = planDesiredState(input(new Map(), { repo: { policy, errors: [], algorithms }, benchmarks }));
  });

  it('places by median run time against the threshold, and says why for every algorithm', () => {
    expect(plan.output.placements.map((p) => [p.algorithm, p.pool, p.reason])).toEqual([
      ['resnet-infer', 'short-task', 'BelowThreshold'],
      ['bert-train', 'long-task', 'AboveThreshold'],
      ['new-one', null, 'BenchmarkPending'],
      ['pinned', 'long-task', 'Pinned'],
    ]);
  });

  it('one placement change set per placed algorithm, its Deployment pinned to the pool, touching only its own folder', () => {
    const cs = plan.changeSets.filter((c) => c.kind === 'placement');
    expect(cs.map((c) => c.branch)).toEqual([
      'gpuops/prod/placement/bert-train',
      'gpuops/prod/placement/pinned',
      'gpuops/prod/placement/resnet-infer',
    ]);
    const resnet = cs.find((c) => c.subject === 'resnet-infer')!;
    const dep = parse(resnet.files.find((f) => f.path.endsWith('resnet-infer/deployment.yaml'))!.content!);
    expect(dep.spec.template.spec.nodeSelector).toEqual({ 'gpuops.dev/pool': 'short-task' });
    expect(dep.spec.replicas).toBe(1);
    for (const c of cs)
      expect(c.files.every((f) => f.path.startsWith(`clusters/prod/algorithms/${c.subject}/`))).toBe(true);
    expect(resnet.body).toContain('42');
  });

  it('no two change sets share a file, and once all are merged nothing changes', () => {
    const owners = new Map<string, string>();
    for (const c of plan.changeSets)
      for (const f of c.files) {
        expect(owners.get(f.path), f.path).toBeUndefined();
        owners.set(f.path, c.branch);
      }
    const settled = planDesiredState(
      input(merged(new Map(), plan), { repo: { policy, errors: [], algorithms }, benchmarks }),
    );
    expect(settled.changeSets).toEqual([]);
  });

  it('keeps the replica count Git holds when re-rendering a placement, and deletes the files of a removed algorithm', () => {
    const base = merged(new Map(), plan);
    const depPath = 'clusters/prod/algorithms/resnet-infer/deployment.yaml';
    base.set(depPath, base.get(depPath)!.replace('replicas: 1', 'replicas: 3'));
    const next = planDesiredState(
      input(base, {
        repo: { policy, errors: [], algorithms: algorithms.filter((a) => a.name !== 'bert-train') },
        benchmarks,
      }),
    );
    const placement = next.changeSets.filter((c) => c.kind === 'placement');
    expect(placement.map((c) => c.subject)).toEqual(['bert-train']);
    expect(placement[0]!.files.filter((f) => f.content === null).map((f) => f.path)).toEqual([
      'clusters/prod/algorithms/bert-train/deployment.yaml',
    ]);
    expect(next.output.files).toContainEqual({
      path: depPath.replace('resnet-infer', 'bert-train'),
      change: 'delete',
    });
    expect(next.output.files.some((f) => f.path === depPath)).toBe(false);
  });
});

describe('planDesiredState: scaling', () => {
  const resnet = alg('resnet-infer');
  const repo = { policy, errors: [], algorithms: [resnet] };
  const benchmarks = new Map([['resnet-infer', ok(42)]]);

  /** Git after the pools and placement PRs merged; gpu-t4-01 (4 GPUs) moved to short-task by hand. */
  function gitWithDeployment(replicas: number, r: DesiredStateInput['repo'] = repo): Map<string, string> {
    const poolsPlan = planDesiredState(input(new Map()));
    const base = merged(new Map(), poolsPlan);
    const t4 = base
      .get('clusters/prod/nodes/gpu-t4-01.yaml')!
      .replace('gpuops.dev/pool: unused', 'gpuops.dev/pool: short-task');
    base.set('clusters/prod/nodes/gpu-t4-01.yaml', t4);
    const placed = merged(base, planDesiredState(input(base, { repo: r, benchmarks })));
    const depPath = 'clusters/prod/algorithms/resnet-infer/deployment.yaml';
    placed.set(depPath, placed.get(depPath)!.replace('replicas: 1', `replicas: ${replicas}`));
    return placed;
  }

  function withPods(count: number, node = 'gpu-t4-01'): Snapshot {
    const pods: PodInfo[] = Array.from({ length: count }, (_, i) => ({
      namespace: 'algorithms',
      name: `resnet-infer-abc-${i}`,
      uid: `uid-${i}`,
      labels: { 'gpuops.dev/algorithm': 'resnet-infer', 'app.kubernetes.io/managed-by': 'gpuops' },
      nodeName: node,
      phase: 'Running',
      ready: true,
      terminating: false,
      gpuRequest: 1,
      managed: true,
      algorithm: 'resnet-infer',
      owner: { kind: 'ReplicaSet', name: 'resnet-infer-abc' },
      unschedulable: false,
      createdAt: '2026-12-01T09:00:00Z',
      requests: { cpuMillis: 0, memoryBytes: 0 },
      startedAt: null,
    }));
    const nodes = snapshot.nodes.map((n) =>
      n.name === node ? { ...n, gpuRequested: n.gpuRequested + count, managedPods: count } : n,
    );
    return { ...snapshot, nodes, pods: [...snapshot.pods, ...pods] };
  }

  function reading(utilizations: number[]): UtilizationReading {
    const series: GpuSeries[] = utilizations.map((u, i) => ({
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      labels: {
        gpu: String(i),
        UUID: `GPU-${i}`,
        node: 'gpu-t4-01',
        Hostname: 'dcgm-exporter-x',
        namespace: 'algorithms',
        pod: `resnet-infer-abc-${i}`,
      },
      value: u,
      timestamp: now.getTime() - 5_000,
    }));
    return { ok: true, series, errors: [] };
  }

  it('above max with free GPUs in the pool: a scale change set with replicas + 1 and the evidence', () => {
    const plan = planDesiredState(
      input(gitWithDeployment(2), { repo, benchmarks, snapshot: withPods(2), reading: reading([95, 91]) }),
    );
    const d = plan.output.scaling.find((s) => s.algorithm === 'resnet-infer')!;
    expect(d).toMatchObject({
      action: 'scale-up',
      replicas: { from: 2, to: 3 },
      utilization: 93,
      reason: 'AboveMax',
    });
    const cs = plan.changeSets.find((c) => c.kind === 'scale')!;
    expect(cs.branch).toBe('gpuops/prod/scale/resnet-infer');
    expect(cs.files.map((f) => f.path)).toEqual(['clusters/prod/algorithms/resnet-infer/deployment.yaml']);
    expect(parse(cs.files[0]!.content!).spec.replicas).toBe(3);
    expect(cs.body).toContain('resnet-infer-abc-0');
  });

  it('above max with the pool full: moves an unused node into the pool in the same change set', () => {
    const plan = planDesiredState(
      input(gitWithDeployment(4), {
        repo,
        benchmarks,
        snapshot: withPods(4),
        reading: reading([97, 96, 95, 99]),
      }),
    );
    const d = plan.output.scaling[0]!;
    expect(d.action).toBe('relabel');
    expect(d.nodes.length).toBeGreaterThan(0);
    const cs = plan.changeSets.find((c) => c.kind === 'scale')!;
    for (const node of d.nodes) {
      const file = cs.files.find((f) => f.path === `clusters/prod/nodes/${node}.yaml`)!;
      expect(parse(file.content!).metadata.labels['gpuops.dev/pool']).toBe('short-task');
    }
  });

  it('below min: scale down one step; no data: hold and no change set', () => {
    const down = planDesiredState(
      input(gitWithDeployment(3), { repo, benchmarks, snapshot: withPods(3), reading: reading([5, 8, 6]) }),
    );
    const policyNoWait = structuredClone(policy);
    policyNoWait.spec.scaling.scaleDown.stabilizationWindowSeconds = 0;
    const down2 = planDesiredState(
      input(gitWithDeployment(3), {
        repo: { ...repo, policy: policyNoWait },
        benchmarks,
        snapshot: withPods(3),
        reading: reading([5, 8, 6]),
      }),
    );
    expect(down.output.scaling[0]!.reason).toBe('StabilizationWindow');
    expect(down2.output.scaling[0]).toMatchObject({ action: 'scale-down', replicas: { from: 3, to: 2 } });
    const none = planDesiredState(input(gitWithDeployment(3), { repo, benchmarks, snapshot: withPods(3) }));
    expect(none.output.scaling[0]).toMatchObject({ action: 'hold', reason: 'NoData', utilization: null });
    expect(none.changeSets).toEqual([]);
  });

  it('an algorithm whose placement change is open is still scaled, in the pool Git pins it to', () => {
    const base = gitWithDeployment(2);
    const moved = new Map([['resnet-infer', ok(5000)]]); // now long-task: placement PR pending
    const plan = planDesiredState(
      input(base, { repo, benchmarks: moved, snapshot: withPods(2), reading: reading([95, 95]) }),
    );
    expect(plan.output.scaling[0]).toMatchObject({
      action: 'scale-up',
      reason: 'AboveMax',
      replicas: { from: 2, to: 3 },
    });
    expect(plan.output.scaling[0]!.message).toContain('short-task');
    expect(plan.changeSets.map((c) => c.kind)).toEqual(['placement', 'scale']);
    const placed = plan.changeSets[0]!.files.find((f) => f.path.endsWith('/deployment.yaml'))!;
    expect(parse(placed.content!).spec.replicas).toBe(2);
  });

  it('engine hpa: gpuops never changes replicas; it moves a node only when the HPA sits at its maximum and the pool is full', () => {
    const hpaPolicy = structuredClone(policy);
    hpaPolicy.spec.scaling.engine = 'hpa';
    const hpaRepo = { ...repo, policy: hpaPolicy };
    const git = gitWithDeployment(4, hpaRepo);
    const dep = parse(git.get('clusters/prod/algorithms/resnet-infer/deployment.yaml')!);
    expect(dep.spec.replicas).toBeUndefined(); // one owner of replicas: the HPA
    expect(git.has('clusters/prod/algorithms/resnet-infer/hpa.yaml')).toBe(true);
    const hot = reading([97, 96, 95, 99]);
    const below = planDesiredState(
      input(git, {
        repo: hpaRepo,
        benchmarks,
        snapshot: withPods(4),
        reading: hot,
        hpa: new Map([['resnet-infer', { currentReplicas: 4, desiredReplicas: 5, maxReplicas: 8 }]]),
      }),
    );
    expect(below.output.scaling[0]).toMatchObject({ action: 'hold', reason: 'HPAOwnsReplicas' });
    expect(below.changeSets.filter((c) => c.kind === 'scale')).toEqual([]);
    const atMax = planDesiredState(
      input(git, {
        repo: hpaRepo,
        benchmarks,
        snapshot: withPods(4),
        reading: hot,
        hpa: new Map([['resnet-infer', { currentReplicas: 4, desiredReplicas: 4, maxReplicas: 4 }]]),
      }),
    );
    const d = atMax.output.scaling[0]!;
    expect(d.action).toBe('relabel');
    const scale = atMax.changeSets.find((c) => c.kind === 'scale')!;
    const rendered = scale.files.find((f) => f.path.endsWith('deployment.yaml'));
    if (rendered) expect(parse(rendered.content!).spec.replicas).toBeUndefined();
    expect(scale.files.some((f) => f.path === `clusters/prod/nodes/${d.nodes[0]}.yaml`)).toBe(true);
  });

  it('the human table shows pools, placements and scaling', () => {
    const plan = planDesiredState(
      input(gitWithDeployment(2), { repo, benchmarks, snapshot: withPods(2), reading: reading([95, 91]) }),
    );
    const text = formatPlanTable(plan.output, withPods(2));
    expect(text).toMatch(/gpu-a100-01\s+NVIDIA-A100-SXM4-80GB\s+8\/8\s+test\s+KeepPool/);
    expect(text).toMatch(/resnet-infer\s+short-task\s+42\.0 s\s+any\s+BelowThreshold/);
    expect(text).toMatch(/resnet-infer\s+2 → 3\s+93\.0 %\s+scale-up\s+AboveMax/);
  });
});
