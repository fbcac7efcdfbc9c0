/**
 * The Argo CD-like applier against the simulated cluster over HTTP (cluster-mixed fixture), read
 * back through @kubernetes/client-node.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGitOpsFolder } from '../../src/gitops-apply/index.js';
import { renderNamespaceFile } from '../../src/manifests/namespaces.js';
import { renderYaml } from '../../src/manifests/yaml.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const fixture = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));

let sim: SimCluster;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let work: string;
let folder: string;

const MANAGED = { 'app.kubernetes.io/managed-by': 'gpuops' };

function nodeManifest(name: string, pool: string, extraLabels: Record<string, string> = {}): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: {
        'argocd.argoproj.io/sync-options': 'ServerSideApply=true,Prune=false,Delete=false',
        'argocd.argoproj.io/sync-wave': '-1',
      },
      labels: { ...MANAGED, 'gpuops.dev/pool': pool, ...extraLabels },
    },
    spec: {
      taints: [
        { effect: 'NoSchedule', key: 'gpuops.dev/pool', value: pool },
        { effect: 'NoSchedule', key: 'nvidia.com/gpu', value: 'present' },
      ],
    },
  };
}

function deployment(name: string, replicas: number, pool = 'short-task'): object {
  const labels = { ...MANAGED, 'app.kubernetes.io/name': name, 'gpuops.dev/algorithm': name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'vision', annotations: { 'argocd.argoproj.io/sync-wave': '0' }, labels },
    spec: {
      replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': name, 'gpuops.dev/algorithm': name } },
      template: {
        metadata: { labels: { ...labels, 'gpuops.dev/pool': pool } },
        spec: {
          containers: [
            {
              name,
              image: 'registry.example.com/ml/x:1',
              resources: { limits: { 'nvidia.com/gpu': '1' }, requests: { 'nvidia.com/gpu': '1' } },
            },
          ],
          nodeSelector: { 'gpuops.dev/pool': pool },
        },
      },
    },
  };
}

function hpa(name: string): object {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'vision', labels: { ...MANAGED, 'gpuops.dev/algorithm': name } },
    spec: {
      minReplicas: 1,
      maxReplicas: 4,
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      metrics: [
        {
          type: 'Pods',
          pods: {
            metric: { name: 'DCGM_FI_DEV_GPU_UTIL' },
            target: { type: 'AverageValue', averageValue: '60' },
          },
        },
      ],
    },
  };
}

function write(rel: string, docs: unknown): void {
  const file = path.join(folder, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, renderYaml(docs));
}

/**
 * Writes the folder gpuops would write: namespaces/, nodes/, one folder per algorithm, plain
 * manifests and no kustomization (Argo CD reads it as a directory with recurse).
 */
function writeFolder(opts: {
  nodes: Record<string, string>;
  algorithms: Record<string, number>;
  hpas?: string[];
}): void {
  rmSync(folder, { recursive: true, force: true });
  const ns = renderNamespaceFile('prod', 'vision');
  mkdirSync(path.join(folder, 'namespaces'), { recursive: true });
  writeFileSync(path.join(folder, 'namespaces/vision.yaml'), ns.content);
  for (const [n, pool] of Object.entries(opts.nodes)) write(`nodes/${n}.yaml`, nodeManifest(n, pool));
  for (const [a, replicas] of Object.entries(opts.algorithms)) {
    write(`algorithms/${a}/deployment.yaml`, deployment(a, replicas));
    if (opts.hpas?.includes(a)) write(`algorithms/${a}/hpa.yaml`, hpa(a));
  }
}

const sync = () => applyGitOpsFolder(kc, folder, { fieldManager: 'argocd-controller' });

/** Discovery requests (`GET /api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`) served so far, by path. */
function discovery(): Record<string, number> {
  return Object.fromEntries(
    Object.entries(sim.requests().byPath).filter(([k]) => /^GET \/(api|apis)(\/v1|\/[^/]+\/[^/]+)?$/.test(k)),
  );
}

async function deploymentNames(ns: string): Promise<string[]> {
  const list = await apps.listNamespacedDeployment({ namespace: ns });
  return list.items.map((d) => d.metadata!.name!).sort();
}

beforeAll(async () => {
  // namespaceLifecycle: as a real API server, nothing is created in a namespace that does not exist.
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    namespaceLifecycle: true,
  });
  kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-apply-'));
  folder = path.join(work, 'clusters', 'prod');
});

