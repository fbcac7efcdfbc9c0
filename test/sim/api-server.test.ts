/**
 * The simulated API server, driven only through @kubernetes/client-node over HTTP, on the
 * cluster-mixed fixture (13 nodes, 10 pods).
 */
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simFetch } from '../support/sim-fetch.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { until } from '../support/wait.js';

const fixture = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));

let sim: SimCluster;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let objects: k8s.KubernetesObjectApi;

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
const jsonPatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch);

/** The HTTP status of a rejected client-node call. */
async function statusOf(p: Promise<unknown>): Promise<{ code: number; reason: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { code?: number; body?: string };
    const body = JSON.parse(e.body ?? '{}') as { reason?: string };
    return { code: e.code ?? 0, reason: body.reason ?? '' };
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  sim = await startSimCluster({ nodes: fixture('nodes.json'), pods: fixture('pods.json') });
  kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  objects = k8s.KubernetesObjectApi.makeApiClient(kc);
});

afterAll(async () => {
  await sim.close();
});

describe('loading dumps', () => {
  it('keeps every fixture pod as dumped, with no load warning', async () => {
    const pods = await core.listPodForAllNamespaces();
    expect(pods.items).toHaveLength(10);
    const onH100 = pods.items.filter((p) => p.spec?.nodeName === 'gpu-h100-01').map((p) => p.metadata?.name);
    expect(onH100).toEqual(['nvidia-dcgm-exporter-0004']);
    expect(sim.loadErrors).toEqual([]);
  });

  it('keeps status and uid as dumped', async () => {
    const node = await core.readNode({ name: 'gpu-t4-05' });
    expect(node.status?.allocatable?.['nvidia.com/gpu']).toBe('0');
    expect(node.status?.capacity?.['nvidia.com/gpu']).toBe('4');
    const pod = await core.readNamespacedPod({ name: 'llm-finetune-0', namespace: 'research' });
    expect(pod.metadata?.uid).toBe('95c8c046-0452-c408-153b-0d978088a9fd');
    expect(pod.status?.phase).toBe('Running');
  });
});

describe('list', () => {
  it('pages nodes two at a time in name order with an opaque continue token', async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    const before = sim.requests().byVerb.list ?? 0;
    do {
      const page = await core.listNode({ limit: 2, _continue: token });
      expect(page.items.length).toBeLessThanOrEqual(2);
      names.push(...page.items.map((n) => n.metadata!.name!));
      token = page.metadata?._continue || undefined;
      pages++;
    } while (token);
    expect(pages).toBe(7);
    expect(sim.requests().byVerb.list! - before).toBe(7);
    expect(names).toHaveLength(13);
    expect(names).toEqual([...names].sort());
    expect(names[0]).toBe('gpu-a100-01');
    expect(names[12]).toBe('ip-10-0-1-12.ec2.internal');
  });

  it('reports remainingItemCount and a resourceVersion on the List', async () => {
    const page = await core.listNode({ limit: 5 });
    expect(page.metadata?.remainingItemCount).toBe(8);
    expect(Number(page.metadata?.resourceVersion)).toBeGreaterThan(0);
  });

  it('rejects a forged continue token with 400', async () => {
    expect(await statusOf(core.listNode({ limit: 2, _continue: 'not-a-token' }))).toEqual({
      code: 400,
      reason: 'BadRequest',
    });
  });

  it.each([
    [
      'equality',
      'nvidia.com/gpu.product=Tesla-T4',
      ['gpu-t4-01', 'gpu-t4-02', 'gpu-t4-03', 'gpu-t4-04', 'gpu-t4-05'],
    ],
    ['double equals', 'nvidia.com/gpu.product==NVIDIA-H100-80GB-HBM3', ['gpu-h100-01', 'gpu-h100-02']],
    ['set in', 'nvidia.com/gpu.product in (NVIDIA-H100-80GB-HBM3)', ['gpu-h100-01', 'gpu-h100-02']],
    ['not exists', '!nvidia.com/gpu.product', ['ip-10-0-1-11.ec2.internal', 'ip-10-0-1-12.ec2.internal']],
    [
      'exists and inequality',
      'nvidia.com/gpu.present,nvidia.com/gpu.family!=turing,nvidia.com/gpu.family notin (ampere)',
      ['gpu-h100-01', 'gpu-h100-02'],
    ],
  ])('selects nodes by label: %s', async (_name, selector, expected) => {
    const list = await core.listNode({ labelSelector: selector });
    expect(list.items.map((n) => n.metadata!.name)).toEqual(expected);
  });

  it('selects pods by field: node name, phase, unbound, namespace', async () => {
    const onT402 = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=gpu-t4-02' });
    expect(onT402.items.map((p) => p.metadata!.name)).toEqual([
      'nvidia-dcgm-exporter-t402',
      'video-decode-5c9d7-2xq8w',
    ]);
    const pending = await core.listPodForAllNamespaces({ fieldSelector: 'status.phase=Pending' });
    expect(pending.items.map((p) => p.metadata!.name)).toEqual(['batch-embed-x7k2p']);
    const unbound = await core.listPodForAllNamespaces({ fieldSelector: 'spec.nodeName=' });
    expect(unbound.items.map((p) => p.metadata!.name)).toEqual(['batch-embed-x7k2p']);
    const notRunning = await core.listNamespacedPod({
      namespace: 'research',
      fieldSelector: 'status.phase!=Running',
    });
    expect(notRunning.items.map((p) => p.metadata!.name)).toEqual(['batch-embed-x7k2p']);
    const media = await core.listNamespacedPod({ namespace: 'media' });
    expect(media.items.map((p) => p.metadata!.name)).toEqual(['video-decode-5c9d7-2xq8w']);
  });

  it('rejects a field the API server does not support with 400', async () => {
    expect(await statusOf(core.listPodForAllNamespaces({ fieldSelector: 'spec.priority=1' }))).toEqual({
      code: 400,
      reason: 'BadRequest',
    });
  });
});

