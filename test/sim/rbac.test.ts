/** The simulator's RBAC rules (src/sim/rbac.ts), as kube-apiserver's RBAC authorizer decides. */
import { describe, expect, it } from 'vitest';
import { authorize, forbidden, requestVerb, ruleAllows, serviceAccountUser } from '../../src/sim/rbac.js';
import { MemoryStore } from '../../src/sim/store.js';

const a = (verb: string, group: string, resource: string, namespace = '', name = '') => ({
  verb,
  group,
  resource,
  namespace,
  name,
});

describe('ruleAllows', () => {
  const rule = { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['get', 'patch'] };
  it.each([
    ['the named subresource and verb', a('patch', 'apps', 'deployments/scale'), true],
    ['not the parent resource', a('patch', 'apps', 'deployments'), false],
    ['not another verb', a('update', 'apps', 'deployments/scale'), false],
    ['not another group', a('patch', 'extensions', 'deployments/scale'), false],
  ])('%s', (_, attrs, want) => expect(ruleAllows(rule, attrs)).toBe(want));
  it.each([
    ['* matches every resource and subresource', { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, true],
    [
      '*/scale matches the scale of anything',
      { apiGroups: ['apps'], resources: ['*/scale'], verbs: ['patch'] },
      true,
    ],
    [
      'resourceNames never match an unnamed request',
      { apiGroups: ['apps'], resources: ['deployments/scale'], verbs: ['patch'], resourceNames: ['x'] },
      false,
    ],
  ])('%s', (_, r, want) => expect(ruleAllows(r, a('patch', 'apps', 'deployments/scale'))).toBe(want));
});

describe('authorize', () => {
  const store = new MemoryStore(() => new Date('2026-12-01T00:00:00Z'));
  const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}) });
  store.create('clusterroles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta('jobs'),
    rules: [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['create'] }],
  });
  store.create('rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta('jobs', 'algorithms'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'jobs' },
    subjects: [{ kind: 'ServiceAccount', name: 'gpuops', namespace: 'gpuops-system' }],
  });
  const sa = serviceAccountUser('gpuops-system', 'gpuops');
  it.each([
    [
      'a ClusterRole bound by a RoleBinding grants in that namespace',
      sa,
      a('create', 'batch', 'jobs', 'algorithms'),
      true,
    ],
    ['… and not in another one', sa, a('create', 'batch', 'jobs', 'kube-system'), false],
    ['… nor across all namespaces', sa, a('create', 'batch', 'jobs', ''), false],
    [
      'another ServiceAccount of the same name elsewhere gets nothing',
      serviceAccountUser('other', 'gpuops'),
      a('create', 'batch', 'jobs', 'algorithms'),
      false,
    ],
    [
      'system:masters may do anything',
      { username: 'admin', groups: ['system:masters'] },
      a('delete', '', 'nodes'),
      true,
    ],
  ])('%s', (_, user, attrs, want) => expect(authorize(store, user, attrs)).toBe(want));
});

describe('request verbs and the 403 message', () => {
  it.each([
    ['GET', '/api/v1/nodes', false, 'list'],
    ['GET', '/api/v1/nodes?watch=true', false, 'watch'],
    ['GET', '/api/v1/nodes/a', true, 'get'],
    ['POST', '/apis/batch/v1/namespaces/x/jobs', false, 'create'],
    ['PUT', '/x', true, 'update'],
    ['PATCH', '/x', true, 'patch'],
    ['DELETE', '/x', true, 'delete'],
    ['DELETE', '/x', false, 'deletecollection'],
  ])('%s %s → %s', (method, url, named, want) =>
    expect(requestVerb(method, new URL(url, 'http://h'), named)).toBe(want),
  );
  it('words a cluster-scoped denial as kube-apiserver does', () => {
    const e = forbidden(serviceAccountUser('s', 'g'), a('patch', '', 'nodes', '', 'gpu-a'));
    expect([e.code, e.reason, e.message]).toEqual([
      403,
      'Forbidden',
      'nodes "gpu-a" is forbidden: User "system:serviceaccount:s:g" cannot patch resource "nodes" in API group "" at the cluster scope',
    ]);
  });
});
