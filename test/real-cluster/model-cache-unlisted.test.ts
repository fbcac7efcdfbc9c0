/**
 * The model cache fill read when gpuops may not list Jobs, on the real control plane (kube-apiserver
 * with RBAC): gpuops as its ServiceAccount with templates/install's RBAC applied as shipped, the
 * algorithm namespace and gpuops's RoleBinding there as Git holds them. Then the `gpuops-benchmark`
 * ClusterRole loses `list` on Jobs, as on a cluster where gpuops was upgraded without applying the
 * ClusterRole of its version: kube-apiserver answers every list of fill Jobs 403. gpuops warns once
 * (not once per pass), and the fleet status holds `bert` `ModelCacheFillNotListed` with the API
 * server's own words and what to apply; the ClusterRole applied again clears it, and removed again
 * it warns again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createKubeJobApi } from '../../src/cluster/jobs.js';
import { statusOf } from '../../src/cluster/kube-errors.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { installGpuopsRbac } from '../../src/local-cluster/install.js';
import { renderNamespaceFile } from '../../src/manifests/namespaces.js';
import { FILL_SELECTOR } from '../../src/pass/model-cache-fills.js';
import { statusStoreOf } from '../../src/store/index.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const NS = 'algorithms';
const spec =
  algorithmFile('bert', { pool: 'short-task' }) +
  [
    '  modelCache:',
    '    claimName: bert-models',
    '    mountPath: /models',
    '    fill: {image: registry.example.com/ml/fetch:1.0, args: [bert-base]}',
    '',
  ].join('\n');

let h: RealHarness;
let shipped: KubeObject;

const unread = () => h.logs.filter((l) => String(l.msg).startsWith('model cache fill not read'));
const held = async () =>
  (await statusStoreOf(h.store)!.fleetStatus('prod'))?.algorithms.find((a) => a.name === 'bert')?.held;

/** The shipped `gpuops-benchmark` ClusterRole, or it without `list`; resolves once gpuops's list answers so. */
async function benchmarkRoleWith(list: boolean): Promise<void> {
  const rules = (shipped.rules as { resources: string[]; verbs: string[] }[]).map((r) =>
    list || !r.resources.includes('jobs') ? r : { ...r, verbs: r.verbs.filter((v) => v !== 'list') },
  );
  await h.apply({ ...shipped, rules });
  const jobs = createKubeJobApi(h.gpuopsKc);
  await until(`gpuops's list of Jobs is ${list ? 'allowed' : 'forbidden'}`, () =>
    jobs.listJobs(NS, FILL_SELECTOR).then(
      () => list,
      (err: unknown) => !list && statusOf(err) === 403,
    ),
  );
}

describeReal(
  'the fill Jobs cannot be listed on the real control plane (the ClusterRole without list)',
  () => {
    beforeAll(async () => {
      h = await startRealHarness({
        files: { 'README.md': '# gitops\n', 'algorithms/bert.yaml': spec },
        flux: false,
        metrics: false,
      });
      shipped = (await installGpuopsRbac(h.kc)).find(
        (o) => o.kind === 'ClusterRole' && o.metadata.name === 'gpuops-benchmark',
      )!;
      await h.addNodes([
        { name: 'gpu-t', gpus: 1, labels: { 'gpuops.dev/pool': 'test' } },
        { name: 'gpu-s', gpus: 2, labels: { 'gpuops.dev/pool': 'short-task' } },
      ]);
      // The first pass proposes the pools and bert's fill Job; a person merges both. The namespace
      // and gpuops's RoleBinding there are applied as Git holds them (no applier in this test).
      await h.pass();
      for (const b of ['gpuops/prod/pools', 'gpuops/prod/placement/bert']) h.merge(b);
      for (const d of parseAllDocuments(renderNamespaceFile('prod', NS).content!))
        await h.apply(d.toJS() as KubeObject);
    }, 240_000);
    afterAll(async () => {
      await h?.close();
    });

    it('with the shipped ClusterRole the list answers: nothing held, nothing warned', async () => {
      await benchmarkRoleWith(true);
      await h.pass();
      expect(await held()).toBeUndefined();
      expect(unread()).toEqual([]);
    });

    it('403 on every pass: one warning, and the status holds bert with the API server’s words and what to apply', async () => {
      await benchmarkRoleWith(false);
      await h.pass();
      await h.pass();
      expect(unread()).toEqual([
        expect.objectContaining({
          level: 40,
          namespace: NS,
          algorithms: ['bert'],
          reason: 'ModelCacheFillNotListed',
          code: 'HTTP 403',
        }),
      ]);
      const forbidden = `HTTP 403: jobs.batch is forbidden: User "system:serviceaccount:gpuops-system:gpuops" cannot list resource "jobs" in API group "batch" in the namespace "${NS}"`;
      expect(await held()).toEqual({
        reason: 'ModelCacheFillNotListed',
        message: expect.stringContaining(
          `fill Jobs could not be listed: ${forbidden} — apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs`,
        ),
      });
      expect(h.file('main', `clusters/prod/algorithms/bert/deployment.yaml`)).toBeNull();
    });

    it('the ClusterRole applied again clears the hold; removed again, it warns again', async () => {
      await benchmarkRoleWith(true);
      await h.pass();
      expect(await held()).toBeUndefined();
      await benchmarkRoleWith(false);
      await h.pass();
      expect(unread()).toHaveLength(2);
      expect(await held()).toMatchObject({ reason: 'ModelCacheFillNotListed' });
    });
  },
  { flux: false },
);