describe('writes', () => {
  it('merge-patches node labels, bumping resourceVersion and keeping other labels', async () => {
    const before = await core.readNode({ name: 'gpu-t4-01' });
    const after = await core.patchNode(
      {
        name: 'gpu-t4-01',
        body: { metadata: { labels: { 'gpuops.dev/pool': 'test', 'nvidia.com/gpu.family': null } } },
      },
      merge,
    );
    expect(after.metadata?.labels?.['gpuops.dev/pool']).toBe('test');
    expect(after.metadata?.labels?.['nvidia.com/gpu.family']).toBeUndefined();
    expect(after.metadata?.labels?.['nvidia.com/gpu.product']).toBe('Tesla-T4');
    expect(Number(after.metadata?.resourceVersion)).toBeGreaterThan(Number(before.metadata?.resourceVersion));
    const pool = await core.listNode({ labelSelector: 'gpuops.dev/pool=test' });
    expect(pool.items.map((n) => n.metadata!.name)).toEqual(['gpu-t4-01']);
  });

  it('answers 409 Conflict to a replace with a stale resourceVersion, and accepts the fresh one', async () => {
    const node = await core.readNode({ name: 'gpu-t4-03' });
    const stale = structuredClone(node);
    await core.patchNode({ name: 'gpu-t4-03', body: { metadata: { labels: { touched: 'yes' } } } }, merge);
    stale.metadata!.labels = { ...stale.metadata!.labels, other: 'x' };
    expect(await statusOf(core.replaceNode({ name: 'gpu-t4-03', body: stale }))).toEqual({
      code: 409,
      reason: 'Conflict',
    });
    const fresh = await core.readNode({ name: 'gpu-t4-03' });
    fresh.metadata!.labels = { ...fresh.metadata!.labels, other: 'x' };
    const replaced = await core.replaceNode({ name: 'gpu-t4-03', body: fresh });
    expect(replaced.metadata?.labels).toMatchObject({ touched: 'yes', other: 'x' });
  });

  it('applies a JSON patch with test, and rejects it when the test fails', async () => {
    const ok = await core.patchNode(
      {
        name: 'gpu-h100-02',
        body: [
          { op: 'test', path: '/spec/unschedulable', value: true },
          { op: 'remove', path: '/spec/unschedulable' },
          { op: 'add', path: '/metadata/labels/gpuops.dev~1pool', value: 'unused' },
        ],
      },
      jsonPatch,
    );
    expect(ok.spec?.unschedulable).toBeUndefined();
    expect(ok.metadata?.labels?.['gpuops.dev/pool']).toBe('unused');
    const failed = core.patchNode(
      { name: 'gpu-h100-02', body: [{ op: 'test', path: '/spec/unschedulable', value: true }] },
      jsonPatch,
    );
    expect(await statusOf(failed)).toEqual({ code: 422, reason: 'Invalid' });
  });

  it('server-side applies a partial Node (name and labels) keeping the rest, and removes a label the manager drops', async () => {
    const before = await core.readNode({ name: 'gpu-a100-02' });
    const partial = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'gpu-a100-02', labels: { 'gpuops.dev/pool': 'long-task', 'gpuops.dev/extra': 'a' } },
    };
    const applied: k8s.KubernetesObject = await objects.patch(
      partial,
      undefined,
      undefined,
      'argocd-controller',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(applied.metadata?.labels?.['gpuops.dev/pool']).toBe('long-task');
    expect(applied.metadata?.labels?.['nvidia.com/gpu.product']).toBe(
      before.metadata?.labels?.['nvidia.com/gpu.product'],
    );
    const node = await core.readNode({ name: 'gpu-a100-02' });
    expect(node.status?.allocatable?.['nvidia.com/gpu']).toBe(before.status?.allocatable?.['nvidia.com/gpu']);
    expect(node.spec?.taints).toEqual(before.spec?.taints);
    expect(node.metadata?.managedFields?.map((m) => [m.manager, m.operation])).toEqual([
      ['argocd-controller', 'Apply'],
    ]);
    const second = {
      ...partial,
      metadata: { name: 'gpu-a100-02', labels: { 'gpuops.dev/pool': 'long-task' } },
    };
    const again: k8s.KubernetesObject = await objects.patch(
      second,
      undefined,
      undefined,
      'argocd-controller',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(again.metadata?.labels?.['gpuops.dev/extra']).toBeUndefined();
    expect(again.metadata?.labels?.['kubernetes.io/hostname']).toBe('gpu-a100-02');
  });

  it('reports a conflict between two apply managers unless forced', async () => {
    const mine = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'gpu-a100-01', labels: { 'gpuops.dev/pool': 'short-task' } },
    };
    await objects.patch(
      mine,
      undefined,
      undefined,
      'argocd-controller',
      undefined,
      k8s.PatchStrategy.ServerSideApply,
    );
    const theirs = { ...mine, metadata: { ...mine.metadata, labels: { 'gpuops.dev/pool': 'unused' } } };
    const clash = objects.patch(
      theirs,
      undefined,
      undefined,
      'someone-else',
      false,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(await statusOf(clash)).toEqual({ code: 409, reason: 'Conflict' });
    const compatible = {
      ...mine,
      metadata: { ...mine.metadata, labels: { 'gpuops.dev/pool': 'short-task', other: 'x' } },
    };
    const shared: k8s.KubernetesObject = await objects.patch(
      compatible,
      undefined,
      undefined,
      'someone-else',
      false,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(shared.metadata?.labels).toMatchObject({ 'gpuops.dev/pool': 'short-task', other: 'x' });
    const forced: k8s.KubernetesObject = await objects.patch(
      theirs,
      undefined,
      undefined,
      'someone-else',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(forced.metadata?.labels?.['gpuops.dev/pool']).toBe('unused');
  });

  it('creates an object with server-side apply when it is absent (201) and lists it through the object API', async () => {
    const cm = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'applied-web', namespace: 'ssa' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'applied-web' } },
        template: {
          metadata: { labels: { app: 'applied-web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    };
    const created: k8s.KubernetesObject = await objects.patch(
      cm,
      undefined,
      undefined,
      'argocd-controller',
      true,
      k8s.PatchStrategy.ServerSideApply,
    );
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    const read = await apps.readNamespacedDeployment({ name: 'applied-web', namespace: 'ssa' });
    expect(read.spec?.replicas).toBe(2);
    expect(read.spec?.strategy?.rollingUpdate?.maxSurge).toBe('25%');
    expect(read.metadata?.generation).toBe(1);
    const ns = await core.readNamespace({ name: 'ssa' });
    expect(ns.status?.phase).toBe('Active');
  });
});

describe('deployments and the scale subresource', () => {
  const deployment = (name: string): k8s.V1Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'algorithms', labels: { 'app.kubernetes.io/managed-by': 'gpuops' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'main',
              image: 'registry.example/infer:1.0',
              resources: { limits: { 'nvidia.com/gpu': '1' } },
            },
          ],
        },
      },
    },
  });

  it('creates (201), refuses a duplicate with 409 AlreadyExists, and 404s an absent one', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace: 'algorithms',
      body: deployment('infer'),
    });
    expect(created.metadata?.generation).toBe(1);
    expect(
      await statusOf(apps.createNamespacedDeployment({ namespace: 'algorithms', body: deployment('infer') })),
    ).toEqual({
      code: 409,
      reason: 'AlreadyExists',
    });
    expect(await statusOf(apps.readNamespacedDeployment({ name: 'nope', namespace: 'algorithms' }))).toEqual({
      code: 404,
      reason: 'NotFound',
    });
  });

  it('reads and patches the scale subresource, bumping generation', async () => {
    const scale = await apps.readNamespacedDeploymentScale({ name: 'infer', namespace: 'algorithms' });
    expect(scale.kind).toBe('Scale');
    expect(scale.spec?.replicas).toBe(1);
    expect(scale.status?.selector).toBe('app=infer');
    const patched = await apps.patchNamespacedDeploymentScale(
      { name: 'infer', namespace: 'algorithms', body: { spec: { replicas: 3 } } },
      merge,
    );
    expect(patched.spec?.replicas).toBe(3);
    const d = await apps.readNamespacedDeployment({ name: 'infer', namespace: 'algorithms' });
    expect(d.spec?.replicas).toBe(3);
    expect(d.metadata?.generation).toBe(2);
    const put = await apps.replaceNamespacedDeploymentScale({
      name: 'infer',
      namespace: 'algorithms',
      body: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: {
          name: 'infer',
          namespace: 'algorithms',
          resourceVersion: patched.metadata?.resourceVersion,
        },
        spec: { replicas: 2 },
      },
    });
    expect(put.spec?.replicas).toBe(2);
    const stale = apps.replaceNamespacedDeploymentScale({
      name: 'infer',
      namespace: 'algorithms',
      body: {
        metadata: { name: 'infer', resourceVersion: patched.metadata?.resourceVersion },
        spec: { replicas: 5 },
      },
    });
    expect(await statusOf(stale)).toEqual({ code: 409, reason: 'Conflict' });
  });

  it('merges containers by name in a strategic merge patch', async () => {
    const patched = await apps.patchNamespacedDeployment(
      {
        name: 'infer',
        namespace: 'algorithms',
        body: {
          spec: {
            template: { spec: { containers: [{ name: 'main', image: 'registry.example/infer:2.0' }] } },
          },
        },
      },
      strategic,
    );
    const c = patched.spec?.template.spec?.containers;
    expect(c).toHaveLength(1);
    expect(c?.[0]?.image).toBe('registry.example/infer:2.0');
    expect(c?.[0]?.resources?.limits?.['nvidia.com/gpu']).toBe('1');
  });

  it('ignores status on the main endpoint and writes it through /status', async () => {
    const d = await apps.readNamespacedDeployment({ name: 'infer', namespace: 'algorithms' });
    d.status = { replicas: 9 };
    const replaced = await apps.replaceNamespacedDeployment({
      name: 'infer',
      namespace: 'algorithms',
      body: d,
    });
    expect(replaced.status?.replicas).toBeUndefined();
    const withStatus = await apps.patchNamespacedDeploymentStatus(
      { name: 'infer', namespace: 'algorithms', body: { status: { replicas: 2, readyReplicas: 2 } } },
      merge,
    );
    expect(withStatus.status?.readyReplicas).toBe(2);
    expect(withStatus.metadata?.generation).toBe(replaced.metadata?.generation);
  });

  it('deletes a Deployment and, by ownerReferences, its ReplicaSets', async () => {
    const d = await apps.readNamespacedDeployment({ name: 'infer', namespace: 'algorithms' });
    await apps.createNamespacedReplicaSet({
      namespace: 'algorithms',
      body: {
        metadata: {
          name: 'infer-5d8f7c',
          ownerReferences: [
            {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              name: 'infer',
              uid: d.metadata!.uid!,
              controller: true,
            },
          ],
        },
        spec: { selector: { matchLabels: { app: 'infer' } }, template: d.spec!.template },
      },
    });
    expect((await apps.listNamespacedReplicaSet({ namespace: 'algorithms' })).items).toHaveLength(1);
    await apps.deleteNamespacedDeployment({ name: 'infer', namespace: 'algorithms' });
    expect((await apps.listNamespacedReplicaSet({ namespace: 'algorithms' })).items).toHaveLength(0);
    expect(await statusOf(apps.readNamespacedDeployment({ name: 'infer', namespace: 'algorithms' }))).toEqual(
      { code: 404, reason: 'NotFound' },
    );
  });
});

