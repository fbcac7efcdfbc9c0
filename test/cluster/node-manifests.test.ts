import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { renderNodeFiles } from '../../src/manifests/nodes.js';
import { assignPools } from '../../src/pools/assign.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { Policy } from '../../src/definitions/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (f: string) =>
  JSON.parse(readFileSync(path.join(here, '../fixtures/cluster-mixed', f), 'utf8'));
const defaults = parse(readFileSync(path.join(here, '../../policies/default.yaml'), 'utf8')) as Policy;
const withTaint: Policy['spec'] = {
  ...defaults.spec,
  pools: { ...defaults.spec.pools, taint: { enabled: true, effect: 'NoSchedule' } },
};
const snap = buildSnapshot(fixture('nodes.json'), fixture('pods.json'), new Date('2026-12-01T10:00:00Z'));

/** The files of `test/golden/nodes/`, each compared by one test below. */
const NODE_GOLDENS = ['gpu-a100-01.yaml', 'gpu-h100-02-tainted.yaml'];

/** Compares with `test/golden/nodes/<name>` (prettier leaves test/golden alone); `UPDATE_GOLDEN=1` rewrites it (review the diff). */
function golden(name: string, content: string): void {
  expect(NODE_GOLDENS, `add ${name} to NODE_GOLDENS`).toContain(name);
  const file = path.join(here, '../golden/nodes', name);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
    if (process.env.UPDATE_GOLDEN !== '1')
      throw new Error(`golden file ${name} was missing; written, review it`);
  }
  expect(content).toBe(readFileSync(file, 'utf8'));
}

