/**
 * What kubectl reads besides the REST endpoints, checked over HTTP without kubectl: the OpenAPI v3
 * index and group-version documents (kinds tagged with their GVK, strategic-merge keys, the
 * `fieldValidation` parameter that tells kubectl the server validates), OpenAPI v2 as JSON or 406,
 * server-side field validation, and how Secrets and Services are stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simFetch } from '../support/sim-fetch.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

let sim: SimCluster;
beforeAll(async () => {
  sim = await startSimCluster({ nodes: [], pods: [] });
});
afterAll(() => sim.close());

type Doc = {
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[] } & Record<string, unknown>>
  >;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, Record<string, unknown>> } & Record<string, unknown>
    >;
  };
};
const json = async (p: string, init: RequestInit = {}) => {
  const res = await simFetch(sim, p, init);
  return { res, body: (await res.json()) as Record<string, unknown> };
};
const send = (method: string, p: string, body: unknown, type = 'application/json') =>
  json(p, { method, headers: { 'content-type': type }, body: JSON.stringify(body) });

describe('OpenAPI documents', () => {
  it('v3 index: one URL with a hash per served group version', async () => {
    const { body } = await json('/openapi/v3');
    const paths = body.paths as Record<string, { serverRelativeURL: string }>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/batch/v1', 'apis/autoscaling/v2']),
    );
    expect(paths['apis/apps/v1']!.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
    );
    expect((await simFetch(sim, '/openapi/v3/apis/nope/v1')).status).toBe(404);
  });

  it('apps/v1: Deployment tagged with its GVK, containers merged by name, ports by containerPort, PATCH takes fieldValidation', async () => {
    const { res, body } = await json('/openapi/v3/apis/apps/v1', { headers: { accept: 'application/json' } });
    expect(res.headers.get('content-type')).toBe('application/json');
    const doc = body as unknown as Doc;
    const [, dep] = Object.entries(doc.components.schemas).find(
      ([, s]) =>
        JSON.stringify(s['x-kubernetes-group-version-kind']) ===
        JSON.stringify([{ group: 'apps', version: 'v1', kind: 'Deployment' }]),
    )!;
    expect(Object.keys(dep.properties!)).toEqual(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    const pod = doc.components.schemas['io.k8s.api.v1.PodSpec']!.properties!;
    expect(pod.containers).toMatchObject({
      type: 'array',
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
    expect(pod.tolerations!['x-kubernetes-patch-merge-key']).toBeUndefined();
    const container = doc.components.schemas['io.k8s.api.v1.Container']!.properties!;
    expect(container.ports!['x-kubernetes-patch-merge-key']).toBe('containerPort');
    expect(container.env!['x-kubernetes-patch-merge-key']).toBe('name');
    const item = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!;
    expect(item.patch!['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(item.patch!.parameters).toContainEqual(
      expect.objectContaining({ name: 'fieldValidation', in: 'query' }),
    );
    expect(doc.components.schemas['io.k8s.api.v1.Pod']).toBeUndefined(); // only what apps/v1 reaches
    expect(doc.components.schemas['io.k8s.api.v1.ObjectMeta']!.properties!.finalizers).toMatchObject({
      'x-kubernetes-patch-strategy': 'merge',
    });
  });

  it('v2: JSON when JSON is accepted; 406 when only protobuf is', async () => {
    const { body } = await json('/openapi/v2', { headers: { accept: 'application/json' } });
    expect(body.swagger).toBe('2.0');
    expect(JSON.stringify(body)).not.toContain('#/components/');
    expect((body.definitions as Record<string, unknown>)['io.k8s.api.v1.Secret']).toBeDefined();
    const pb = await simFetch(sim, '/openapi/v2', {
      headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(pb.status).toBe(406);
  });
});

describe('field validation', () => {
  const cm = (name: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    dta: { a: '1' },
    data: { b: '2' },
  });

  it('Strict: 400 naming every unknown field, nothing stored', async () => {
    const { res, body } = await send('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Strict', {
      ...cm('strict'),
      metadata: { name: 'strict', labelz: {} },
    });
    expect(res.status).toBe(400);
    expect(body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz", unknown field "dta"',
    );
    expect((await simFetch(sim, '/api/v1/namespaces/default/configmaps/strict')).status).toBe(404);
  });

  it('Warn (the default): stored, with a Warning header; Ignore: no header; nested paths name the index', async () => {
    const warn = await send('POST', '/api/v1/namespaces/default/configmaps', cm('warn'));
    expect(warn.res.status).toBe(201);
    expect(warn.res.headers.get('warning')).toBe('299 - "unknown field \\"dta\\""');
    const ignore = await send(
      'POST',
      '/api/v1/namespaces/default/configmaps?fieldValidation=Ignore',
      cm('ignore'),
    );
    expect(ignore.res.status).toBe(201);
    expect(ignore.res.headers.get('warning')).toBeNull();
    const dep = await send('POST', '/apis/apps/v1/namespaces/default/deployments?fieldValidation=Strict', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          spec: {
            containers: [
              { name: 'c', image: 'i' },
              { name: 'e', imagee: 'i' },
            ],
          },
        },
      },
    });
    expect(dep.body.message).toMatch(/unknown field "spec\.template\.spec\.containers\[1\]\.imagee"$/);
  });

  it('a strategic merge patch is checked on its result', async () => {
    const { res, body } = await send(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/ignore?fieldValidation=Strict',
      { datta: { x: '1' } },
      'application/strategic-merge-patch+json',
    );
    expect(res.status).toBe(400);
    expect(body.message).toMatch(/unknown field "datta"/);
  });
});

describe('Secrets and Services as stored', () => {
  it('stringData folds into base64 data on create and patch; type defaults to Opaque', async () => {
    const base = '/api/v1/namespaces/default/secrets';
    const created = await send('POST', base, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { a: 'x' },
    });
    expect(created.body).toMatchObject({ type: 'Opaque', data: { a: 'eA==' } });
    expect(created.body.stringData).toBeUndefined();
    const patched = await send(
      'PATCH',
      `${base}/s`,
      { stringData: { a: 'yz', b: 'é' } },
      'application/merge-patch+json',
    );
    expect(patched.body.data).toEqual({ a: 'eXo=', b: Buffer.from('é').toString('base64') });
  });

  it('data that is not base64 is refused with 400', async () => {
    const { res, body } = await send('POST', '/api/v1/namespaces/default/secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bad' },
      data: { a: 'not base64!' },
    });
    expect(res.status).toBe(400);
    expect(body.message).toMatch(/illegal base64 data in data\.a/);
  });

  it('a Service gets a cluster IP, TCP and targetPort = port; a headless one keeps None', async () => {
    const svc = (name: string, spec: object) =>
      send('POST', '/api/v1/namespaces/default/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec,
      });
    const { body } = await svc('web', { selector: { app: 'web' }, ports: [{ port: 80 }] });
    const spec = body.spec as { type: string; clusterIP: string; clusterIPs: string[]; ports: object[] };
    expect(spec.type).toBe('ClusterIP');
    expect(spec.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec.ports).toEqual([{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    const headless = await svc('db', { clusterIP: 'None', ports: [{ port: 5432, targetPort: 'pg' }] });
    expect((headless.body.spec as { clusterIP: string }).clusterIP).toBe('None');
    expect((headless.body.spec as { ports: { targetPort: unknown }[] }).ports[0]!.targetPort).toBe('pg');
  });
});