describe('jobs', () => {
  it('orphans pods of a deleted Job by default (as batch/v1 does) and deletes them with Background', async () => {
    const batch = kc.makeApiClient(k8s.BatchV1Api);
    const job = (name: string): k8s.V1Job => ({
      metadata: { name },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'bench', image: 'bench:1' }] } },
      },
    });
    const podOf = (j: k8s.V1Job): k8s.V1Pod => ({
      metadata: {
        name: `${j.metadata!.name}-pod`,
        labels: { 'job-name': j.metadata!.name! },
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: j.metadata!.name!,
            uid: j.metadata!.uid!,
            controller: true,
          },
        ],
      },
      spec: { restartPolicy: 'Never', containers: [{ name: 'bench', image: 'bench:1' }] },
    });
    const a = await batch.createNamespacedJob({ namespace: 'bench', body: job('a') });
    expect(a.spec?.selector?.matchLabels).toEqual({ 'batch.kubernetes.io/controller-uid': a.metadata!.uid });
    expect(a.spec?.template.metadata?.labels?.['job-name']).toBe('a');
    expect([a.spec?.completions, a.spec?.parallelism, a.spec?.backoffLimit]).toEqual([1, 1, 6]);
    const b = await batch.createNamespacedJob({ namespace: 'bench', body: job('b') });
    const podA = await core.createNamespacedPod({ namespace: 'bench', body: podOf(a) });
    expect(podA.status?.phase).toBe('Pending');
    expect(podA.status?.qosClass).toBe('BestEffort');
    expect(podA.spec?.restartPolicy).toBe('Never');
    await core.createNamespacedPod({ namespace: 'bench', body: podOf(b) });
    await batch.deleteNamespacedJob({ name: 'a', namespace: 'bench' });
    const orphan = await core.readNamespacedPod({ name: 'a-pod', namespace: 'bench' });
    expect(orphan.metadata?.ownerReferences).toBeUndefined();
    await batch.deleteNamespacedJob({ name: 'b', namespace: 'bench', propagationPolicy: 'Background' });
    const left = await core.listNamespacedPod({ namespace: 'bench' });
    expect(left.items.map((p) => p.metadata!.name)).toEqual(['a-pod']);
  });
});

