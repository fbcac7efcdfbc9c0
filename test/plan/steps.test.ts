import { beforeEach, describe, expect, it } from 'vitest';
import { benchmarksDue } from '../../src/pass/benchmarks.js';
import { invalidAlgorithms } from '../../src/plan/invalid-specs.js';
import type { BenchmarkOutcome } from '../../src/placement/types.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { placementChanges, planPlacements } from '../../src/plan/placement.js';
import { planPools } from '../../src/plan/pools.js';
import { planScaling, scaleChanges } from '../../src/plan/scaling.js';
import { parseRepo } from '../../src/definitions/rules/repo.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { policy, now, snapshot, templates, noData } from '../support/cluster-mixed.js';

function alg(
  name: string,
  o: { pool?: 'auto' | 'long-task' | 'short-task'; namespace?: string } = {},
): ResolvedAlgorithm {
  return {
    name,
    namespace: o.namespace ?? 'algorithms',
    spec: { image: `registry.example.com/ml/${name}:1.0.0`, resources: { gpus: 1 } },
    scaling: { minReplicas: 2, maxReplicas: 8, utilization: { min: 30, max: 80 } },
    benchmark: { args: undefined, runs: 3, timeoutSeconds: 1800 },
    placement: o.pool ?? 'auto',
    source: { file: `algorithms/${name}.yaml`, line: 1 },
  };
}
const ok = (s: number): BenchmarkOutcome => ({ status: 'Succeeded', medianSeconds: s, message: 'measured' });

const deployment = (replicas: number | null, pool: string) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: x, namespace: algorithms}',
    'spec:',
    ...(replicas === null ? [] : [`  replicas: ${replicas}`]),
    '  template:',
    '    spec:',
    '      nodeSelector:',
    `        gpuops.dev/pool: ${pool}`,
    '',
  ].join('\n');

describe('planPools: Git is the desired state of node pools', () => {
  const git = readGitModel(
    'prod',
    new Map([
      [
        'clusters/prod/nodes/gpu-a100-01.yaml',
        'metadata: {name: gpu-a100-01, labels: {gpuops.dev/pool: long-task}}\n',
      ],
    ]),
    'gpuops.dev/pool',
  );
  const step = planPools(snapshot, git, policy);
  it.each([
    ['gpu-a100-01', 'long-task'], // relabel merged in Git, not applied yet: Git wins
    ['gpu-a100-02', snapshot.nodes.find((n) => n.name === 'gpu-a100-02')!.pool], // not in Git: as observed
  ])('%s is judged in pool %s', (name, pool) => {
    expect(step.nodes.find((n) => n.name === name)!.pool).toBe(pool);
    expect(step.snapshot.nodes.find((n) => n.name === name)!.pool).toBe(pool);
  });
  it('assigns one pool per node of the snapshot', () => {
    expect(step.pools.map((p) => p.node).sort()).toEqual(snapshot.nodes.map((n) => n.name).sort());
  });
});

describe('planScaling: every algorithm with a Deployment in Git, as Git holds it', () => {
  const algorithms = [alg('in-git'), alg('hpa-owned'), alg('no-count'), alg('placed-only'), alg('pending')];
  const git = readGitModel(
    'prod',
    new Map([
      ['clusters/prod/algorithms/in-git/deployment.yaml', deployment(3, 'short-task')],
      ['clusters/prod/algorithms/hpa-owned/deployment.yaml', deployment(null, 'long-task')],
      ['clusters/prod/algorithms/no-count/deployment.yaml', deployment(null, 'short-task')],
    ]),
    'gpuops.dev/pool',
  );
  const placements = planPlacements(algorithms, new Map([['placed-only', ok(42)]]), policy);
  // Computed in each test (beforeEach), not while collecting: mutation testing then sees which
  // test covers the scaling code it runs.
  let step: ReturnType<typeof planScaling>;
  beforeEach(() => {
    step = planScaling({
      algorithms,
      placements,
      git,
      snapshot,
      reading: noData,
      recent: [],
      hpa: new Map([['hpa-owned', { currentReplicas: 4, desiredReplicas: 4, maxReplicas: 8 }]]),
      policy,
      now,
    });
  });

  it.each([
    ['in-git', 3, 'short-task'], // spec.replicas in Git
    ['hpa-owned', 4, 'long-task'], // no count in Git: the HPA's current replicas
    ['no-count', 2, 'short-task'], // neither: minReplicas
  ])('%s is judged at %i replicas in %s', (name, replicas, pool) => {
    expect(step.states.get(name)).toMatchObject({ replicas, pool });
  });

  it('holds an algorithm placed but not in Git yet, and leaves out one still benchmarking', () => {
    expect(step.decisions.map((d) => [d.algorithm, d.action, d.reason])).toEqual([
      ['hpa-owned', 'hold', expect.any(String)],
      ['in-git', 'hold', expect.any(String)],
      ['no-count', 'hold', expect.any(String)],
      ['placed-only', 'hold', 'PlacementPending'],
    ]);
    expect(step.states.has('placed-only')).toBe(false);
  });

  it('writes no scale change set for holds', () => {
    expect(scaleChanges({ step, git, pools: [], nodes: snapshot.nodes, policy, templates, now })).toEqual([]);
  });
});

