/**
 * Issue 13.12, least privilege proven: gpuops runs as its ServiceAccount (a bearer token) on a
 * simulated cluster that enforces RBAC from the install manifests (templates/install) and refuses
 * objects in missing namespaces. A full method in pull-request mode (snapshot, pools PR, benchmark
 * Jobs — one that cannot be scheduled and is deleted —, placement PRs, the HPA engine), then patch
 * mode with the patch-mode component (a Node relabelled and a Deployment scaled in the cluster,
 * its replicas' ownership handed to Git's applier),
 * the model cache fill read (a list of Jobs in the algorithm namespace), plus the leader-election
 * Lease. The test fails on any 403, and fails when a rule grants a verb
 * that no step used (the simulator records every request of the ServiceAccount).
 */
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterCache } from '../../src/cluster/cache.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import { createKubeJobApi } from '../../src/cluster/jobs.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { modelCacheFillName, modelCacheFilePath } from '../../src/manifests/model-cache.js';
import { readModelCacheFills } from '../../src/pass/model-cache-fills.js';
import { parseGenerated, readGitModel } from '../../src/plan/git-model.js';
import { kubeLeaseApi } from '../../src/cluster/lease.js';
import { readKustomizeTree } from '../../src/gitops-apply/kustomize-tree.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { ruleAllows, type AccessRecord } from '../../src/sim/rbac.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { gpuopsScaleEntry } from '../support/managed-fields.js';
import { until } from '../support/wait.js';

const INSTALL = path.resolve(import.meta.dirname, '../../templates/install');
const RBAC_KINDS = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);
const SA_USER = 'system:serviceaccount:gpuops-system:gpuops';

const policy = (mode: 'pull-request' | 'patch', engine: 'hpa' | 'gpuops') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  benchmark: {unschedulableTimeoutSeconds: 60}',
    '  scaling:',
    `    mode: ${mode}`,
    `    engine: ${engine}`,
    '    windowSeconds: 1',
    '    staleSampleSeconds: 600',
    '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '    scaleDown: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '',
  ].join('\n');

/** A benchmark that asks for 4 GPUs on a 1-GPU test node: unschedulable, its Job deleted. */
const stuck = algorithmFile('stuck', { benchSeconds: 30 }).replace('gpus: 1', 'gpus: 4');

let h: Harness;
const installed: KubeObject[] = [];

/** Reads templates/install (or a component) and creates its RBAC objects as the admin. */
async function install(dir: string): Promise<void> {
  const tree = readKustomizeTree(dir);
  expect(tree.errors).toEqual([]);
  const api = k8s.KubernetesObjectApi.makeApiClient(h.kc);
  for (const m of tree.manifests) {
    if (!RBAC_KINDS.has(m.object.kind)) continue;
    if (installed.some((o) => o.kind === m.object.kind && o.metadata.name === m.object.metadata.name))
      continue;
    await api.create(m.object as k8s.KubernetesObject);
    installed.push(m.object);
  }
}

