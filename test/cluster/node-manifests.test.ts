import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { renderNodeFiles } from '../../src/manifests/nodes.js';
import { assignPools } from '../../src/pools/assign.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { Policy } from '../../src/spec/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (f: string) =>
  JSON.parse(readFileSync(path.join(here, '../fixtures/cluster-mixed', f), 'utf8'));
const defaults = parse(readFileSync(path.join(here, '../../policies/default.yaml'), 'utf8')) as Policy;
const withTaint: Policy['spec'] = {
  ...defaults.spec,
  pools: { ...defaults.spec.pools, taint: { enabled: true, effect: 'NoSchedule' } },
};
const snap = buildSnapshot(fixture('nodes.json'), fixture('pods.json'), new Date('2026-12-01T10:00:00Z'));

/** Compares with `test/golden/nodes/<name>` (prettier leaves test/golden alone); `UPDATE_GOLDEN=1` rewrites it (review the diff). */
function golden(name: string, content: string): void {
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

  it('with pools.taint.enabled: pool taint plus the node’s own non-system taints, sorted (SSA replaces the list)', () => {
    const cordonedTest: PoolAssignment = {
      node: 'gpu-h100-02',
      from: 'test',
      to: 'test',
      reason: 'KeepPool',
      message: '',
    };
    const t4: PoolAssignment = {
      node: 'gpu-t4-04',
      from: 'long-task',
      to: 'long-task',
      reason: 'KeepPool',
      message: '',
    };
    const out = renderNodeFiles({
      cluster: 'prod',
      assignments: [cordonedTest, t4],
      nodes: snap.nodes,
      policy: withTaint,
    });
    golden('gpu-h100-02-tainted.yaml', out[0]!.content);
    // node.kubernetes.io/unschedulable and unreachable belong to the node lifecycle controller: never rendered.
    const doc = parse(out[1]!.content) as { spec: { taints: unknown[] } };
    expect(doc.spec.taints).toEqual([
      { key: 'gpuops.dev/pool', value: 'long-task', effect: 'NoSchedule' },
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ]);
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
