/**
 * The pool taint beside another manager's taint, on the real control plane with Flux. A Node's
 * `spec.taints` is an atomic list for server-side apply (`+listType=atomic`, k8s.io/api core/v1
 * NodeSpec): a Node manifest in Git that lists the pool taint made kustomize-controller's forced
 * apply replace the whole list, dropping the `nvidia.com/gpu` taint the GPU operator (here the
 * field manager `gpu-operator`) set (fluxcd/kustomize-controller#772). Now the Node files carry
 * no taint; in patch mode gpuops sets its own entry with a read-modify-write that keeps every
 * other entry, and Flux's next apply of the Node files leaves both.
 */
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeReal, INSTALL, installRbac, startRealHarness, until, type RealHarness } from './harness.js';

const policy = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  pools:',
  '    taint: {enabled: true, effect: NoSchedule}',
  '  scaling:',
  '    mode: patch',
  '',
].join('\n');

const GPU = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
type Node = { spec?: { taints?: { key: string; value?: string; effect: string }[] } };

let h: RealHarness;
const taints = async (name: string) =>
  ((await h.get<Node>(`/api/v1/nodes/${name}`)).spec?.taints ?? [])
    .map((t) => `${t.key}=${t.value ?? ''}:${t.effect}`)
    .sort();

describeReal('the pool taint beside another manager’s taint', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: { 'README.md': '# gitops\n', 'policies/test.yaml': policy },
    });
    await h.addNodes([
      { name: 'gpu-a', gpus: 1 },
      { name: 'gpu-u', gpus: 1 },
    ]);
    for (const name of ['gpu-a', 'gpu-u'])
      await h.apply(
        { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints: [GPU] } },
        'gpu-operator',
      );
    await installRbac(h.kc, path.join(INSTALL, 'components/patch-mode'));
  });
  afterAll(async () => {
    await h?.close();
  });

  it('Flux applies the pools; the GPU operator’s taint stays; gpuops adds its own entry, Flux keeps both', async () => {
    await h.pass();
    const file = h.file('gpuops/prod/pools', 'clusters/prod/nodes/gpu-a.yaml');
    expect(file).toMatch(/gpuops\.dev\/pool: /);
    h.merge('gpuops/prod/pools');
    await h.sync();
    const pool = await until('Flux applied the pool labels', async () => {
      const n = await h.get<{ metadata: { labels?: Record<string, string> } }>('/api/v1/nodes/gpu-a');
      return n.metadata.labels?.['gpuops.dev/pool'];
    });
    // Failed before: Flux's forced apply of `spec.taints: [gpuops.dev/pool=…]` dropped it.
    expect(await taints('gpu-a')).toContain('nvidia.com/gpu=present:NoSchedule');

    const r = await h.pass();
    expect(r.patches).toContain(`Node gpu-a: taint gpuops.dev/pool=${pool}:NoSchedule`);
    expect(await taints('gpu-a')).toEqual(
      [`gpuops.dev/pool=${pool}:NoSchedule`, 'nvidia.com/gpu=present:NoSchedule'].sort(),
    );
    // Flux applies the Node files again: they hold no taint, so neither entry moves.
    await h.sync();
    expect(await taints('gpu-a')).toEqual(
      [`gpuops.dev/pool=${pool}:NoSchedule`, 'nvidia.com/gpu=present:NoSchedule'].sort(),
    );
    // Nothing left to change: the next pass writes no taint.
    expect((await h.pass()).patches.filter((p) => p.startsWith('Node gpu-a'))).toEqual([]);
  });

  it('switched to pull-request mode: gpuops takes its entry back (Git cannot hold it), the GPU operator’s and the labels stay', async () => {
    const pool = (await h.get<{ metadata: { labels?: Record<string, string> } }>('/api/v1/nodes/gpu-a'))
      .metadata.labels?.['gpuops.dev/pool'];
    h.push({
      'policies/test.yaml': policy
        .replace('enabled: true', 'enabled: false')
        .replace('mode: patch', 'mode: pull-request'),
    });
    const r = await h.pass();
    expect(r.patches).toContain('Node gpu-a: no taint gpuops.dev/pool');
    expect(await taints('gpu-a')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
    await h.sync();
    expect(await taints('gpu-a')).toEqual(['nvidia.com/gpu=present:NoSchedule']);
    const after = await h.get<{ metadata: { labels?: Record<string, string> } }>('/api/v1/nodes/gpu-a');
    expect(after.metadata.labels?.['gpuops.dev/pool']).toBe(pool);
    // Pull-request mode writes nothing more to the cluster.
    expect((await h.pass()).patches).toEqual([]);
  });
});
