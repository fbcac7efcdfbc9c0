/**
 * A model cache fill gpuops cannot read, on the simulated cluster with RBAC enforced, gpuops as its
 * ServiceAccount with templates/install's RBAC applied as shipped:
 * - the `gpuops-benchmark` ClusterRole without `list` (an upgrade of gpuops without applying the
 *   ClusterRole of its version): every list of fill Jobs is answered 403, and gpuops says so where an
 *   operator looks — one warning per namespace (not one per pass), the fleet status (`held`,
 *   `ModelCacheFillNotListed`, the 403 and what to apply), `gpuops_algorithm_held{reason}`, and the
 *   open placement pull request's body, refreshed though its files did not change. The ClusterRole
 *   applied again clears the hold and the body; removed again, it warns again.
 * - a fill Job a person wrote into Git without gpuops's labels: no list selects it, so it waits
 *   `Unknown`, and the status and the pull request say why.
 */
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControllerMetrics, registerFleetGauges } from '../../src/controller/metrics.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { readKustomizeTree } from '../../src/gitops-apply/kustomize-tree.js';
import { modelCacheFillName } from '../../src/manifests/model-cache.js';
import { statusStoreOf } from '../../src/store/status-store.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const INSTALL = path.resolve(import.meta.dirname, '../../templates/install');
const RBAC_KINDS = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const DIR = 'clusters/prod/algorithms';
const FILL = '{image: registry.example.com/ml/fetch:1.0, args: [base, --sim-duration=100000]}';
const withCache = (name: string) =>
  algorithmFile(name, { pool: 'short-task' }) +
  [`  modelCache:`, `    claimName: ${name}-models`, '    mountPath: /models', `    fill: ${FILL}`, ''].join(
    '\n',
  );
const fillOf = (name: string) =>
  modelCacheFillName(name, {
    claimName: `${name}-models`,
    mountPath: '/models',
    fill: { image: 'registry.example.com/ml/fetch:1.0', args: ['base', '--sim-duration=100000'] },
  })!;

let h: Harness;
let benchmarkRole: KubeObject;

const unread = () => h.logs.filter((l) => String(l.msg).startsWith('model cache fill not read'));
const heldOf = async (alg: string) =>
  (await statusStoreOf(h.store)!.fleetStatus('prod'))?.algorithms.find((a) => a.name === alg)?.held;
const body = async (alg: string) =>
  (await h.store.pullRequests('prod')).find((p) => p.branch === `gpuops/prod/placement/${alg}`)?.body ?? '';
async function gauge(): Promise<string[]> {
  const metrics = createControllerMetrics(false);
  const fleet = (await statusStoreOf(h.store)!.fleetStatus('prod')) ?? null;
  registerFleetGauges(metrics.registry, async () => ({ fleet, openPullRequests: [] }));
  return (await metrics.registry.metrics()).split('\n').filter((l) => l.startsWith('gpuops_algorithm_held'));
}
/** The `gpuops-benchmark` ClusterRole as shipped, or without `list` on Jobs. */
async function benchmarkRoleWith(list: boolean): Promise<void> {
  const rules = (benchmarkRole.rules as { resources: string[]; verbs: string[] }[]).map((r) =>
    r.resources.includes('jobs') && !list ? { ...r, verbs: r.verbs.filter((v) => v !== 'list') } : r,
  );
  const api = k8s.KubernetesObjectApi.makeApiClient(h.kc);
  const live = await api.read({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'gpuops-benchmark' },
  });
  await api.replace({ ...live, rules } as k8s.KubernetesObject);
}

