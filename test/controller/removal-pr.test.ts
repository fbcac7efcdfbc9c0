/**
 * A pull request that deletes a running service says so: after `git rm algorithms/bert.yaml`
 * (its Deployment runs 3 replicas behind a Service), the placement pull request is titled as a
 * removal and its body's first line names every live object that goes, with the Deployment's
 * Running replicas from the snapshot. `placement.onDeletedSpec: keep-and-report` keeps them and
 * reports them instead. The whole plan (`planDesiredState`) on the cluster-mixed world.
 */
import { describe, expect, it } from 'vitest';
import { formatPlanTable } from '../../src/cli/plan-build.js';
import type { PodInfo, Snapshot } from '../../src/cluster/types.js';
import { planDesiredState, type DesiredStateInput } from '../../src/controller/desired-state.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { policy, now, snapshot, templates, noData } from '../support/cluster-mixed.js';

const bert: ResolvedAlgorithm = {
  name: 'bert',
  namespace: 'algorithms',
  spec: {
    image: 'registry.example.com/ml/bert:1.0.0',
    resources: { gpus: 1 },
    template: { spec: { containers: [{ ports: [{ name: 'http', containerPort: 8080 }] }] } },
  },
  scaling: { minReplicas: 1, maxReplicas: 8, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
  placement: 'short-task',
  source: { file: 'algorithms/bert.yaml', line: 1 },
};

/** A pod of bert's ReplicaSet `bert-7c9f8d6b5` (or of `rs`). */
function pod(name: string, over: Partial<PodInfo> = {}): PodInfo {
  return {
    namespace: 'algorithms',
    name,
    uid: `uid-${name}`,
    labels: {
      'gpuops.dev/algorithm': 'bert',
      'app.kubernetes.io/managed-by': 'gpuops',
      'pod-template-hash': '7c9f8d6b5',
    },
    nodeName: 'gpu-a100-01',
    phase: 'Running',
    ready: true,
    terminating: false,
    gpuRequest: 1,
    managed: true,
    algorithm: 'bert',
    owner: { kind: 'ReplicaSet', name: 'bert-7c9f8d6b5' },
    unschedulable: false,
    createdAt: '2026-12-01T09:00:00Z',
    requests: { cpuMillis: 0, memoryBytes: 0 },
    startedAt: '2026-12-01T09:00:05Z',
    ...over,
  };
}

/** Three Running replicas; a Pending one and a terminating one do not run. */
const running: Snapshot = {
  ...snapshot,
  pods: [
    ...snapshot.pods,
    pod('bert-7c9f8d6b5-a'),
    pod('bert-7c9f8d6b5-b'),
    pod('bert-7c9f8d6b5-c'),
    pod('bert-7c9f8d6b5-d', { phase: 'Pending', ready: false, nodeName: null, startedAt: null }),
    pod('bert-7c9f8d6b5-e', { terminating: true }),
  ],
};

function input(base: Map<string, string>, over: Partial<DesiredStateInput> = {}): DesiredStateInput {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [] },
    snapshot: running,
    base,
    benchmarks: new Map(),
    reading: noData,
    recent: [],
    templates,
    now,
    ...over,
  };
}

/** The base branch once bert's placement pull request merged: its Deployment and Service. */
function baseWithBert(): Map<string, string> {
  const plan = planDesiredState(input(new Map(), { repo: { policy, errors: [], algorithms: [bert] } }));
  const base = new Map<string, string>();
  for (const cs of plan.changeSets)
    for (const f of cs.files) if (f.content !== null) base.set(f.path, f.content);
  expect([...base.keys()].filter((p) => p.includes('/algorithms/bert/'))).toEqual([
    'clusters/prod/algorithms/bert/deployment.yaml',
    'clusters/prod/algorithms/bert/service.yaml',
  ]);
  return base;
}

const withPolicy = (over: Partial<Policy['spec']['placement']>): Policy => ({
  ...policy,
  spec: { ...policy.spec, placement: { ...policy.spec.placement, ...over } },
});

