/**
 * Issue 11 §2: scaling is never frozen behind a pending placement change. The Algorithm file moves
 * to image :2.0.0 (its placement pull request open, unmerged) while its two pods run at 92 % and
 * 90 % with room in the pool: the pass scales 2 → 3 with a change that edits only
 * `spec.replicas`, and real `git merge` of both branches, in either order, leaves main with image
 * :2.0.0 and 3 replicas. Also §5 (replicas a person set outside min..max) through the whole plan.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import type { PodInfo, Snapshot } from '../../src/cluster/types.js';
import { planDesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import type { ChangeSet } from '../../src/change-sets/types.js';
import type { GpuSeries, UtilizationReading } from '../../src/metrics/types.js';
import type { BenchmarkOutcome } from '../../src/placement/types.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { git } from '../gitops/helpers.js';
import { policy, now, snapshot, templates } from '../support/cluster-mixed.js';

const DEPLOYMENT = 'clusters/prod/algorithms/resnet-infer/deployment.yaml';
const benchmarks = new Map<string, BenchmarkOutcome>([
  ['resnet-infer', { status: 'Succeeded', medianSeconds: 42, message: 'measured' }],
]);

function alg(image: string, o: { minReplicas?: number; maxReplicas?: number } = {}): ResolvedAlgorithm {
  return {
    name: 'resnet-infer',
    namespace: 'algorithms',
    spec: { image, resources: { gpus: 1 } },
    scaling: {
      minReplicas: o.minReplicas ?? 1,
      maxReplicas: o.maxReplicas ?? 8,
      utilization: { min: 30, max: 80 },
    },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: 'auto',
    source: { file: 'algorithms/resnet-infer.yaml', line: 1 },
  };
}

function input(base: Map<string, string>, over: Partial<DesiredStateInput> = {}): DesiredStateInput {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [alg('registry.example.com/ml/resnet:1.0.0')] },
    snapshot,
    base,
    benchmarks,
    reading: { ok: false, reason: 'Empty', message: 'no source' },
    recent: [],
    templates,
    now,
    ...over,
  };
}

function apply(base: Map<string, string>, sets: readonly ChangeSet[]): Map<string, string> {
  const out = new Map(base);
  for (const cs of sets)
    for (const f of cs.files) {
      if (f.content === null) out.delete(f.path);
      else out.set(f.path, f.content);
    }
  return out;
}

/** Main after pools and placement merged, gpu-t4-01 (4 GPUs) in short-task, the Deployment at `replicas`. */
function gitAt(replicas: number): Map<string, string> {
  let base = apply(new Map(), planDesiredState(input(new Map())).changeSets);
  base.set(
    'clusters/prod/nodes/gpu-t4-01.yaml',
    base.get('clusters/prod/nodes/gpu-t4-01.yaml')!.replace('pool: unused', 'pool: short-task'),
  );
  base = apply(base, planDesiredState(input(base)).changeSets);
  base.set(DEPLOYMENT, base.get(DEPLOYMENT)!.replace('replicas: 1', `replicas: ${replicas}`));
  return base;
}

