/**
 * The patch-mode adapter (`src/cluster/patch.ts`) against the simulated cluster over HTTP,
 * through @kubernetes/client-node. A loopback proxy in front of the simulator makes a concurrent
 * write just before chosen PATCH requests, so the API server really answers 409 Conflict.
 */
import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClusterPatcher } from '../../src/cluster/patch.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { gpuopsScaleEntry } from '../support/managed-fields.js';

const fixtures = new URL('../fixtures/cluster-mixed/', import.meta.url);
let sim: SimCluster;
let proxy: Server;
let kc: KubeConfig;
/** Path → how many more PATCHes to it get a concurrent write first. */
const interfere = new Map<string, number>();
/** Node → a taint the concurrent write adds. */
const taintOnBump = new Map<string, { key: string; value: string; effect: string }>();

function bump(path: string): void {
  const node = /^\/api\/v1\/nodes\/([^/]+)$/.exec(path);
  const dep = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)(?:\/scale)?$/.exec(path);
  const obj = node
    ? sim.store.get('nodes', undefined, node[1]!)
    : sim.store.get('deployments', dep![1]!, dep![2]!);
  obj!.metadata.annotations = { ...obj!.metadata.annotations, 'test/bumped': String(Math.random()) };
  // Another manager's taint added between gpuops's read and its write.
  const taint = node ? taintOnBump.get(node[1]!) : undefined;
  if (taint) obj!.spec = { ...obj!.spec, taints: [...(obj!.spec?.taints ?? []), taint] };
  sim.store.update(node ? 'nodes' : 'deployments', obj!);
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(new URL('nodes.json', fixtures), 'utf8')),
    pods: [],
  });
  sim.store.create('deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'resnet50-infer',
      namespace: 'default',
      labels: { 'gpuops.dev/algorithm': 'resnet50-infer' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { 'gpuops.dev/algorithm': 'resnet50-infer' } },
      template: {
        metadata: { labels: { 'gpuops.dev/algorithm': 'resnet50-infer' } },
        spec: { containers: [{ name: 'main', image: 'registry.example.com/ml/resnet50:1.4.2' }] },
      },
    },
  });
  const target = new URL(sim.url);
  proxy = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const left = interfere.get(path) ?? 0;
    if (req.method === 'PATCH' && left > 0) {
      interfere.set(path, left - 1);
      bump(path);
    }
    const up = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const port = (proxy.address() as AddressInfo).port;
  kc = new KubeConfig();
  kc.loadFromString(sim.kubeconfig({ plain: true }).replace(sim.url, `http://127.0.0.1:${port}`));
});

afterAll(async () => {
  await new Promise<void>((r) => proxy?.close(() => r()));
  await sim?.close();
});