describe('pod create', () => {
  it.each([
    ['Guaranteed', { limits: { cpu: '2', memory: '4Gi', 'nvidia.com/gpu': '1' } }],
    ['Burstable', { requests: { cpu: '1' }, limits: { 'nvidia.com/gpu': '1' } }],
    ['BestEffort', { limits: { 'nvidia.com/gpu': '1' } }],
  ])('sets phase Pending and QoS class %s, ignoring a status sent by the client', async (qos, resources) => {
    const created = await core.createNamespacedPod({
      namespace: 'qos',
      body: {
        metadata: { name: qos.toLowerCase() },
        spec: { containers: [{ name: 'c', image: 'i', resources }] },
        status: { phase: 'Running' },
      },
    });
    expect(created.status).toEqual({ phase: 'Pending', qosClass: qos });
    expect(created.spec?.restartPolicy).toBe('Always');
  });
});

describe('leases', () => {
  it('creates, reads, updates with conflict detection, and deletes a Lease', async () => {
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const created = await coord.createNamespacedLease({
      namespace: 'gpuops-system',
      body: {
        metadata: { name: 'gpuops-leader' },
        spec: { holderIdentity: 'replica-a', leaseDurationSeconds: 15 },
      },
    });
    const read = await coord.readNamespacedLease({ name: 'gpuops-leader', namespace: 'gpuops-system' });
    expect(read.spec?.holderIdentity).toBe('replica-a');
    read.spec!.holderIdentity = 'replica-b';
    await coord.replaceNamespacedLease({ name: 'gpuops-leader', namespace: 'gpuops-system', body: read });
    const racing = { ...created, spec: { ...created.spec, holderIdentity: 'replica-c' } };
    expect(
      await statusOf(
        coord.replaceNamespacedLease({ name: 'gpuops-leader', namespace: 'gpuops-system', body: racing }),
      ),
    ).toEqual({
      code: 409,
      reason: 'Conflict',
    });
    await coord.deleteNamespacedLease({ name: 'gpuops-leader', namespace: 'gpuops-system' });
    expect(
      await statusOf(coord.readNamespacedLease({ name: 'gpuops-leader', namespace: 'gpuops-system' })),
    ).toEqual({
      code: 404,
      reason: 'NotFound',
    });
  });
});

