import { describe, expect, it } from 'vitest';
import { parseGenerated, readGitModel } from '../../src/plan/git-model.js';
import { createReconcilerMemory, rememberedLookups } from '../../src/plan/memory.js';

const node = (name: string, pool: string | null, annotations: Record<string, string> = {}) =>
  [
    'apiVersion: v1',
    'kind: Node',
    'metadata:',
    `  name: ${name}`,
    ...(Object.keys(annotations).length > 0
      ? ['  annotations:', ...Object.entries(annotations).map(([k, v]) => `    ${k}: "${v}"`)]
      : []),
    ...(pool === null ? [] : ['  labels:', `    gpuops.dev/pool: ${pool}`]),
    '',
  ].join('\n');

const deployment = (replicas: string | null, pool: string | null) =>
  [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: x}',
    'spec:',
    ...(replicas === null ? [] : [`  replicas: ${replicas}`]),
    '  template:',
    '    spec:',
    ...(pool === null
      ? ['      containers: []']
      : ['      nodeSelector:', `        gpuops.dev/pool: ${pool}`]),
    '',
  ].join('\n');

const MOVED = { 'gpuops.dev/moved-by': 'gpuops', 'gpuops.dev/moved-at': '2026-12-01T09:00:00Z' };

describe('readGitModel', () => {
  const base = new Map([
    ['clusters/prod/nodes/a.yaml', node('a', 'test')],
    ['clusters/prod/nodes/b.yaml', node('b', 'long-task', MOVED)],
    ['clusters/prod/nodes/c.yaml', node('c', 'gpu-pool')],
    ['clusters/prod/nodes/d.yaml', node('d', null)],
    ['clusters/prod/nodes/kustomization.yaml', 'resources: [a.yaml]\n'],
    ['clusters/prod/nodes/broken.yaml', 'metadata: [\n'],
    ['clusters/prod/algorithms/r50/deployment.yaml', deployment('3', 'short-task')],
    ['clusters/prod/algorithms/r50/hpa.yaml', 'kind: HorizontalPodAutoscaler\n'],
    ['clusters/prod/algorithms/llm/deployment.yaml', deployment(null, 'long-task')],
    ['clusters/prod/algorithms/odd/deployment.yaml', deployment('"2"', 'unused-ish')],
    ['clusters/prod/algorithms/gone/hpa.yaml', 'kind: HorizontalPodAutoscaler\n'],
    ['clusters/staging/nodes/z.yaml', node('z', 'test')],
  ]);
  const git = readGitModel('prod', base, 'gpuops.dev/pool');

  it.each([
    ['a', 'test'],
    ['b', 'long-task'],
    ['c', null], // a label value that is no pool name counts as none
    ['d', null],
  ])('node %s is in pool %s as Git says', (name, pool) => {
    expect(git.nodePools.get(name)).toBe(pool);
  });

  it('reads only this cluster’s node manifests, skips kustomizations and files that are not YAML', () => {
    expect([...git.nodePools.keys()].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('knows which nodes gpuops moved, and when', () => {
    expect([...git.movedNodes]).toEqual([['b', '2026-12-01T09:00:00Z']]);
  });

  it.each([
    ['r50', 3, 'short-task'],
    ['llm', null, 'long-task'], // no spec.replicas: an HPA owns it
    ['odd', null, null], // a quoted count is not a number, a selector value that is no pool is none
  ])('Deployment of %s: replicas %s, pool %s', (name, replicas, pool) => {
    const d = git.deployments.get(name)!;
    expect({ replicas: d.replicas, pool: d.pool, path: d.path }).toEqual({
      replicas,
      pool,
      path: `clusters/prod/algorithms/${name}/deployment.yaml`,
    });
    expect(d.text).toBe(base.get(d.path));
  });

  it('lists every algorithm folder, with a Deployment or not', () => {
    expect(git.algorithmFolders).toEqual(['gone', 'llm', 'odd', 'r50']);
    expect(git.deployments.has('gone')).toBe(false);
  });

  it('parses each generated file once per text with a reconciler memory', () => {
    const memory = createReconcilerMemory();
    const { parse } = rememberedLookups(memory);
    const once = readGitModel('prod', base, 'gpuops.dev/pool', parse);
    const first = memory.parsed.get(base.get('clusters/prod/algorithms/r50/deployment.yaml')!);
    readGitModel('prod', base, 'gpuops.dev/pool', parse);
    expect(memory.parsed.get(base.get('clusters/prod/algorithms/r50/deployment.yaml')!)).toBe(first);
    // 4 node texts + 1 broken + 3 Deployments (the staging node and the HPAs are not parsed)
    expect(memory.parsed.size).toBe(8);
    expect(parse('metadata: [\n')).toBeNull();
    expect(parseGenerated('metadata: [\n')).toBeNull();
    // The remembered parse gives the model the plain one gives.
    expect(once).toEqual(readGitModel('prod', base, 'gpuops.dev/pool'));
  });
});