describe('patch mode (simulated cluster)', () => {
  it('scales a Deployment through its scale subresource; a second run changes nothing', async () => {
    const patcher = createClusterPatcher(kc);
    const first = await patcher.scaleDeployment('default', 'resnet50-infer', 3);
    expect(first).toMatchObject({ ok: true, changed: true, attempts: 1 });
    expect(sim.store.get('deployments', 'default', 'resnet50-infer')!.spec.replicas).toBe(3);
    const again = await patcher.scaleDeployment('default', 'resnet50-infer', 3);
    expect(again).toMatchObject({ ok: true, changed: false, attempts: 0 });
  });

  it('re-reads and re-applies on 409 Conflict, bounded', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/resnet50-infer/scale';
    interfere.set(path, 2);
    const r = await createClusterPatcher(kc).scaleDeployment('default', 'resnet50-infer', 4);
    expect(r).toMatchObject({ ok: true, changed: true, attempts: 3 });
    const dep = sim.store.get('deployments', 'default', 'resnet50-infer')!;
    expect(dep.spec.replicas).toBe(4);
    expect(dep.metadata.annotations?.['test/bumped']).toBeDefined(); // the other writer's change is kept

    interfere.set(path, 10);
    const gaveUp = await createClusterPatcher(kc, { maxAttempts: 3 }).scaleDeployment(
      'default',
      'resnet50-infer',
      5,
    );
    expect(gaveUp).toMatchObject({ ok: false, changed: false, attempts: 3, code: 409 });
    expect(sim.store.get('deployments', 'default', 'resnet50-infer')!.spec.replicas).toBe(4);
    interfere.clear();
  });

  it('labels nodes one by one; a failing node does not stop the others', async () => {
    interfere.set('/api/v1/nodes/gpu-t4-01', 1);
    const results = await createClusterPatcher(kc).labelNodes([
      { node: 'gpu-a100-01', labels: { 'gpuops.dev/pool': 'long-task' } },
      { node: 'no-such-node', labels: { 'gpuops.dev/pool': 'long-task' } },
      { node: 'gpu-t4-01', labels: { 'gpuops.dev/pool': 'short-task' } },
    ]);
    expect(results.map((r) => [r.name, r.ok, r.changed, r.code])).toEqual([
      ['gpu-a100-01', true, true, null],
      ['no-such-node', false, false, 404],
      ['gpu-t4-01', true, true, null],
    ]);
    expect(results[2]!.attempts).toBe(2);
    expect(sim.store.get('nodes', undefined, 'gpu-a100-01')!.metadata.labels!['gpuops.dev/pool']).toBe(
      'long-task',
    );
    expect(sim.store.get('nodes', undefined, 'gpu-t4-01')!.metadata.labels!['gpuops.dev/pool']).toBe(
      'short-task',
    );
    // Other labels stay (merge patch), and removing a label works.
    expect(
      sim.store.get('nodes', undefined, 'gpu-t4-01')!.metadata.labels!['nvidia.com/gpu.product'],
    ).toBeDefined();
    const removed = await createClusterPatcher(kc).labelNodes([
      { node: 'gpu-t4-01', labels: { 'gpuops.dev/pool': null } },
    ]);
    expect(removed[0]).toMatchObject({ ok: true, changed: true });
    expect(
      sim.store.get('nodes', undefined, 'gpu-t4-01')!.metadata.labels!['gpuops.dev/pool'],
    ).toBeUndefined();
  });
  it('sets gpuops’s own taint entry: others kept, also one added between the read and the write (409, re-read)', async () => {
    const taintsOf = () =>
      (sim.store.get('nodes', undefined, 'gpu-a100-02')!.spec?.taints ?? []).map(
        (t: { key: string; value?: string; effect: string }) => `${t.key}=${t.value ?? ''}:${t.effect}`,
      );
    const before = taintsOf();
    taintOnBump.set('gpu-a100-02', { key: 'dedicated', value: 'vision', effect: 'NoExecute' });
    interfere.set('/api/v1/nodes/gpu-a100-02', 1);
    const key = 'gpuops.dev/pool';
    const patcher = createClusterPatcher(kc);
    const set = await patcher.setNodeTaint({
      node: 'gpu-a100-02',
      key,
      taint: { key, value: 'long-task', effect: 'NoSchedule' },
    });
    expect(set).toMatchObject({ ok: true, changed: true, attempts: 2 });
    expect(taintsOf()).toEqual([
      ...before,
      'dedicated=vision:NoExecute',
      'gpuops.dev/pool=long-task:NoSchedule',
    ]);
    taintOnBump.clear();
    // Moved to another pool: the one entry replaced; then removed; each time the others stay.
    await patcher.setNodeTaint({
      node: 'gpu-a100-02',
      key,
      taint: { key, value: 'test', effect: 'NoSchedule' },
    });
    expect(taintsOf()).toEqual([...before, 'dedicated=vision:NoExecute', 'gpuops.dev/pool=test:NoSchedule']);
    expect(await patcher.setNodeTaint({ node: 'gpu-a100-02', key, taint: null })).toMatchObject({
      changed: true,
    });
    expect(taintsOf()).toEqual([...before, 'dedicated=vision:NoExecute']);
    expect(await patcher.setNodeTaint({ node: 'gpu-a100-02', key, taint: null })).toMatchObject({
      ok: true,
      changed: false,
      attempts: 0,
    });
  });
});