beforeAll(async () => {
  h = await startHarness({
    asServiceAccount: true,
    nodes: [gpuNode('gpu-a', 1), gpuNode('gpu-s', 1, 'short-task'), gpuNode('gpu-u', 1, 'unused')],
    files: {
      'README.md': '# gitops\n',
      'algorithms/serve.yaml': algorithmFile('serve', { pool: 'auto', benchSeconds: 42 }),
      'algorithms/stuck.yaml': stuck,
      'policies/test.yaml': policy('pull-request', 'hpa'),
    },
  });
  await install(INSTALL);
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const denied = () => h.sim.rbac!.records().filter((r) => !r.allowed);

// Whole passes with benchmarks on a shared machine: more time than vitest's default per test.
describe('gpuops as its ServiceAccount, RBAC enforced', { timeout: 180_000 }, () => {
  it('answers 403 with the Kubernetes Status shape for what the install does not grant', async () => {
    const batch = h.gpuopsKc.makeApiClient(k8s.BatchV1Api);
    const err = await batch
      .createNamespacedJob({
        namespace: 'kube-system',
        body: { metadata: { name: 'x' }, spec: { template: { spec: { containers: [] } } } },
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 403 });
    expect(JSON.parse((err as { body: string }).body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `jobs.batch is forbidden: User "${SA_USER}" cannot create resource "jobs" in API group "batch" in the namespace "kube-system"`,
      reason: 'Forbidden',
      details: { group: 'batch', kind: 'jobs' },
      code: 403,
    });
  });

  it('pull-request mode: pools PR, then benchmarks in the Git-created namespace, placement PRs; no 403', async () => {
    const before = denied().length; // the probe above
    const first = await h.pass();
    expect(first.writeBack.map((r) => r.branch)).toEqual(['gpuops/prod/pools']);
    h.merge('gpuops/prod/pools');
    const s1 = await h.sync();
    expect(s1.errors).toEqual([]);
    // Argo CD created the namespace and the benchmark RoleBinding from Git; gpuops created nothing.
    expect(h.sim.store.get('namespaces', undefined, 'algorithms')).toBeDefined();
    expect(h.sim.store.get('rolebindings', 'algorithms', 'gpuops-benchmark')).toBeDefined();

    // Benchmarks run in the background (no pass waits on a Job): passes go on, a simulated minute
    // apart, until serve's run ended and stuck's unschedulable Job was given up.
    let second = await h.pass();
    const settled = () =>
      second.plan.placements.find((p) => p.algorithm === 'serve')?.pool !== null &&
      !h.sim.store
        .list('jobs', 'algorithms')
        .some((j) => j.metadata.labels?.['gpuops.dev/algorithm'] === 'stuck');
    for (let i = 0; i < 20 && !settled(); i++) {
      h.sim.clock.advance(60);
      second = await h.pass();
    }
    expect(second.plan.placements.map((p) => [p.algorithm, p.pool])).toEqual([
      ['serve', 'short-task'],
      ['stuck', null],
    ]);
    expect(
      h.sim.store.list('jobs', 'algorithms').map((j) => j.metadata.labels?.['gpuops.dev/algorithm']),
    ).toEqual(['serve']); // stuck's Job was deleted when it could not be scheduled
    h.merge('gpuops/prod/placement/serve');
    expect((await h.sync()).errors).toEqual([]);
    await h.pass(); // the HPA engine reads the HPA now in the cluster
    expect(denied().slice(before)).toEqual([]);
  });

  it('an algorithm in a new namespace: its benchmark waits (gpuops creates no namespace) until the pools PR brings it', async () => {
    const vision = algorithmFile('detect', { benchSeconds: 50 }).replace(
      'namespace: algorithms',
      'namespace: vision',
    );
    h.push(
      {
        'algorithms/detect.yaml': vision,
        'policies/namespaces.yaml':
          'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: namespaces}\nspec: {allowedNamespaces: [algorithms, vision]}\n',
      },
      'A new algorithm in namespace vision, which the policy allows',
    );
    const before = denied().length;
    const waiting = await h.pass();
    expect(waiting.plan.placements.find((p) => p.algorithm === 'detect')).toMatchObject({ pool: null });
    expect(waiting.plan.placements.find((p) => p.algorithm === 'detect')!.message).toMatch(
      /namespace vision is not in Git yet/,
    );
    expect(h.sim.store.get('namespaces', undefined, 'vision')).toBeUndefined();
    expect(h.file('gpuops/prod/pools', 'clusters/prod/namespaces/vision.yaml')).toContain('kind: Namespace');
    h.merge('gpuops/prod/pools');
    expect((await h.sync()).errors).toEqual([]);
    let placed = await h.pass();
    for (
      let i = 0;
      i < 20 && placed.plan.placements.find((p) => p.algorithm === 'detect')!.pool === null;
      i++
    ) {
      h.sim.clock.advance(60);
      placed = await h.pass();
    }
    expect(placed.plan.placements.find((p) => p.algorithm === 'detect')).toMatchObject({
      pool: 'short-task',
    });
    // No Job was tried before the namespace was in Git (it would be a 403: its RoleBinding comes
    // with it); then the RoleBinding from Git allowed it.
    expect(denied().slice(before)).toEqual([]);
    expect(h.sim.store.list('jobs', 'vision')).toHaveLength(1);
  });

  it('patch mode with its component: relabels an unused node and scales the Deployment in the cluster; no 403', async () => {
    await install(path.join(INSTALL, 'components/patch-mode'));
    h.push({ 'policies/test.yaml': policy('patch', 'gpuops') }, 'Patch mode, gpuops engine');
    // The engine changed: the placement PR is rebuilt without the HPA; merged and synced. The
    // pools PR binds gpuops-scale in the algorithm namespaces (patch mode's scale grant is per
    // namespace, never cluster-wide); merged and synced too.
    await h.pass();
    expect(h.file('gpuops/prod/pools', 'clusters/prod/namespaces/algorithms.yaml')).toContain(
      'name: gpuops-scale',
    );
    h.merge('gpuops/prod/placement/serve');
    h.merge('gpuops/prod/pools');
    expect((await h.sync()).errors).toEqual([]);
    expect(h.sim.store.get('rolebindings', 'algorithms', 'gpuops-scale')).toBeDefined();
    h.load.setLoad('serve', 100);
    h.setMetrics(
      new DcgmScrapeSource({
        targets: ['gpu-a', 'gpu-s', 'gpu-u'].map((n) => ({ url: `${h.sim.url}/dcgm/${n}/metrics`, node: n })),
        now: () => h.sim.clock.now(),
      }),
    );
    const before = denied().length;
    const pass = await h.pass();
    const d = pass.plan.scaling.find((x) => x.algorithm === 'serve')!;
    expect([d.action, d.nodes]).toEqual(['relabel', ['gpu-u']]);
    expect(h.sim.store.get('nodes', undefined, 'gpu-u')?.metadata.labels?.['gpuops.dev/pool']).toBe(
      'short-task',
    );
    expect(h.sim.store.get('deployments', 'algorithms', 'serve')?.spec.replicas).toBe(2);
    // The simulator keeps no ownership of Update writes (sim/apply.ts): the entry kube-apiserver
    // writes for the scale patch is put beside the GitOps applier's, as after its apply of the same
    // replicas (real-cluster/replicas-handover.test.ts). The next pass hands it over: a read and a
    // JSON patch of the Deployment itself, in the algorithm namespace.
    const dep = h.sim.store.get('deployments', 'algorithms', 'serve')!;
    const entries = (dep.metadata.managedFields ?? []) as { manager: string; fieldsV1?: unknown }[];
    expect(entries.some((e) => JSON.stringify(e.fieldsV1).includes('"f:replicas"'))).toBe(true);
    dep.metadata.managedFields = [...entries, gpuopsScaleEntry()];
    h.sim.store.update('deployments', dep);
    expect((await h.pass()).patches).toContain(
      'Deployment algorithms/serve: ownership of spec.replicas handed to Git’s applier',
    );
    expect(h.sim.store.get('deployments', 'algorithms', 'serve')?.metadata.managedFields).toEqual(entries);
    expect(denied().slice(before)).toEqual([]);
  });

  it('leader election: the Lease in gpuops-system is read, created and renewed', async () => {
    const lease = kubeLeaseApi(h.gpuopsKc, 'gpuops-system', 'gpuops');
    expect(await lease.read()).toBeNull();
    const at = new Date().toISOString();
    const spec = {
      holderIdentity: 'gpuops-0',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: at,
      renewTime: at,
    };
    expect(await lease.create(spec)).toBe(true);
    const got = await lease.read();
    expect(got?.holderIdentity).toBe('gpuops-0');
    expect(await lease.replace({ ...spec, renewTime: new Date().toISOString() }, got!.resourceVersion)).toBe(
      true,
    );
  });

  it('gpuops run: the cluster cache lists and watches every resource a pass reads; no 403', async () => {
    const deniedBefore = denied().length;
    const cache = createClusterCache({
      kc: h.gpuopsKc,
      client: createKubeClient(h.gpuopsKc),
      backoff: { baseMs: 20, maxMs: 200 },
    });
    cache.start();
    try {
      expect(await cache.waitForSync(20)).toBe(true);
      await until('every watch stream open', () => cache.state().every((s) => s.connected));
      expect(cache.snapshot(new Date()).nodes.length).toBeGreaterThan(0);
    } finally {
      await cache.stop();
    }
    expect(denied().slice(deniedBefore)).toEqual([]);
  });

  it('model cache fills: one list of Jobs in the algorithm namespace, as the ServiceAccount; no 403', async () => {
    const before = denied().length;
    const alg = {
      name: 'bert',
      namespace: 'algorithms',
      spec: {
        image: 'x:1',
        resources: { gpus: 1 },
        modelCache: { claimName: 'm', mountPath: '/m', fill: { image: 'f:1' } },
      },
    } as unknown as ResolvedAlgorithm;
    const name = modelCacheFillName(alg.name, alg.spec.modelCache)!;
    // As gpuops writes it: with the fill labels the list selects by.
    const labels = `{app.kubernetes.io/managed-by: gpuops, gpuops.dev/model-cache-fill: ${name}}`;
    const files = new Map([
      [modelCacheFilePath('prod', 'bert'), `kind: Job\nmetadata: {name: ${name}, labels: ${labels}}\n`],
    ]);
    const git = readGitModel('prod', files, 'gpuops.dev/pool');
    const states = await readModelCacheFills(createKubeJobApi(h.gpuopsKc), [alg], git, parseGenerated);
    expect(Object.fromEntries(states)).toEqual({ [`algorithms/${name}`]: 'Absent' });
    expect(denied().slice(before)).toEqual([]);
  });

  it('every verb the install grants was used, and nothing was denied', () => {
    expect(denied().filter((r) => r.resource !== 'jobs' || r.namespace !== 'kube-system')).toEqual([]);
    const used = h.sim.rbac!.records().filter((r) => r.allowed && r.username === SA_USER);
    const unused: string[] = [];
    const check = (role: KubeObject, namespace: string | null) => {
      for (const rule of (role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[]) ??
        [])
        for (const group of rule.apiGroups)
          for (const resource of rule.resources)
            for (const verb of rule.verbs) {
              const hit = used.some(
                (r: AccessRecord) =>
                  (namespace === null || r.namespace === namespace) &&
                  ruleAllows(
                    { apiGroups: [group], resources: [resource], verbs: [verb] },
                    { ...r, name: '' },
                  ),
              );
              if (!hit) unused.push(`${role.metadata.name}: ${verb} ${group}/${resource}`);
            }
    };
    const byName = (kind: string, name: string) =>
      installed.find((o) => o.kind === kind && o.metadata.name === name)!;
    for (const b of installed.filter((o) => o.kind === 'ClusterRoleBinding'))
      check(byName('ClusterRole', (b.roleRef as { name: string }).name), null);
    for (const b of installed.filter((o) => o.kind === 'RoleBinding'))
      check(byName('Role', (b.roleRef as { name: string }).name), b.metadata.namespace!);
    // The benchmark and scale ClusterRoles are bound by the RoleBindings gpuops writes into Git per namespace.
    check(byName('ClusterRole', 'gpuops-benchmark'), 'algorithms');
    check(byName('ClusterRole', 'gpuops-scale'), 'algorithms');
    expect(unused).toEqual([]);
    // The check bites: a verb no pass used (delete on Nodes), or a Job verb outside its namespace.
    const extra = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'too-much' },
      rules: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list', 'delete'] }],
    };
    check(extra, null);
    check(byName('ClusterRole', 'gpuops-benchmark'), 'kube-system');
    expect(unused).toEqual([
      'too-much: delete /nodes',
      'gpuops-benchmark: create batch/jobs',
      'gpuops-benchmark: get batch/jobs',
      'gpuops-benchmark: list batch/jobs',
      'gpuops-benchmark: delete batch/jobs',
    ]);
  });
});