describe('a deleted spec whose Deployment runs (placement.onDeletedSpec: propose-removal, the default)', () => {
  it('titles the pull request as a removal, naming each live object and the running replicas', () => {
    const plan = planDesiredState(input(baseWithBert()));
    const cs = plan.changeSets.find((c) => c.branch === 'gpuops/prod/placement/bert')!;
    expect(cs.title).toBe(
      'gpuops(prod): remove Deployment algorithms/bert (3 running replicas) and Service algorithms/bert',
    );
    expect(cs.body.split('\n')[0]).toBe(
      '**Merging this pull request deletes 2 live objects**: Deployment algorithms/bert (3 running replicas), Service algorithms/bert. An applier that prunes (the shipped Argo CD Application and Flux Kustomization do) deletes them when it syncs the merge.',
    );
    expect(cs.body).not.toContain('places `bert`');
    expect(cs.body).toContain('`bert` is no longer in `algorithms/`');
    expect(cs.files).toEqual([
      { path: 'clusters/prod/algorithms/bert/deployment.yaml', content: null },
      { path: 'clusters/prod/algorithms/bert/service.yaml', content: null },
    ]);
    expect(plan.output.kept).toBeUndefined();
  });

  it('with no pod running, still a removal: 0 running replicas', () => {
    const plan = planDesiredState(input(baseWithBert(), { snapshot }));
    const cs = plan.changeSets.find((c) => c.branch === 'gpuops/prod/placement/bert')!;
    expect(cs.title).toBe(
      'gpuops(prod): remove Deployment algorithms/bert (0 running replicas) and Service algorithms/bert',
    );
  });

  it('a placement that drops a live object (the HPA, when the engine moves from hpa to gpuops) says remove first', () => {
    const hpaPolicy: Policy = {
      ...policy,
      spec: { ...policy.spec, scaling: { ...policy.spec.scaling, engine: 'hpa' } },
    };
    const repo = { policy: hpaPolicy, errors: [], algorithms: [bert] };
    const first = planDesiredState(input(new Map(), { repo }));
    const base = new Map<string, string>();
    for (const cs of first.changeSets)
      for (const f of cs.files) if (f.content !== null) base.set(f.path, f.content);
    expect(base.has('clusters/prod/algorithms/bert/hpa.yaml')).toBe(true);
    const plan = planDesiredState(input(base, { repo: { policy, errors: [], algorithms: [bert] } }));
    const cs = plan.changeSets.find((c) => c.branch === 'gpuops/prod/placement/bert')!;
    expect(cs.title).toBe(
      'gpuops(prod): remove HorizontalPodAutoscaler algorithms/bert; place bert on short-task',
    );
    expect(cs.body.split('\n')[0]).toMatch(
      /^\*\*Merging this pull request deletes 1 live object\*\*: HorizontalPodAutoscaler algorithms\/bert\. /,
    );
  });

  it('a placement that only re-renders the Deployment is no removal', () => {
    const base = baseWithBert();
    const path = 'clusters/prod/algorithms/bert/deployment.yaml';
    base.set(path, base.get(path)!.replace('image: registry.example.com/ml/bert:1.0.0', 'image: old:0.9'));
    const plan = planDesiredState(input(base, { repo: { policy, errors: [], algorithms: [bert] } }));
    const cs = plan.changeSets.find((c) => c.branch === 'gpuops/prod/placement/bert')!;
    expect(cs.title).toBe('gpuops(prod): place bert on short-task');
    expect(cs.body.split('\n')[0]).toBe('## gpuops(prod): place bert on short-task');
  });
});

describe('placement.onDeletedSpec: keep-and-report', () => {
  const keep = withPolicy({ onDeletedSpec: 'keep-and-report' });

  it('proposes no removal, and reports what stays on every plan until a person deletes the folder', () => {
    const plan = planDesiredState(
      input(baseWithBert(), { repo: { policy: keep, errors: [], algorithms: [] } }),
    );
    expect(plan.changeSets.map((c) => c.branch)).not.toContain('gpuops/prod/placement/bert');
    expect(plan.output.files.filter((f) => f.path.includes('/bert/'))).toEqual([]);
    const message =
      'algorithm "bert" is no longer in algorithms/, and its objects stay (placement.onDeletedSpec: keep-and-report): Deployment algorithms/bert (3 running replicas), Service algorithms/bert; delete clusters/prod/algorithms/bert/ to remove them';
    expect(plan.output.kept?.map((k) => k.message)).toEqual([message]);
    expect(plan.output.warnings).toContain(message);
    expect(formatPlanTable(plan.output, running)).toContain(`warning: ${message}`);
  });

  it('still deletes a file the render no longer writes for a spec that is there (no deleted spec)', () => {
    const hpaPolicy: Policy = {
      ...keep,
      spec: { ...keep.spec, scaling: { ...keep.spec.scaling, engine: 'hpa' } },
    };
    const first = planDesiredState(
      input(new Map(), { repo: { policy: hpaPolicy, errors: [], algorithms: [bert] } }),
    );
    const base = new Map<string, string>();
    for (const cs of first.changeSets)
      for (const f of cs.files) if (f.content !== null) base.set(f.path, f.content);
    const plan = planDesiredState(input(base, { repo: { policy: keep, errors: [], algorithms: [bert] } }));
    expect(plan.output.files).toContainEqual({
      path: 'clusters/prod/algorithms/bert/hpa.yaml',
      change: 'delete',
    });
    expect(plan.output.kept).toBeUndefined();
  });
});
