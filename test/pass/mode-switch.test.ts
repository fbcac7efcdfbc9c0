/**
 * Switching a running gpuops from patch mode to pull-request mode, on the simulated cluster over
 * HTTP. Patch mode sets gpuops's own entry `gpuops.dev/pool=<pool>:NoSchedule` of each pool node's
 * `spec.taints` itself: Git cannot hold it (`spec.taints` is atomic for server-side apply, so the
 * Node files never list a taint). Everything else patch mode writes (pool labels, replicas) is
 * committed first, so Git holds it. After the switch nothing maintains the taint: a node moved to
 * another pool through Git kept the old pool's taint, which the new pool's replicas do not
 * tolerate. So the first pull-request-mode pass takes back what patch mode wrote and Git cannot
 * hold: gpuops's entries go, every other entry of `spec.taints` stays, the labels stay as Git
 * holds them.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resource } from '../../src/sim/types.js';
import { rbacObjects } from '../install/rbac-eval.js';
import { gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const policy = (mode: 'patch' | 'pull-request') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  pools:',
    // Pull-request mode refuses the taint (nothing there would set it): the switch turns it off.
    `    taint: {enabled: ${mode === 'patch'}, effect: NoSchedule}`,
    '  scaling:',
    `    mode: ${mode}`,
    '',
  ].join('\n');

/** The GPU operator's taint, owned by another manager: never gpuops's to touch. */
const GPU = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

let h: Harness;
const taints = (node: string) =>
  ((h.sim.store.get('nodes', undefined, node)?.spec?.taints ?? []) as (typeof GPU)[])
    .map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)
    .sort();
const label = (node: string) =>
  h.sim.store.get('nodes', undefined, node)?.metadata.labels?.['gpuops.dev/pool'];

/** gpu-a (no pool yet) and gpu-s (short-task) with the GPU operator's taint, gpu-u (unused) without. */
function start(o: { asServiceAccount?: boolean } = {}): Promise<Harness> {
  const withGpuTaint = (name: string, pool: string | null) => {
    const n = gpuNode(name, 1, pool);
    n.spec = { taints: [GPU] };
    return n;
  };
  return startHarness({
    ...o,
    nodes: [withGpuTaint('gpu-a', null), withGpuTaint('gpu-s', 'short-task'), gpuNode('gpu-u', 1, 'unused')],
    files: { 'README.md': '# gitops\n', 'policies/test.yaml': policy('patch') },
  });
}

/** Patch mode: the pools pull request merged and applied, then a pass that taints the pool nodes. */
async function patchModePools(): Promise<void> {
  await h.pass();
  h.merge('gpuops/prod/pools');
  expect((await h.sync()).errors).toEqual([]);
  await h.pass();
}

describe('patch mode, then pull-request mode', () => {
  beforeAll(async () => {
    h = await start();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('patch mode: the pools applied from Git, gpuops’s pool taint beside the GPU operator’s', async () => {
    await patchModePools();
    expect(label('gpu-a')).toBe('test');
    expect(taints('gpu-a')).toEqual(['gpuops.dev/pool=test:NoSchedule', 'nvidia.com/gpu=present:NoSchedule']);
    expect(taints('gpu-s')).toEqual([
      'gpuops.dev/pool=short-task:NoSchedule',
      'nvidia.com/gpu=present:NoSchedule',
    ]);
    expect(taints('gpu-u')).toEqual(['gpuops.dev/pool=unused:NoSchedule']);
  });

  it('pull-request mode: gpuops’s taint entries go, the others and the labels Git holds stay', async () => {
    h.push({ 'policies/test.yaml': policy('pull-request') }, 'gpuops: pull-request mode');
    const r = await h.pass();
    expect(r.patches).toEqual([
      'Node gpu-a: no taint gpuops.dev/pool',
      'Node gpu-s: no taint gpuops.dev/pool',
      'Node gpu-u: no taint gpuops.dev/pool',
    ]);
    expect(taints('gpu-a')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
    expect(taints('gpu-s')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
    expect(taints('gpu-u')).toEqual([]);
    expect([label('gpu-a'), label('gpu-s'), label('gpu-u')]).toEqual(['test', 'short-task', 'unused']);
    expect(h.file('main', 'clusters/prod/nodes/gpu-a.yaml')).toMatch(/gpuops\.dev\/pool: test/);
  });

  it('then nothing more: a pull-request-mode pass writes nothing to the cluster', async () => {
    const r = await h.pass();
    expect(r.patches).toEqual([]);
    expect(taints('gpu-a')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
  });

  it('a pool-key taint a person sets after the switch is not gpuops’s: it stays', async () => {
    const node = h.sim.store.get('nodes', undefined, 'gpu-a')!;
    node.spec = {
      ...node.spec,
      taints: [GPU, { key: 'gpuops.dev/pool', value: 'test', effect: 'NoSchedule' }],
    };
    h.sim.store.update('nodes', node);
    const r = await h.pass();
    expect(r.patches).toEqual([]);
    expect(taints('gpu-a')).toEqual(['gpuops.dev/pool=test:NoSchedule', 'nvidia.com/gpu=present:NoSchedule']);
  });
});

describe('the switch as the shipped install makes it: the patch-mode component removed', () => {
  const INSTALL = path.resolve(import.meta.dirname, '../../templates/install');
  const KINDS: Record<string, Resource> = {
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
  };
  /** Creates the cluster-scoped RBAC objects of a folder that are not there yet, as the admin. */
  const install = (dir: string) => {
    for (const o of rbacObjects({ dir })) {
      const kind = KINDS[o.kind];
      if (kind && !h.sim.store.get(kind, undefined, o.metadata.name))
        h.sim.store.create(kind, structuredClone(o));
    }
  };
  beforeAll(async () => {
    h = await start({ asServiceAccount: true });
    install(INSTALL);
    install(path.join(INSTALL, 'components/patch-mode'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('pull-request mode may not patch Nodes: each taint one clear line, the command that removes it by hand in the log', async () => {
    await patchModePools();
    expect(taints('gpu-u')).toEqual(['gpuops.dev/pool=unused:NoSchedule']);
    h.push({ 'policies/test.yaml': policy('pull-request') }, 'gpuops: pull-request mode');
    h.sim.store.delete('clusterrolebindings', undefined, 'gpuops-patch');
    const r = await h.pass();
    expect(r.patches).toHaveLength(3);
    for (const line of r.patches)
      expect(line).toMatch(
        /^Node gpu-[asu]: could not set no taint gpuops\.dev\/pool: .*forbidden.*cannot get resource "nodes"/,
      );
    expect(taints('gpu-u')).toEqual(['gpuops.dev/pool=unused:NoSchedule']);
    const warned = h.logs.filter((l) =>
      String(l.msg).startsWith('the pool taint patch mode set is not removed'),
    );
    expect(warned.map((l) => l.byHand)).toEqual(['kubectl taint nodes gpu-a gpu-s gpu-u gpuops.dev/pool-']);
  });

  it('…kept and tried again: with the grant back, the next pass removes them', async () => {
    install(path.join(INSTALL, 'components/patch-mode'));
    const r = await h.pass();
    expect(r.patches).toEqual([
      'Node gpu-a: no taint gpuops.dev/pool',
      'Node gpu-s: no taint gpuops.dev/pool',
      'Node gpu-u: no taint gpuops.dev/pool',
    ]);
    expect(taints('gpu-u')).toEqual([]);
    expect(taints('gpu-s')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
    expect((await h.pass()).patches).toEqual([]);
  });
});