describe('hand-over to Git’s applier (simulated cluster)', () => {
  const POOL = { 'f:metadata': { 'f:labels': { 'f:gpuops.dev/pool': {} } } };
  const flux = {
    manager: 'kustomize-controller',
    operation: 'Apply',
    apiVersion: 'v1',
    time: '2026-12-07T04:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/managed-by': {}, 'f:gpuops.dev/pool': {} } },
    },
  };
  const gpuops = {
    manager: 'gpuops',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-12-07T03:59:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: { ...POOL, 'f:spec': { 'f:taints': {} } },
  };
  const entries = () => sim.store.get('nodes', undefined, 'gpu-t4-02')!.metadata.managedFields;

  it('drops the label from gpuops’s entry alone, after a concurrent write (409, re-read); then nothing to do', async () => {
    const n = sim.store.get('nodes', undefined, 'gpu-t4-02')!;
    n.metadata.managedFields = [gpuops, flux];
    sim.store.update('nodes', n);
    interfere.set('/api/v1/nodes/gpu-t4-02', 1);
    const r = await createClusterPatcher(kc).releaseToGit('gpu-t4-02');
    expect(r).toMatchObject({ ok: true, changed: true, attempts: 2 });
    expect(r.message).toBe(
      'Node gpu-t4-02: ownership of labels gpuops.dev/pool handed to Git’s applier after 1 conflict(s)/retry(ies)',
    );
    expect(entries()).toEqual([{ ...gpuops, fieldsV1: { 'f:spec': { 'f:taints': {} } } }, flux]);
    // The other writer's change is kept.
    expect(
      sim.store.get('nodes', undefined, 'gpu-t4-02')!.metadata.annotations?.['test/bumped'],
    ).toBeDefined();
    const again = await createClusterPatcher(kc).releaseToGit('gpu-t4-02');
    expect(again).toMatchObject({ ok: true, changed: false, attempts: 0 });
    interfere.clear();
  });

  it('a Deployment: drops gpuops’s scale entry (spec.replicas) once Flux owns replicas too, after a 409; a missing one is nothing to do', async () => {
    const fluxApply = {
      manager: 'kustomize-controller',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      time: '2026-12-07T04:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:selector': {} } },
    };
    const scale = gpuopsScaleEntry({ time: '2026-12-07T03:59:00Z' });
    const d = sim.store.get('deployments', 'default', 'resnet50-infer')!;
    d.metadata.managedFields = [scale, fluxApply];
    sim.store.update('deployments', d);
    const replicas = d.spec?.replicas;
    interfere.set('/apis/apps/v1/namespaces/default/deployments/resnet50-infer', 1);
    const r = await createClusterPatcher(kc).releaseDeploymentToGit('default', 'resnet50-infer');
    expect(r).toMatchObject({ kind: 'Deployment', ok: true, changed: true, attempts: 2 });
    expect(r.message).toBe(
      'Deployment default/resnet50-infer: ownership of spec.replicas handed to Git’s applier after 1 conflict(s)/retry(ies)',
    );
    const after = sim.store.get('deployments', 'default', 'resnet50-infer')!;
    expect(after.metadata.managedFields).toEqual([fluxApply]);
    expect(after.spec?.replicas).toBe(replicas);
    expect(after.metadata.annotations?.['test/bumped']).toBeDefined();
    interfere.clear();
    expect(await createClusterPatcher(kc).releaseDeploymentToGit('default', 'resnet50-infer')).toMatchObject({
      ok: true,
      changed: false,
      attempts: 0,
    });
    expect(await createClusterPatcher(kc).releaseDeploymentToGit('default', 'no-such')).toMatchObject({
      ok: true,
      changed: false,
    });
  });
});