describe('watch', () => {
  it('streams events for a label-selected watch from a resourceVersion, entering and leaving the selection', async () => {
    const list = await core.listNamespacedPod({ namespace: 'watched' });
    const events: [string, string, string | undefined][] = [];
    const watch = new k8s.Watch(kc);
    const req = await watch.watch(
      '/api/v1/namespaces/watched/pods',
      { resourceVersion: list.metadata?.resourceVersion, labelSelector: 'app=w' },
      (type: string, obj: k8s.V1Pod) => events.push([type, obj.metadata!.name!, obj.metadata?.labels?.step]),
      () => {},
    );
    const pod = (name: string, app: string): k8s.V1Pod => ({
      metadata: { name, labels: { app } },
      spec: { containers: [{ name: 'c', image: 'i' }] },
    });
    await core.createNamespacedPod({ namespace: 'watched', body: pod('seen', 'w') });
    await core.createNamespacedPod({ namespace: 'watched', body: pod('unseen', 'other') });
    await core.patchNamespacedPod(
      { name: 'seen', namespace: 'watched', body: { metadata: { labels: { step: '2' } } } },
      merge,
    );
    await core.deleteNamespacedPod({ name: 'seen', namespace: 'watched' });
    await core.patchNamespacedPod(
      { name: 'unseen', namespace: 'watched', body: { metadata: { labels: { app: 'w' } } } },
      merge,
    );
    await core.patchNamespacedPod(
      { name: 'unseen', namespace: 'watched', body: { metadata: { labels: { app: 'gone' } } } },
      merge,
    );
    await until('five watch events', () => events.length >= 5, 10_000, 20);
    req.abort();
    expect(events).toEqual([
      ['ADDED', 'seen', undefined],
      ['MODIFIED', 'seen', '2'],
      ['DELETED', 'seen', '2'],
      ['ADDED', 'unseen', undefined],
      ['DELETED', 'unseen', undefined],
    ]);
  });
});

