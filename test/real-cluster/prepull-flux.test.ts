/**
 * Pre-staging through Flux on the real control plane, with the shipped applier confinement: the
 * Kustomization applies as `gpuops-applier` (templates/install/flux-kustomization.yaml) and the
 * admission policy `gpuops-prepull` is in force. With `pools.prePull.enabled`, gpuops's pools pull
 * request carries the short-task pool's pre-pull DaemonSet; once merged, Flux applies it (before
 * the Role `gpuops-applier-prepull` it failed with a 403 and the whole sync with it) and the real
 * DaemonSet controller runs its pods on the pool's node and the unused one, not on the test node.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/cluster/object.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, INSTALL, startRealHarness, until, type RealHarness } from './harness.js';

const policy = [
  'apiVersion: gpuops.dev/v1alpha1',
  'kind: Policy',
  'metadata: {name: test}',
  'spec:',
  '  pools:',
  '    prePull: {enabled: true}',
  '',
].join('\n');

type DaemonSet = { status?: { desiredNumberScheduled?: number; numberReady?: number } };
type Pod = { metadata: { name: string }; spec: { nodeName?: string } };

let h: RealHarness;

describeReal('pre-staging through Flux, confined', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: {
        'README.md': '# gitops\n',
        'algorithms/serve.yaml': algorithmFile('serve', { pool: 'short-task' }),
        'policies/test.yaml': policy,
      },
    });
    const admission = readFileSync(path.join(INSTALL, 'admission-prepull.yaml'), 'utf8');
    for (const d of parseAllDocuments(admission)) await h.apply(d.toJS() as KubeObject);
    await h.addNodes([
      { name: 'gpu-t', gpus: 1, labels: { 'gpuops.dev/pool': 'test' } },
      { name: 'gpu-s', gpus: 1, labels: { 'gpuops.dev/pool': 'short-task' } },
      { name: 'gpu-u', gpus: 1 },
    ]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("Flux applies the pools pull request's DaemonSet; its pods run on the pool's and the unused node", async () => {
    await h.pass();
    h.merge('gpuops/prod/pools');
    h.merge('gpuops/prod/placement/serve');
    await h.sync();
    // Git now places serve on short-task: the pools pull request carries its pre-pull DaemonSet.
    await h.pass();
    expect(h.file('gpuops/prod/pools', 'clusters/prod/prepull/short-task.yaml')).toContain('kind: DaemonSet');
    h.merge('gpuops/prod/pools');
    await h.sync();
    const ds = await until('the DaemonSet runs a Ready pod on each node it selects', async () => {
      const x = await h.get<DaemonSet>(
        '/apis/apps/v1/namespaces/algorithms/daemonsets/gpuops-prepull-short-task',
      );
      return (
        x.status?.numberReady === x.status?.desiredNumberScheduled && (x.status?.numberReady ?? 0) > 0 && x
      );
    });
    expect(ds.status?.desiredNumberScheduled).toBe(2);
    const pods = (await h.pods('algorithms')) as unknown as Pod[];
    expect(
      pods
        .filter((p) => p.metadata.name.startsWith('gpuops-prepull-short-task-'))
        .map((p) => p.spec.nodeName)
        .sort(),
    ).toEqual(['gpu-s', 'gpu-u']);
  });
});