afterAll(async () => {
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

describe('applyGitOpsFolder against the simulated cluster', () => {
  it('labels an existing Node from a partial manifest, keeping its other labels, and creates Deployments', async () => {
    const before = await core.readNode({ name: 'gpu-a100-01' });
    expect(before.metadata?.labels?.['gpuops.dev/pool']).toBeUndefined();
    writeFolder({
      nodes: { 'gpu-a100-01': 'test', 'gpu-t4-01': 'short-task' },
      algorithms: { 'resnet50-infer': 2, 'bert-train': 1 },
      hpas: ['resnet50-infer'],
    });

    const s = await sync();

    expect(s.errors).toEqual([]);
    // Discovery: each group version of the folder once (Namespace and Node share v1), and batch/v1
    // for the prune's list of the Jobs it applied (model cache fills).
    expect(discovery()).toEqual({
      'GET /api/v1': 1,
      'GET /apis/apps/v1': 1,
      'GET /apis/autoscaling/v2': 1,
      'GET /apis/batch/v1': 1,
      'GET /apis/rbac.authorization.k8s.io/v1': 1,
    });
    // The Namespace from Git first (wave -2), Nodes (wave -1) before wave 0; within a wave by kind.
    expect(s.applied.map((a) => `${a.wave} ${a.kind} ${a.name} ${a.result}`)).toEqual([
      '-2 Namespace vision created',
      '-2 RoleBinding gpuops-benchmark created',
      '-1 Node gpu-a100-01 configured',
      '-1 Node gpu-t4-01 configured',
      '0 Deployment bert-train created',
      '0 Deployment resnet50-infer created',
      '0 HorizontalPodAutoscaler resnet50-infer created',
    ]);
    const node = await core.readNode({ name: 'gpu-a100-01' });
    expect(node.metadata?.labels?.['gpuops.dev/pool']).toBe('test');
    expect(node.metadata?.labels?.['kubernetes.io/hostname']).toBe('gpu-a100-01');
    expect(node.metadata?.labels?.['kubernetes.io/arch']).toBe('amd64');
    expect(node.metadata?.labels?.['nvidia.com/gpu.product']).toBe(
      before.metadata?.labels?.['nvidia.com/gpu.product'],
    );
    expect(node.spec?.taints?.map((t) => `${t.key}=${t.value}:${t.effect}`).sort()).toEqual([
      'gpuops.dev/pool=test:NoSchedule',
      'nvidia.com/gpu=present:NoSchedule',
    ]);
    // A partial apply never touches status: capacity stays as the kubelet reported it.
    expect(node.status?.capacity).toEqual(before.status?.capacity);
    expect(node.metadata?.annotations?.['argocd.argoproj.io/tracking-id']).toBe(
      'gpuops-prod:/Node:/gpu-a100-01',
    );
    expect(await deploymentNames('vision')).toEqual(['bert-train', 'resnet50-infer']);
    const d = await apps.readNamespacedDeployment({ name: 'resnet50-infer', namespace: 'vision' });
    expect(d.spec?.replicas).toBe(2);
  });

  it('changes nothing when synced again (every apply is a no-op), and asks no discovery again', async () => {
    const rv = (await core.readNode({ name: 'gpu-a100-01' })).metadata?.resourceVersion;
    const known = discovery();
    const s = await sync();
    expect(discovery()).toEqual(known); // the kubeconfig's object API keeps what it discovered
    expect(s.errors).toEqual([]);
    expect(new Set(s.applied.map((a) => a.result))).toEqual(new Set(['unchanged']));
    expect(s.pruned).toEqual([]);
    expect((await core.readNode({ name: 'gpu-a100-01' })).metadata?.resourceVersion).toBe(rv);
  });

  it('scales a Deployment when replicas change in the file, and relabels a Node when its pool changes', async () => {
    writeFolder({
      nodes: { 'gpu-a100-01': 'long-task', 'gpu-t4-01': 'short-task' },
      algorithms: { 'resnet50-infer': 4, 'bert-train': 1 },
      hpas: ['resnet50-infer'],
    });
    const s = await sync();
    expect(s.errors).toEqual([]);
    const changed = s.applied.filter((a) => a.result !== 'unchanged').map((a) => `${a.kind} ${a.name}`);
    expect(changed).toEqual(['Node gpu-a100-01', 'Deployment resnet50-infer']);
    const d = await apps.readNamespacedDeployment({ name: 'resnet50-infer', namespace: 'vision' });
    expect(d.spec?.replicas).toBe(4);
    const node = await core.readNode({ name: 'gpu-a100-01' });
    expect(node.metadata?.labels?.['gpuops.dev/pool']).toBe('long-task');
    expect(node.metadata?.labels?.['kubernetes.io/hostname']).toBe('gpu-a100-01');
  });

  it('prunes the Deployment and HPA of a removed algorithm, never an unmanaged Deployment or a Node', async () => {
    await apps.createNamespacedDeployment({
      namespace: 'vision',
      body: {
        metadata: { name: 'hand-made', labels: { app: 'hand-made' } },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'hand-made' } },
          template: {
            metadata: { labels: { app: 'hand-made' } },
            spec: { containers: [{ name: 'c', image: 'x' }] },
          },
        },
      },
    });
    // resnet50-infer removed from Git; gpu-t4-01's node manifest removed too.
    writeFolder({ nodes: { 'gpu-a100-01': 'long-task' }, algorithms: { 'bert-train': 1 } });

    const s = await sync();

    expect(s.errors).toEqual([]);
    expect(s.pruned.map((p) => `${p.kind} ${p.namespace}/${p.name}`).sort()).toEqual([
      'Deployment vision/resnet50-infer',
      'HorizontalPodAutoscaler vision/resnet50-infer',
    ]);
    expect(await deploymentNames('vision')).toEqual(['bert-train', 'hand-made']);
    const hpas = await kc
      .makeApiClient(k8s.AutoscalingV2Api)
      .listNamespacedHorizontalPodAutoscaler({ namespace: 'vision' });
    expect(hpas.items).toEqual([]);
    // The Node whose manifest left Git stays, with its last labels (Prune=false, Delete=false).
    const t4 = await core.readNode({ name: 'gpu-t4-01' });
    expect(t4.metadata?.labels?.['gpuops.dev/pool']).toBe('short-task');
  });

  it('prunes the pre-pull DaemonSet when it leaves Git (policy pools.prePull turned off)', async () => {
    const prePull = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'gpuops-prepull', namespace: 'vision', labels: MANAGED },
      spec: {
        selector: { matchLabels: { app: 'gpuops-prepull' } },
        template: {
          metadata: { labels: { app: 'gpuops-prepull' } },
          spec: { containers: [{ name: 'pause', image: 'registry.k8s.io/pause:3.10' }] },
        },
      },
    };
    const base = { nodes: { 'gpu-a100-01': 'long-task' }, algorithms: { 'bert-train': 1 } };
    writeFolder(base);
    write('pools/prepull.yaml', prePull);
    expect((await sync()).errors).toEqual([]);
    const daemonSets = async () =>
      (await apps.listNamespacedDaemonSet({ namespace: 'vision' })).items.map((d) => d.metadata?.name);
    expect(await daemonSets()).toEqual(['gpuops-prepull']);

    writeFolder(base);
    const s = await sync();

    expect(s.pruned.map((p) => `${p.kind} ${p.namespace}/${p.name}`)).toEqual([
      'DaemonSet vision/gpuops-prepull',
    ]);
    expect(await daemonSets()).toEqual([]);
  });

  it("prunes a fill Job it applied when it leaves Git, never gpuops's own benchmark Job beside it", async () => {
    const job = (name: string) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: 'vision', labels: MANAGED },
      spec: {
        template: {
          spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'registry.example.com/f:1' }] },
        },
      },
    });
    const base = { nodes: { 'gpu-a100-01': 'long-task' }, algorithms: { 'bert-train': 1 } };
    writeFolder(base);
    write('algorithms/bert-train/model-cache-fill.yaml', job('bert-train-model-cache-aaaa1111'));
    expect((await sync()).errors).toEqual([]);
    // A benchmark Job: created by gpuops through the API, managed by gpuops, never in Git.
    await kc
      .makeApiClient(k8s.BatchV1Api)
      .createNamespacedJob({ namespace: 'vision', body: job('bert-train-bench-0123abcd-1') });
    const jobs = async () =>
      (await kc.makeApiClient(k8s.BatchV1Api).listNamespacedJob({ namespace: 'vision' })).items
        .map((j) => j.metadata?.name)
        .sort();
    expect(await jobs()).toEqual(['bert-train-bench-0123abcd-1', 'bert-train-model-cache-aaaa1111']);

    writeFolder(base);
    write('algorithms/bert-train/model-cache-fill.yaml', job('bert-train-model-cache-bbbb2222'));
    const s = await sync();

    expect(s.pruned.map((p) => `${p.kind} ${p.namespace}/${p.name}`)).toEqual([
      'Job vision/bert-train-model-cache-aaaa1111',
    ]);
    expect(await jobs()).toEqual(['bert-train-bench-0123abcd-1', 'bert-train-model-cache-bbbb2222']);
  });

  it('reports a partial Node for a missing node, creates no Node, and stops before later waves', async () => {
    writeFolder({
      nodes: { 'gpu-a100-01': 'long-task', 'gpu-gone-99': 'unused' },
      algorithms: { whisper: 1 },
    });

    const s = await sync();

    const missing = s.errors.find((e) => e.reason === 'NodeNotFound');
    expect(missing?.file).toBe('nodes/gpu-gone-99.yaml');
    expect(missing?.line).toBe(2);
    expect(missing?.message).toMatch(/Node gpu-gone-99 does not exist/);
    await expect(core.readNode({ name: 'gpu-gone-99' })).rejects.toMatchObject({ code: 404 });
    // The wave of the failure still ran (the good Node); wave 0 did not, and nothing was pruned.
    expect(s.applied.map((a) => a.name)).toEqual(['vision', 'gpuops-benchmark', 'gpu-a100-01']);
    expect(s.skipped.map((r) => `${r.kind} ${r.name}`)).toEqual(['Deployment whisper']);
    expect(s.pruned).toEqual([]);
    expect(await deploymentNames('vision')).toEqual(['bert-train', 'hand-made']);
  });

  it('reports a bad manifest with file and line, applies the rest, and prunes nothing', async () => {
    writeFolder({ nodes: { 'gpu-a100-01': 'long-task' }, algorithms: { whisper: 1 } });
    writeFileSync(
      path.join(folder, 'algorithms/whisper/deployment.yaml'),
      '# broken by hand\napiVersion: apps/v1\nmetadata:\n  name: whisper\n  namespace: vision\n',
    );

    const s = await sync();

    expect(s.errors).toEqual([
      {
        reason: 'InvalidManifest',
        file: 'algorithms/whisper/deployment.yaml',
        line: 2,
        message: 'algorithms/whisper/deployment.yaml:2: kind is required',
      },
    ]);
    expect(s.applied.map((a) => a.name)).toEqual(['vision', 'gpuops-benchmark', 'gpu-a100-01']);
    // bert-train left Git, but a folder that could not be read in full never prunes.
    expect(s.pruned).toEqual([]);
    expect(await deploymentNames('vision')).toEqual(['bert-train', 'hand-made']);
  });

  it('reads a leftover kustomization.yaml as an object, as Argo CD’s directory source does, and fails before pruning', async () => {
    writeFolder({ nodes: { 'gpu-a100-01': 'long-task' }, algorithms: {} });
    write('kustomization.yaml', {
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['nodes'],
    });
    const s = await sync();
    expect(s.errors.map((e) => `${e.reason} ${e.file}:${e.line}`)).toEqual([
      'InvalidManifest kustomization.yaml:2',
    ]);
    expect(s.pruned).toEqual([]);
    expect(await deploymentNames('vision')).toEqual(['bert-train', 'hand-made']);
  });

  it('creates no namespace: a Deployment whose Namespace is not in Git fails (NamespaceLifecycle)', async () => {
    writeFolder({ nodes: {}, algorithms: {} });
    rmSync(path.join(folder, 'namespaces'), { recursive: true });
    write('algorithms/lost/deployment.yaml', {
      ...(deployment('lost', 1) as { metadata: object }),
      metadata: { name: 'lost', namespace: 'nowhere', labels: MANAGED },
    });
    const s = await sync();
    expect(s.errors.map((e) => `${e.reason} ${e.file}`)).toEqual([
      'ApplyFailed algorithms/lost/deployment.yaml',
    ]);
    expect(s.errors[0]!.message).toMatch(/namespaces "nowhere" not found/);
    await expect(core.readNamespace({ name: 'nowhere' })).rejects.toMatchObject({ code: 404 });
  });
});