describe('placementChanges', () => {
  const algorithms = [alg('kept'), alg('new')];
  const base = new Map([
    ['clusters/prod/algorithms/kept/deployment.yaml', deployment(5, 'short-task')],
    ['clusters/prod/algorithms/removed/deployment.yaml', deployment(1, 'short-task')],
    ['clusters/prod/algorithms/broken/deployment.yaml', deployment(1, 'long-task')],
  ]);
  const git = readGitModel('prod', base, 'gpuops.dev/pool');
  const placements = planPlacements(
    algorithms,
    new Map([
      ['kept', ok(10)],
      ['new', ok(99_999)],
    ]),
    policy,
  );
  const inputs = placementChanges({
    algorithms,
    placements,
    git,
    policy,
    templates,
    invalidAlgorithms: ['broken'],
  });
  const bySubject = new Map(inputs.map((i) => [i.subject, i]));

  it('one subject per folder rendered or deleted, by name; an invalid spec keeps its folder', () => {
    expect(inputs.map((i) => i.subject)).toEqual(['kept', 'new', 'removed']);
  });
  it.each([
    ['kept', 'replicas: 5'], // the count Git holds survives a re-render
    ['new', 'replicas: 2'], // minReplicas for a first Deployment
  ])('%s renders its Deployment with %s', (name, line) => {
    const f = bySubject.get(name)!.files.find((x) => x.path.endsWith('/deployment.yaml'))!;
    expect(f.content).toContain(line);
  });
  it('the placement pull request states the replicas and GPUs the spec asks for; a deletion states none', () => {
    expect(bySubject.get('new')!.placements![0]!.asks).toEqual({
      minReplicas: 2,
      maxReplicas: 8,
      gpusPerPod: 1,
    });
    expect(bySubject.get('removed')!.placements).toBeUndefined();
  });
  it('deletes the files of an algorithm that left algorithms/', () => {
    expect(bySubject.get('removed')!.files).toEqual([
      { path: 'clusters/prod/algorithms/removed/deployment.yaml', content: null },
    ]);
  });
});

describe('benchmarksDue: a benchmark Job needs its namespace in Git', () => {
  const git = {
    cluster: 'prod',
    files: new Map([['clusters/prod/namespaces/algorithms.yaml', 'kind: Namespace\n']]),
  };
  const unschedulable: BenchmarkOutcome = {
    status: 'Unschedulable',
    medianSeconds: null,
    message: 'no room',
  };
  it.each([
    ['new spec, namespace in Git', alg('a'), undefined, 'step'],
    ['new spec, namespace not in Git', alg('b', { namespace: 'ml' }), undefined, 'waiting'],
    ['unschedulable before: try again', alg('c'), unschedulable, 'step'],
    ['benchmarked already', alg('d'), ok(5), 'none'],
    ['pinned pool: never benchmarked', alg('e', { pool: 'long-task' }), undefined, 'none'],
  ] as const)('%s', (_name, a, outcome, expected) => {
    const due = benchmarksDue([a], new Map(outcome ? [[a.name, outcome]] : []), git);
    const got = due.toStep.includes(a) ? 'step' : due.waiting.has(a.name) ? 'waiting' : 'none';
    expect(got).toBe(expected);
    if (expected === 'waiting')
      expect(due.waiting.get(a.name)).toMatchObject({
        status: 'Pending',
        message: expect.stringContaining('clusters/prod/namespaces/ml.yaml'),
      });
  });
});

describe('invalidAlgorithms reads the names the spec parser found', () => {
  const file = (name: string, extra: string) =>
    `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata:\n  name: ${name}\n${extra}`;
  const spec = 'spec:\n  image: r/x:1\n  resources: {gpus: 1}\n';
  it.each([
    ['a valid spec', file('good', spec), [], false],
    [
      'a duplicate key still names its algorithm',
      file('dup', `spec:\n  image: r/x:1\n  image: r/y:1\n  resources: {gpus: 1}\n`),
      ['dup'],
      false,
    ],
    [
      'a schema error names its algorithm',
      file('zero', 'spec:\n  image: r/x:1\n  resources: {gpus: 0}\n'),
      ['zero'],
      false,
    ],
    ['a syntax error with no readable name', 'metadata: [\n', [], true],
  ])('%s', (_name, text, invalid, unnamed) => {
    const repo = parseRepo(policy, { algorithms: [{ path: 'algorithms/x.yaml', text }], policies: [] });
    const got = invalidAlgorithms(repo);
    expect(got.invalid.map((i) => i.algorithm)).toEqual(invalid);
    expect(got.unnamed).toBe(unnamed);
  });
  it('ignores errors of policy files', () => {
    const repo = parseRepo(policy, {
      algorithms: [],
      policies: [{ path: 'policies/x.yaml', text: 'kind: Policy\nspec: [\n' }],
    });
    expect(repo.errors.length).toBeGreaterThan(0);
    expect(invalidAlgorithms(repo)).toEqual({ invalid: [], unnamed: false });
  });
});
