/**
 * The access a change set grants (issue 29 item 1): which Namespaces and bindings its files create
 * or change, and that the pull request says so in its title and on its body's first line.
 */
import { describe, expect, it } from 'vitest';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { createdObjects, type CreatedObject } from '../../src/change-sets/created-objects.js';
import type { FileChange } from '../../src/change-sets/types.js';
import { renderNamespaceFile } from '../../src/manifests/namespaces.js';

const file = (ns: string): FileChange => renderNamespaceFile('prod', ns);
const path = (ns: string) => `clusters/prod/namespaces/${ns}.yaml`;
const ns = (name: string): CreatedObject => ({
  kind: 'Namespace',
  name,
  namespace: name,
  action: 'create',
  role: null,
  subjects: [],
});
const rb = (namespace: string, action: CreatedObject['action'] = 'create', sa = 'gpuops'): CreatedObject => ({
  kind: 'RoleBinding',
  name: 'gpuops-benchmark',
  namespace,
  action,
  role: 'ClusterRole/gpuops-benchmark',
  subjects: [`ServiceAccount gpuops-system/${sa}`],
});
const namespaceOnly = (name: string) =>
  `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n  labels: {app.kubernetes.io/managed-by: gpuops}\n`;

describe('createdObjects', () => {
  it.each<[string, FileChange[], Record<string, string>, CreatedObject[]]>([
    [
      'NewNamespaceFile: the Namespace and its RoleBinding',
      [file('vision')],
      {},
      [ns('vision'), rb('vision')],
    ],
    ['SameFileInBase: nothing', [file('vision')], { [path('vision')]: file('vision').content! }, []],
    [
      'OldLayoutHeldTheNamespaceOnly: the RoleBinding is new',
      [file('vision')],
      { [path('vision')]: namespaceOnly('vision') },
      [rb('vision')],
    ],
    [
      'TheBindingsSubjectChanges: a changed grant',
      [file('vision')],
      { [path('vision')]: file('vision').content!.replace('name: gpuops\n', 'name: other\n') },
      [rb('vision', 'change')],
    ],
    [
      'OnlyAnAnnotationChanges: no change of grant',
      [file('vision')],
      { [path('vision')]: file('vision').content!.replace('sync-wave: "-2"', 'sync-wave: "-3"') },
      [],
    ],
    [
      'TwoNamespaces: by namespace, the Namespace before its binding',
      [file('zeta'), file('alpha')],
      {},
      [ns('alpha'), rb('alpha'), ns('zeta'), rb('zeta')],
    ],
    [
      'ANodeManifest: no grant',
      [
        {
          path: 'clusters/prod/nodes/gpu-a.yaml',
          content: 'apiVersion: v1\nkind: Node\nmetadata: {name: gpu-a}\n',
        },
      ],
      {},
      [],
    ],
    [
      'ADeletion: no grant',
      [{ path: path('vision'), content: null }],
      { [path('vision')]: file('vision').content! },
      [],
    ],
    [
      'AClusterRoleBinding',
      [
        {
          path: 'clusters/prod/x.yaml',
          content:
            'kind: ClusterRoleBinding\nmetadata: {name: admin-all}\nroleRef: {kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: Group, name: everyone}]\n',
        },
      ],
      {},
      [
        {
          kind: 'ClusterRoleBinding',
          name: 'admin-all',
          namespace: null,
          action: 'create',
          role: 'ClusterRole/cluster-admin',
          subjects: ['Group everyone'],
        },
      ],
    ],
  ])('%s', (_name, files, current, want) => {
    expect(createdObjects(files, new Map(Object.entries(current)))).toEqual(want);
  });
});

describe('a pull request that creates a Namespace or a RoleBinding says so first', () => {
  const cs = buildChangeSet({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [file('kube-system')],
    current: new Map(),
    pools: [{ node: 'gpu-a', from: null, to: 'test', reason: 'TestPool', message: 'm' }],
  })!;

  it('in its title', () => {
    expect(cs.title).toBe(
      'gpuops(prod): create Namespace kube-system with RoleBinding gpuops-benchmark; move 1 node into test',
    );
  });

  it('on its body’s first line, then the grant in full before anything else', () => {
    const lines = cs.body.split('\n');
    expect(lines[0]).toBe(`## ${cs.title}`);
    expect(lines.slice(2, 8)).toEqual([
      '**This pull request creates access objects**: merging it lets Argo CD or Flux apply them.',
      '',
      '| change | kind | name | namespace | role | subjects |',
      '| --- | --- | --- | --- | --- | --- |',
      '| create | Namespace | kube-system | kube-system | — | — |',
      '| create | RoleBinding | gpuops-benchmark | kube-system | ClusterRole/gpuops-benchmark | ServiceAccount gpuops-system/gpuops |',
    ]);
  });

  it('the neighbour: the same pools change without a new namespace says nothing of access', () => {
    const again = buildChangeSet({
      cluster: 'prod',
      kind: 'pools',
      subject: 'pools',
      files: [file('kube-system'), { path: 'clusters/prod/nodes/gpu-a.yaml', content: 'kind: Node\n' }],
      current: new Map([[path('kube-system'), file('kube-system').content!]]),
      pools: [{ node: 'gpu-a', from: null, to: 'test', reason: 'TestPool', message: 'm' }],
    })!;
    expect(again.title).toBe('gpuops(prod): move 1 node into test');
    expect(again.body).not.toContain('access objects');
  });
});
