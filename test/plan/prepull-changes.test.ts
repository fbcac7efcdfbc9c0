/**
 * The pools change set holds each task pool's pre-pull DaemonSet while the policy's
 * `pools.prePull.enabled` is on: it pulls the images of the algorithms whose Deployment in Git
 * selects the pool (read by the real Git read model), and a file gpuops wrote goes when the pool
 * has no algorithm left or pre-staging is turned off; a file under `prepull/` it does not name stays.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { poolChanges } from '../../src/plan/pool-changes.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const alg = (name: string): ResolvedAlgorithm => ({
  name,
  namespace: 'algorithms',
  spec: { image: `registry.example.com/${name}:1`, resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 3, timeoutSeconds: 60 },
  placement: 'auto',
  source: { file: `algorithms/${name}.yaml`, line: 1 },
});

/** A Deployment file in Git whose nodeSelector selects `pool`. */
const deployment = (name: string, pool: string): [string, string] => [
  `clusters/prod/algorithms/${name}/deployment.yaml`,
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}}\nspec:\n  replicas: 1\n  template:\n    spec:\n      nodeSelector: {gpuops.dev/pool: ${pool}}\n`,
];

/** The files the pools change set writes or deletes under `prepull/`: path → pulled images, or 'deleted'. */
function prePull(enabled: boolean, files: [string, string][], algorithms: ResolvedAlgorithm[]) {
  const policy = structuredClone(defaults);
  policy.spec.pools.prePull.enabled = enabled;
  const git = readGitModel('prod', new Map(files), policy.spec.pools.labelKey);
  const set = poolChanges({ pools: [], nodes: [], algorithms, git, policy });
  return Object.fromEntries(
    set.files
      .filter((f) => f.path.includes('/prepull/'))
      .map((f) => {
        if (f.content === null) return [f.path, 'deleted'];
        const ds = parse(f.content) as {
          kind: string;
          spec: { template: { spec: { initContainers: { name: string; image: string }[] } } };
        };
        const pulls = ds.spec.template.spec.initContainers.filter((c) => c.name.startsWith('pull-'));
        return [f.path, `${ds.kind}: ${pulls.map((c) => c.image).join(' ')}`];
      }),
  );
}

const PLACED = [deployment('a', 'long-task'), deployment('b', 'short-task'), deployment('c', 'short-task')];
const ALGS = ['a', 'b', 'c', 'd'].map(alg);

describe('pools change set: the pre-pull DaemonSets', () => {
  it('enabled: one per task pool, pulling the images of the algorithms Git places there', () => {
    // d has no Deployment in Git (not placed, or its placement not merged): pulled nowhere.
    expect(prePull(true, PLACED, ALGS)).toEqual({
      'clusters/prod/prepull/long-task.yaml': 'DaemonSet: registry.example.com/a:1',
      'clusters/prod/prepull/short-task.yaml': 'DaemonSet: registry.example.com/b:1 registry.example.com/c:1',
    });
  });

  it("enabled: the policy's namespace gets its Namespace file even when no algorithm runs there", () => {
    const policy = structuredClone(defaults);
    const others = ALGS.map((a) => ({ ...a, namespace: 'team-a' }));
    const paths = (enabled: boolean) => {
      policy.spec.pools.prePull.enabled = enabled;
      const git = readGitModel('prod', new Map(PLACED), policy.spec.pools.labelKey);
      return poolChanges({ pools: [], nodes: [], algorithms: others, git, policy })
        .files.filter((f) => f.path.includes('/namespaces/'))
        .map((f) => f.path);
    };
    expect(paths(true)).toEqual(
      [
        `clusters/prod/namespaces/${policy.spec.namespace}.yaml`,
        'clusters/prod/namespaces/team-a.yaml',
      ].sort(),
    );
    expect(paths(false)).toEqual(['clusters/prod/namespaces/team-a.yaml']);
  });

  it('enabled: a pool whose last algorithm left loses its file; a pool never written writes none', () => {
    const files: [string, string][] = [
      deployment('b', 'short-task'),
      ['clusters/prod/prepull/long-task.yaml', 'kind: DaemonSet\n'],
    ];
    expect(prePull(true, files, ALGS)).toEqual({
      'clusters/prod/prepull/long-task.yaml': 'deleted',
      'clusters/prod/prepull/short-task.yaml': 'DaemonSet: registry.example.com/b:1',
    });
    expect(prePull(true, [deployment('b', 'short-task')], ALGS)).not.toHaveProperty([
      'clusters/prod/prepull/long-task.yaml',
    ]);
  });

  it('off (the shipped default): nothing written, the files gpuops wrote deleted, no other file', () => {
    expect(prePull(false, PLACED, ALGS)).toEqual({});
    const files: [string, string][] = [
      ...PLACED,
      ['clusters/prod/prepull/long-task.yaml', 'kind: DaemonSet\n'],
      ['clusters/prod/prepull/short-task.yaml', 'kind: DaemonSet\n'],
      ['clusters/prod/prepull/team-extra.yaml', 'kind: DaemonSet\n'],
    ];
    expect(prePull(false, files, ALGS)).toEqual({
      'clusters/prod/prepull/long-task.yaml': 'deleted',
      'clusters/prod/prepull/short-task.yaml': 'deleted',
    });
    expect(defaults.spec.pools.prePull.enabled).toBe(false);
  });
});
