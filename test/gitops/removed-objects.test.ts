/**
 * `removedObjects`: the live objects a change set takes away, each kind of change on both sides
 * of the rule (deleted or kept, pruned or never pruned, same object or another one), and the
 * title's removal clause by name and by count.
 */
import { describe, expect, it } from 'vitest';
import { removedObjects } from '../../src/change-sets/removed-objects.js';
import { prTitle } from '../../src/change-sets/pr-title.js';

const deployment = (name: string, replicas = 2) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: algorithms\nspec:\n  replicas: ${replicas}\n`;
const service = (name: string) =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: algorithms\n`;
const node = (argo: string, flux: string | null) =>
  `apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n  annotations:\n    argocd.argoproj.io/sync-options: ${argo}\n${flux ? `    kustomize.toolkit.fluxcd.io/prune: ${flux}\n` : ''}`;
const kustomization =
  'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [a.yaml]\n';

const running = new Map([['algorithms/bert', 3]]);

describe('removedObjects', () => {
  it.each([
    [
      'a deleted Deployment, with its Running pods',
      'd.yaml',
      deployment('bert'),
      null,
      running,
      ['Deployment algorithms/bert 3'],
    ],
    [
      'a deleted Deployment no pod runs: 0',
      'd.yaml',
      deployment('gpt'),
      null,
      running,
      ['Deployment algorithms/gpt 0'],
    ],
    [
      'a deleted Deployment, running pods unknown: null',
      'd.yaml',
      deployment('bert'),
      null,
      undefined,
      ['Deployment algorithms/bert null'],
    ],
    [
      'a deleted Service: no replicas',
      's.yaml',
      service('bert'),
      null,
      running,
      ['Service algorithms/bert null'],
    ],
    [
      'a rewrite of spec.replicas only: nothing goes',
      'd.yaml',
      deployment('bert', 2),
      deployment('bert', 5),
      running,
      [],
    ],
    [
      'a rewrite naming another Deployment: the old one goes',
      'd.yaml',
      deployment('bert'),
      deployment('bert2'),
      running,
      ['Deployment algorithms/bert 3'],
    ],
    [
      'one document of two dropped',
      'x.yaml',
      `${deployment('bert')}---\n${service('bert')}`,
      deployment('bert'),
      running,
      ['Service algorithms/bert null'],
    ],
    [
      'a deleted Node manifest both appliers never prune',
      'n.yaml',
      node('ServerSideApply=true,Prune=false,Delete=false', 'disabled'),
      null,
      running,
      [],
    ],
    [
      'a deleted Node manifest Flux would prune',
      'n.yaml',
      node('Prune=false', null),
      null,
      running,
      ['Node gpu-1 null'],
    ],
    [
      'a deleted Node manifest Argo CD would prune',
      'n.yaml',
      node('ServerSideApply=true', 'disabled'),
      null,
      running,
      ['Node gpu-1 null'],
    ],
    [
      'a deleted kustomization.yaml: a build file, no object',
      'kustomization.yaml',
      kustomization,
      null,
      running,
      [],
    ],
    ['a file not in the base branch', 'new.yaml', undefined, null, running, []],
  ] as const)('%s', (_name, path, before, after, run, expected) => {
    const current = new Map(before === undefined ? [] : [[path, before]]);
    const got = removedObjects([{ path, content: after }], current, run);
    expect(
      got.map((o) => `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name} ${o.runningReplicas}`),
    ).toEqual(expected);
    for (const o of got) expect(o.path).toBe(path);
  });
});

describe('prTitle: a removal', () => {
  const removes = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      kind: 'Deployment',
      name: `a-long-algorithm-name-for-the-title-limit-${String(i).padStart(2, '0')}`,
      namespace: 'algorithms',
      path: `p${i}`,
      runningReplicas: 2,
    }));

  it('names each object while the title fits', () => {
    expect(prTitle({ cluster: 'prod', kind: 'placement', subject: 'x', removes: removes(2) })).toBe(
      'gpuops(prod): remove Deployment algorithms/a-long-algorithm-name-for-the-title-limit-00 (2 running replicas) and Deployment algorithms/a-long-algorithm-name-for-the-title-limit-01 (2 running replicas)',
    );
  });
  it('counts them, with the replicas they run, past 256 characters', () => {
    expect(
      prTitle({
        cluster: 'prod',
        kind: 'placement',
        subject: 'x',
        removes: [
          ...removes(3),
          { kind: 'Service', name: 's', namespace: 'algorithms', path: 's', runningReplicas: null },
        ],
      }),
    ).toBe('gpuops(prod): remove 4 live objects: 3 Deployments (6 running replicas), 1 Service');
  });
});