function withPods(count: number): Snapshot {
  const pods: PodInfo[] = Array.from({ length: count }, (_, i) => ({
    namespace: 'algorithms',
    name: `resnet-infer-abc-${i}`,
    uid: `uid-${i}`,
    labels: { 'gpuops.dev/algorithm': 'resnet-infer', 'app.kubernetes.io/managed-by': 'gpuops' },
    nodeName: 'gpu-t4-01',
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
    n.name === 'gpu-t4-01' ? { ...n, gpuRequested: n.gpuRequested + count, managedPods: count } : n,
  );
  return { ...snapshot, nodes, pods: [...snapshot.pods, ...pods] };
}

function reading(utilizations: number[]): UtilizationReading {
  const series: GpuSeries[] = utilizations.map((u, i) => ({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    labels: {
      gpu: String(i),
      UUID: `GPU-${i}`,
      Hostname: 'gpu-t4-01',
      namespace: 'algorithms',
      pod: `resnet-infer-abc-${i}`,
    },
    value: u,
    timestamp: now.getTime() - 5_000,
  }));
  return { ok: true, series, errors: [] };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A repository with `base` on main and one branch per change set; merges `order` into main. */
function mergeInOrder(base: Map<string, string>, sets: ChangeSet[], order: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gpuops-scale-merge-'));
  dirs.push(dir);
  const write = (files: Iterable<[string, string | null]>) => {
    for (const [p, c] of files) {
      if (c === null) rmSync(join(dir, p), { force: true });
      else {
        mkdirSync(dirname(join(dir, p)), { recursive: true });
        writeFileSync(join(dir, p), c);
      }
    }
  };
  git(dir, 'init', '-q', '-b', 'main');
  write(base);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  for (const cs of sets) {
    git(dir, 'checkout', '-q', '-b', cs.branch, 'main');
    write(cs.files.map((f) => [f.path, f.content]));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', cs.title);
  }
  git(dir, 'checkout', '-q', 'main');
  for (const branch of order) git(dir, 'merge', '-q', '--no-ff', '-m', `Merge ${branch}`, branch);
  return readFileSync(join(dir, DEPLOYMENT), 'utf8');
}

describe('scaling beside a pending placement pull request (real git)', () => {
  const base = gitAt(2);
  const v2 = alg('registry.example.com/ml/resnet:2.0.0');
  const plan = planDesiredState(
    input(base, {
      repo: { policy, errors: [], algorithms: [v2] },
      snapshot: withPods(2),
      reading: reading([92, 90]),
    }),
  );
  const placement = plan.changeSets.find((c) => c.kind === 'placement')!;
  const scale = plan.changeSets.find((c) => c.kind === 'scale')!;

  it('decides scale-up 2 → 3 while the placement PR for :2.0.0 is open', () => {
    expect(plan.output.scaling).toEqual([
      expect.objectContaining({
        algorithm: 'resnet-infer',
        action: 'scale-up',
        reason: 'AboveMax',
        replicas: { from: 2, to: 3 },
        utilization: 91,
      }),
    ]);
    expect(plan.changeSets.map((c) => c.branch)).toEqual([
      'gpuops/prod/placement/resnet-infer',
      'gpuops/prod/scale/resnet-infer',
    ]);
  });

  it('the placement PR carries the replicas base has; the scale PR changes only the replicas line of base', () => {
    const placed = parse(placement.files.find((f) => f.path === DEPLOYMENT)!.content!);
    expect(placed.spec.replicas).toBe(2);
    expect(placed.spec.template.spec.containers[0].image).toBe('registry.example.com/ml/resnet:2.0.0');
    const before = base.get(DEPLOYMENT)!.split('\n');
    const after = scale.files.find((f) => f.path === DEPLOYMENT)!.content!.split('\n');
    expect(after).toHaveLength(before.length);
    const changed = after.map((l, i) => [before[i], l]).filter(([a, b]) => a !== b);
    expect(changed).toEqual([['  replicas: 2', '  replicas: 3']]);
  });

  it.each([
    ['placement first', ['gpuops/prod/placement/resnet-infer', 'gpuops/prod/scale/resnet-infer']],
    ['scale first', ['gpuops/prod/scale/resnet-infer', 'gpuops/prod/placement/resnet-infer']],
  ])('%s: both merge cleanly and main holds :2.0.0 with 3 replicas', (_name, order) => {
    const merged = parse(mergeInOrder(base, [placement, scale], order));
    expect(merged.spec.replicas).toBe(3);
    expect(merged.spec.template.spec.containers[0].image).toBe('registry.example.com/ml/resnet:2.0.0');
  });

  it('after both merge, the next pass has nothing left to write', () => {
    const after = apply(apply(base, [placement]), [scale]);
    after.set(DEPLOYMENT, mergeInOrder(base, [placement, scale], [placement.branch, scale.branch]));
    const next = planDesiredState(
      input(after, {
        repo: { policy, errors: [], algorithms: [v2] },
        snapshot: withPods(3),
        reading: reading([61, 60, 62]),
      }),
    );
    expect(next.output.scaling[0]).toMatchObject({ action: 'hold', reason: 'WithinRange' });
    expect(next.changeSets).toEqual([]);
  });

  it('keeps comments and key order of a Deployment written by hand: only the replicas value changes', () => {
    const hand = [
      '# written by the team before gpuops',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata: {name: resnet-infer, namespace: algorithms}',
      'spec:',
      '  # two replicas for the launch',
      '  replicas: 2   # keep',
      '  selector: {matchLabels: {app: resnet}}',
      '  template:',
      '    metadata: {labels: {app: resnet}}',
      '    spec:',
      '      nodeSelector: {gpuops.dev/pool: short-task}',
      '      containers: [{name: resnet, image: "registry.example.com/ml/resnet:0.9"}]',
      '',
    ].join('\n');
    const hb = new Map(base);
    hb.set(DEPLOYMENT, hand);
    const p = planDesiredState(input(hb, { snapshot: withPods(2), reading: reading([92, 90]) }));
    expect(p.output.scaling[0]).toMatchObject({ action: 'scale-up', replicas: { from: 2, to: 3 } });
    const file = p.changeSets.find((c) => c.kind === 'scale')!.files.find((f) => f.path === DEPLOYMENT)!;
    expect(file.content).toBe(hand.replace('replicas: 2   # keep', 'replicas: 3   # keep'));
  });
});

describe('replicas a person set outside minReplicas..maxReplicas (§5)', () => {
  it('replicas 0 with minReplicas 1: hold ScaledToZero, no metrics needed, nothing written', () => {
    const p = planDesiredState(input(gitAt(0)));
    expect(p.output.scaling).toEqual([
      expect.objectContaining({ action: 'hold', reason: 'ScaledToZero', replicas: { from: 0, to: 0 } }),
    ]);
    expect(p.output.scaling[0]!.message).toContain('paused');
    expect(p.changeSets).toEqual([]);
  });

  it('replicas 1 with minReplicas 1 and no data: the neighbour of 0 is NoData, not ScaledToZero', () => {
    const p = planDesiredState(input(gitAt(1), { snapshot: withPods(1) }));
    expect(p.output.scaling[0]).toMatchObject({ action: 'hold', reason: 'NoData' });
  });

  it('replicas 1 with minReplicas 2: scale-up to 2, BelowMinReplicas, without metrics', () => {
    const p = planDesiredState(
      input(gitAt(1), {
        repo: {
          policy,
          errors: [],
          algorithms: [alg('registry.example.com/ml/resnet:1.0.0', { minReplicas: 2 })],
        },
        snapshot: withPods(1),
      }),
    );
    expect(p.output.scaling[0]).toMatchObject({
      action: 'scale-up',
      reason: 'BelowMinReplicas',
      replicas: { from: 1, to: 2 },
    });
    const file = p.changeSets.find((c) => c.kind === 'scale')!.files[0]!;
    expect(parse(file.content!).spec.replicas).toBe(2);
  });

  it('replicas 10 with maxReplicas 8: scale-down to 8, AboveMaxReplicas, even at 95 %', () => {
    const p = planDesiredState(input(gitAt(10), { snapshot: withPods(3), reading: reading([95, 95, 95]) }));
    expect(p.output.scaling[0]).toMatchObject({
      action: 'scale-down',
      reason: 'AboveMaxReplicas',
      replicas: { from: 10, to: 8 },
    });
  });

  it('an algorithm placed but with no Deployment in Git yet: hold PlacementPending, never AboveMax', () => {
    const first = planDesiredState(input(new Map())).changeSets;
    const pools = apply(
      new Map(),
      first.filter((c) => c.kind === 'pools'),
    );
    const p = planDesiredState(input(pools, { snapshot: withPods(2), reading: reading([95, 95]) }));
    expect(p.output.scaling).toEqual([
      expect.objectContaining({
        action: 'hold',
        reason: 'PlacementPending',
        replicas: { from: 0, to: 0 },
        utilization: null,
      }),
    ]);
    expect(p.changeSets.map((c) => c.kind)).toEqual(['placement']);
  });
});