describe('watch resumption', () => {
  it('starts with ADDED events for existing objects when no resourceVersion is given', async () => {
    const seen: string[] = [];
    const req = await new k8s.Watch(kc).watch(
      '/api/v1/nodes',
      { labelSelector: 'nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3' },
      (type: string, obj: k8s.V1Node) => seen.push(`${type} ${obj.metadata!.name}`),
      () => {},
    );
    await until('two watch events', () => seen.length >= 2, 10_000, 20);
    req.abort();
    expect(seen).toEqual(['ADDED gpu-h100-01', 'ADDED gpu-h100-02']);
  });

  it('answers a resourceVersion older than the kept history with a 410 Expired ERROR event', async () => {
    const sim2 = await startSimCluster({});
    try {
      const kc2 = new k8s.KubeConfig();
      kc2.loadFromString(sim2.kubeconfig());
      const core2 = kc2.makeApiClient(k8s.CoreV1Api);
      for (let i = 0; i < 10_001; i++) {
        sim2.store.create('leases', {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: `l${i}`, namespace: 'default' },
        });
      }
      await core2.createNamespace({ body: { metadata: { name: 'late' } } });
      const errors: unknown[] = [];
      const ended = new Promise<unknown>((resolve) => {
        void new k8s.Watch(kc2).watch(
          '/api/v1/namespaces',
          { resourceVersion: '1' },
          (type: string, obj: unknown) => errors.push([type, obj]),
          resolve,
        );
      });
      await ended;
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject(['ERROR', { kind: 'Status', code: 410, reason: 'Expired' }]);
    } finally {
      await sim2.close();
    }
  });
});