beforeAll(async () => {
  h = await startHarness({
    asServiceAccount: true,
    nodes: [gpuNode('gpu-t', 1, 'test'), gpuNode('gpu-s1', 2, 'short-task')],
    files: { 'README.md': '# gitops\n', 'algorithms/bert.yaml': withCache('bert') },
    speed: 1e-9,
  });
  const api = k8s.KubernetesObjectApi.makeApiClient(h.kc);
  for (const m of readKustomizeTree(INSTALL).manifests) {
    if (!RBAC_KINDS.has(m.object.kind)) continue;
    await api.create(m.object as k8s.KubernetesObject).catch(() => undefined);
    if (m.object.kind === 'ClusterRole' && m.object.metadata.name === 'gpuops-benchmark')
      benchmarkRole = m.object;
  }
  // The first pass proposes the pools and bert's fill Job; merged and applied, the fill runs.
  await h.pass();
  for (const b of ['gpuops/prod/pools', 'gpuops/prod/placement/bert']) h.merge(b);
  expect((await h.sync()).errors).toEqual([]);
  await h.settle();
  // A person adds a label to the fill Job's file: the placement pull request restores gpuops's
  // file (the cluster's Job stays as applied), so a pull request is open while the fill runs.
  const file = h.file('main', `${DIR}/bert/model-cache-fill.yaml`)!;
  h.push({ [`${DIR}/bert/model-cache-fill.yaml`]: file.replace('  labels:\n', '  labels:\n    team: ml\n') });
  await h.pass();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('the fill Jobs cannot be listed (the ClusterRole without list)', { timeout: 60_000 }, () => {
  it('while listed: the fill runs, nothing held, the open pull request says it runs', async () => {
    expect(await heldOf('bert')).toBeUndefined();
    expect(await body('bert')).toContain(`Job \`algorithms/${fillOf('bert')}\` is running;`);
    expect(unread()).toEqual([]);
  });

  it('403 on every pass: one warning, the status, the gauge and the pull request body say why and what to apply', async () => {
    await benchmarkRoleWith(false);
    await h.pass();
    await h.pass();
    expect(unread()).toEqual([
      expect.objectContaining({
        level: 40,
        namespace: 'algorithms',
        algorithms: ['bert'],
        reason: 'ModelCacheFillNotListed',
        code: 'HTTP 403',
      }),
    ]);
    const why = 'fill Jobs could not be listed: HTTP 403: jobs.batch is forbidden';
    const apply = 'apply the gpuops-benchmark ClusterRole of this version (it grants list on batch/jobs';
    expect(String(unread()[0]!.msg)).toContain(apply);
    expect(await heldOf('bert')).toEqual({
      reason: 'ModelCacheFillNotListed',
      message: expect.stringMatching(
        new RegExp(`^fill Job algorithms/${fillOf('bert')}: ${why}.*${apply.replace(/[()]/g, '\\$&')}`),
      ),
    });
    expect(await gauge()).toEqual([
      'gpuops_algorithm_held{algorithm="bert",reason="ModelCacheFillNotListed"} 1',
    ]);
    const text = await body('bert');
    expect(text).toContain(`Job \`algorithms/${fillOf('bert')}\` could not be read this pass (${why}`);
    expect(text).toContain(apply);
    expect(h.file('main', `${DIR}/bert/deployment.yaml`)).toBeNull();
  });

  it('the ClusterRole applied again: the hold, the gauge and the body clear; removed again, it warns again', async () => {
    await benchmarkRoleWith(true);
    await h.pass();
    expect(await heldOf('bert')).toBeUndefined();
    expect(await gauge()).toEqual([]);
    expect(await body('bert')).toContain(`Job \`algorithms/${fillOf('bert')}\` is running;`);
    await benchmarkRoleWith(false);
    await h.pass();
    expect(unread()).toHaveLength(2);
    expect(await heldOf('bert')).toMatchObject({ reason: 'ModelCacheFillNotListed' });
    await benchmarkRoleWith(true);
  });
});

describe("a fill Job in Git without gpuops's labels", { timeout: 60_000 }, () => {
  it('waits Unknown; the status and the pull request say why', async () => {
    const name = fillOf('gpt');
    h.push({
      'algorithms/gpt.yaml': withCache('gpt'),
      [`${DIR}/gpt/model-cache-fill.yaml`]: `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: ${name}\n  namespace: algorithms\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: fill, image: registry.example.com/ml/fetch:1.0}]\n`,
    });
    await h.pass();
    const why =
      "the fill Job in Git lacks gpuops's labels (app.kubernetes.io/managed-by: gpuops, gpuops.dev/model-cache-fill)";
    expect(await heldOf('gpt')).toEqual({
      reason: 'ModelCacheFillUnlabelled',
      message: expect.stringContaining(`fill Job algorithms/${name}: ${why}`),
    });
    expect(await body('gpt')).toContain(`Job \`algorithms/${name}\` could not be read this pass (${why}`);
    expect(unread().at(-1)).toMatchObject({ reason: 'ModelCacheFillUnlabelled', job: `algorithms/${name}` });
    expect(await heldOf('bert')).toBeUndefined();
  });
});