describe('node manifests', () => {
  it('test/golden/nodes holds exactly the files these tests compare: a stale file fails too', () => {
    expect(readdirSync(path.join(here, '../golden/nodes')).sort()).toEqual([...NODE_GOLDENS].sort());
  });

  const assignments = assignPools(snap, defaults);
  const files = renderNodeFiles({ cluster: 'prod', assignments, nodes: snap.nodes, policy: defaults.spec });

  it('one file per node with a pool, sorted by path, and no kustomization listing them', () => {
    expect(files.map((f) => f.path)).toEqual([
      'clusters/prod/nodes/gpu-a100-01.yaml',
      'clusters/prod/nodes/gpu-a100-02.yaml',
      'clusters/prod/nodes/gpu-h100-01.yaml',
      'clusters/prod/nodes/gpu-t4-01.yaml',
      'clusters/prod/nodes/gpu-t4-03.yaml',
    ]);
  });

  it('matches the golden files (no taint)', () => {
    golden('gpu-a100-01.yaml', files[0]!.content);
  });

  it('with pools.taint.enabled: no taint at all; the node’s own taints stay out of Git (golden)', () => {
    const cordonedTest: PoolAssignment = {
      node: 'gpu-h100-02',
      from: 'test',
      to: 'test',
      reason: 'KeepPool',
      message: '',
    };
    const out = renderNodeFiles({
      cluster: 'prod',
      assignments: [cordonedTest],
      nodes: snap.nodes,
      policy: withTaint,
    });
    golden('gpu-h100-02-tainted.yaml', out[0]!.content);
  });

  // Issue 13 item 2: a node carrying an autoscaler's, an operator's and a team's taints and labels
  // at the moment the pools change. Before: every non-system taint was copied into Git.
  it.each([
    ['taints off', defaults.spec, undefined],
    // No pool taint either: `spec.taints` is atomic for server-side apply (pools/pool-taint.ts).
    ['taints on', withTaint, undefined],
  ])('Git holds only what gpuops owns (%s): foreign taints and labels never travel', (_, policy, taints) => {
    const base = snap.nodes.find((n) => n.name === 'gpu-t4-01')!;
    const node = {
      ...base,
      pool: 'unused' as const,
      labels: {
        ...base.labels,
        'gpuops.dev/pool': 'unused',
        'karpenter.sh/nodepool': 'gpu-spot',
        'team.example.com/owner': 'vision',
        'node.kubernetes.io/instance-type': 'g4dn.xlarge',
      },
      taints: [
        { key: 'ToBeDeletedByClusterAutoscaler', value: '1764583200', effect: 'NoSchedule' as const },
        { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' as const },
        { key: 'dedicated', value: 'vision', effect: 'NoExecute' as const },
        { key: 'gpuops.dev/pool', value: 'unused', effect: 'NoSchedule' as const },
      ],
    };
    const moving: PoolAssignment = {
      node: 'gpu-t4-01',
      from: 'unused',
      to: 'short-task',
      reason: 'MovedForScaleUp',
      message: '',
    };
    const [file] = renderNodeFiles({ cluster: 'prod', assignments: [moving], nodes: [node], policy });
    const doc = parse(file!.content);
    expect(doc.metadata.labels).toEqual({
      'app.kubernetes.io/managed-by': 'gpuops',
      'gpuops.dev/pool': 'short-task',
    });
    expect(doc.spec?.taints).toEqual(taints);
    for (const foreign of [
      'ToBeDeleted',
      'dedicated',
      'nvidia.com/gpu',
      'karpenter',
      'team.example',
      'instance-type',
    ])
      expect(file!.content).not.toContain(foreign);
  });

  it('a node gpuops moved carries moved-by and moved-at while in a task pool; back in unused, neither', () => {
    const moved = new Map([['gpu-t4-01', '2026-12-01T09:00:00.000Z']]);
    const render = (to: 'short-task' | 'unused') =>
      parse(
        renderNodeFiles({
          cluster: 'prod',
          assignments: [{ node: 'gpu-t4-01', from: 'short-task', to }],
          nodes: snap.nodes,
          policy: defaults.spec,
          moved,
        })[0]!.content,
      ).metadata.annotations;
    expect(render('short-task')).toMatchObject({
      'gpuops.dev/moved-by': 'gpuops',
      'gpuops.dev/moved-at': '2026-12-01T09:00:00.000Z',
    });
    expect(render('unused')['gpuops.dev/moved-by']).toBeUndefined();
    expect(render('unused')['gpuops.dev/moved-at']).toBeUndefined();
  });

  it('a node leaving its pool keeps a manifest without the pool label (SSA removes it); untouched nodes get none', () => {
    const leaving: PoolAssignment = {
      node: 'gpu-a100-03',
      from: 'unused',
      to: null,
      reason: 'ForeignWorkload',
      message: '',
    };
    const none: PoolAssignment = {
      node: 'gpu-a100-04',
      from: null,
      to: null,
      reason: 'MIGOnly',
      message: '',
    };
    const out = renderNodeFiles({
      cluster: 'c',
      assignments: [none, leaving],
      nodes: snap.nodes,
      policy: defaults.spec,
    });
    expect(out.map((f) => f.path)).toEqual(['clusters/c/nodes/gpu-a100-03.yaml']);
    expect(parse(out[0]!.content).metadata.labels).toEqual({ 'app.kubernetes.io/managed-by': 'gpuops' });
  });

  it('is byte-stable: same input in another order gives identical bytes', () => {
    const again = renderNodeFiles({
      cluster: 'prod',
      assignments: [...assignments].reverse(),
      nodes: [...snap.nodes].reverse(),
      policy: structuredClone(defaults.spec),
    });
    expect(again).toEqual(files);
    const tainted = (nodes: typeof snap.nodes) =>
      renderNodeFiles({ cluster: 'prod', assignments, nodes, policy: withTaint });
    const shuffledTaints = snap.nodes.map((n) => ({ ...n, taints: [...n.taints].reverse() }));
    expect(tainted(shuffledTaints)).toEqual(tainted(snap.nodes));
    expect(tainted([])).toEqual(tainted(snap.nodes)); // nothing of the live node travels
  });

  it('the sync-wave is the string "-1" and the sync options forbid prune and delete (Argo CD and Flux)', () => {
    const doc = parse(files[0]!.content);
    expect(doc.metadata.annotations).toEqual({
      'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Prune=false,Delete=false',
      'argocd.argoproj.io/sync-wave': '-1',
      'kustomize.toolkit.fluxcd.io/prune': 'disabled',
    });
    expect(files[0]!.content).toContain(`argocd.argoproj.io/sync-wave: "-1"`);
  });
});