describe('watch faults and bookmarks', () => {
  it('sends BOOKMARK events (the current resourceVersion, no object) only to watches that ask', async () => {
    const asked: [string, unknown][] = [];
    const plain: string[] = [];
    const a = await new k8s.Watch(kc).watch(
      '/api/v1/nodes',
      { allowWatchBookmarks: true, resourceVersion: sim.store.resourceVersion() },
      (type: string, obj: unknown) => asked.push([type, obj]),
      () => {},
    );
    const b = await new k8s.Watch(kc).watch(
      '/api/v1/nodes',
      { resourceVersion: sim.store.resourceVersion() },
      (type: string) => plain.push(type),
      () => {},
    );
    await until('two open streams', () => sim.watchFaults.open() >= 2);
    expect(sim.watchFaults.bookmark()).toBe(1);
    await until('the bookmark', () => asked.length >= 1);
    a.abort();
    b.abort();
    expect(asked).toEqual([
      [
        'BOOKMARK',
        { kind: 'Node', apiVersion: 'v1', metadata: { resourceVersion: sim.store.resourceVersion() } },
      ],
    ]);
    expect(plain).toEqual([]);
  });

  it('after compaction a watch resuming from an older version gets 410; from the current one it does not', async () => {
    const old = sim.store.resourceVersion();
    await core.createNamespace({ body: { metadata: { name: 'compacted' } } });
    sim.watchFaults.compact();
    const events = (rv: string) =>
      new Promise<string[]>((resolve) => {
        const seen: string[] = [];
        void new k8s.Watch(kc)
          .watch(
            '/api/v1/namespaces',
            { resourceVersion: rv },
            (type: string) => seen.push(type),
            () => resolve(seen),
          )
          .then((req) => setTimeout(() => req.abort(), 300));
      });
    expect(await events(old)).toEqual(['ERROR']);
    expect(await events(sim.store.resourceVersion())).toEqual([]);
  });
});

describe('informer', () => {
  it('lists then watches pods through the client-node informer', async () => {
    const path = '/api/v1/namespaces/informed/pods';
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedPod({ namespace: 'informed' }));
    const added: string[] = [];
    informer.on('add', (p: k8s.V1Pod) => added.push(p.metadata!.name!));
    await core.createNamespacedPod({
      namespace: 'informed',
      body: { metadata: { name: 'before' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    });
    await informer.start();
    await core.createNamespacedPod({
      namespace: 'informed',
      body: { metadata: { name: 'after' }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    });
    await until('two informer adds', () => added.length >= 2, 10_000, 20);
    await informer.stop();
    expect(added).toEqual(['before', 'after']);
    expect(
      informer
        .list('informed')
        .map((p) => p.metadata!.name)
        .sort(),
    ).toEqual(['after', 'before']);
  });
});

describe('dry run', () => {
  it('validates a create without storing it', async () => {
    const lease = { metadata: { name: 'dry' }, spec: { holderIdentity: 'x' } };
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const out = await coord.createNamespacedLease({ namespace: 'default', body: lease, dryRun: 'All' });
    expect(out.metadata?.uid).toBeDefined();
    expect(await statusOf(coord.readNamespacedLease({ name: 'dry', namespace: 'default' }))).toEqual({
      code: 404,
      reason: 'NotFound',
    });
  });
});

describe('discovery and health', () => {
  it('serves /healthz and /version', async () => {
    expect(await (await fetch(`${sim.url}/healthz`)).text()).toBe('ok');
    const version = (await (await simFetch(sim, '/version')).json()) as { major: string };
    expect(version.major).toBe('1');
  });

  it('answers 415 to a patch in an unknown format and 405 to a method a path does not serve', async () => {
    const patch = await simFetch(sim, '/api/v1/nodes/gpu-t4-01', {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: '{"metadata":{"labels":{"x":"y"}}}',
    });
    expect(patch.status).toBe(415);
    expect(((await patch.json()) as { reason: string }).reason).toBe('UnsupportedMediaType');
    const post = await simFetch(sim, '/api/v1/nodes/gpu-t4-01', { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    const unknown = await simFetch(sim, '/apis/example.com/v1/widgets');
    expect(unknown.status).toBe(404);
  });

  it('maps kinds to resources for the object API', async () => {
    const res = await objects.list('autoscaling/v2', 'HorizontalPodAutoscaler', 'algorithms');
    expect(res.items).toEqual([]);
    await expect(objects.list('example.com/v1', 'Widget')).rejects.toThrow();
  });
});
