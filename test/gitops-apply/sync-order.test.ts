import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readKustomizeTree } from '../../src/gitops-apply/kustomize-tree.js';
import { sortForSync, syncOptions, syncWave, type WavedManifest } from '../../src/gitops-apply/sync-order.js';
import type { KubeObject } from '../../src/cluster/object.js';

function obj(kind: string, name: string, wave?: string, namespace?: string): KubeObject {
  return {
    apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    metadata: {
      name,
      ...(namespace ? { namespace } : {}),
      ...(wave !== undefined ? { annotations: { 'argocd.argoproj.io/sync-wave': wave } } : {}),
    },
  };
}

describe('syncWave', () => {
  it.each([
    ['no annotation is wave 0', undefined, { wave: 0 }],
    ['negative wave', '-1', { wave: -1 }],
    ['explicit plus sign', '+5', { wave: 5 }],
    ['surrounding spaces', ' 3 ', { wave: 3 }],
    ['empty string is wave 0', '', { wave: 0 }],
  ])('%s', (_name, raw, want) => {
    expect(syncWave(obj('Node', 'n', raw))).toEqual(want);
  });

  it.each([
    ['a word', 'early'],
    ['a fraction', '1.5'],
  ])('rejects %s', (_name, raw) => {
    expect(syncWave(obj('Node', 'n', raw))).toEqual({
      error: `argocd.argoproj.io/sync-wave: must be an integer, got ${JSON.stringify(raw)}`,
    });
  });
});

describe('syncOptions', () => {
  it('reads comma- and semicolon-separated options', () => {
    const o = syncOptions({
      'argocd.argoproj.io/sync-options': 'ServerSideApply=true, Prune=false;Delete=false',
    });
    expect(Object.fromEntries(o)).toEqual({ ServerSideApply: 'true', Prune: 'false', Delete: 'false' });
  });
});

describe('sortForSync', () => {
  const waved = (o: KubeObject): WavedManifest => ({
    file: 'f.yaml',
    line: 1,
    object: o,
    wave: 'wave' in (syncWave(o) as object) ? (syncWave(o) as { wave: number }).wave : 0,
  });
  const order = (items: KubeObject[]) =>
    sortForSync(items.map(waved)).map((i) => `${i.wave} ${i.object.kind} ${i.object.metadata.name}`);

  it('lower waves first, whatever the kind', () => {
    expect(order([obj('Namespace', 'ns', '1'), obj('Node', 'gpu-1', '-1'), obj('Deployment', 'd')])).toEqual([
      '-1 Node gpu-1',
      '0 Deployment d',
      '1 Namespace ns',
    ]);
  });

  it('within a wave: Namespace first, Deployment before HPA, unknown kinds last, then by name', () => {
    const hpa: KubeObject = { ...obj('HorizontalPodAutoscaler', 'a'), apiVersion: 'autoscaling/v2' };
    expect(
      order([
        obj('Node', 'b'),
        hpa,
        obj('Deployment', 'z'),
        obj('Deployment', 'a'),
        obj('Namespace', 'x'),
        obj('Node', 'a'),
      ]),
    ).toEqual([
      '0 Namespace x',
      '0 Deployment a',
      '0 Deployment z',
      '0 HorizontalPodAutoscaler a',
      '0 Node a',
      '0 Node b',
    ]);
  });
});

describe('readKustomizeTree', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-tree-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };

  it('follows files and folders, applies the outer namespace, reads YAML 1.1 and reports bad documents', () => {
    write('kustomization.yaml', 'namespace: ml\nresources:\n  - app\n  - nodes.yaml\n');
    write('app/kustomization.yml', 'namespace: ignored\nresources: [deploy.yaml]\n');
    write(
      'app/deploy.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  labels: {flag: "on"}\n---\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, labels: {x: on}}\n',
    );
    write('nodes.yaml', '# a partial Node\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n');
    const t = readKustomizeTree(dir);
    expect(
      t.manifests.map((m) => `${m.file}:${m.line} ${m.object.kind} ${m.object.metadata.namespace ?? '-'}`),
    ).toEqual(['app/deploy.yaml:1 Deployment ml', 'nodes.yaml:2 Node -']);
    // YAML 1.1 reads an unquoted `on` as true, which is not a valid label value.
    expect(t.errors).toEqual([
      {
        reason: 'InvalidManifest',
        file: 'app/deploy.yaml',
        line: 8,
        message:
          'app/deploy.yaml:8: metadata.labels must map strings to strings (quote values such as "true" or "-1")',
      },
    ]);
  });

  it('reports a document whose alias has no anchor, and still reads the other documents', () => {
    const alias = mkdtempSync(path.join(tmpdir(), 'gpuops-alias-'));
    try {
      writeFileSync(path.join(alias, 'kustomization.yaml'), 'resources: [a.yaml]\n');
      writeFileSync(
        path.join(alias, 'a.yaml'),
        'apiVersion: v1\nkind: Service\nmetadata: {name: s, labels: *missing}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: t}\n',
      );
      const t = readKustomizeTree(alias);
      expect(t.manifests.map((m) => `${m.file}:${m.line} ${m.object.metadata.name}`)).toEqual(['a.yaml:5 t']);
      expect(t.errors).toEqual([
        expect.objectContaining({
          reason: 'InvalidManifest',
          file: 'a.yaml',
          line: 1,
          message: expect.stringMatching(/^a\.yaml: Unresolved alias/),
        }),
      ]);
    } finally {
      rmSync(alias, { recursive: true, force: true });
    }
  });

  it('reports a folder without a kustomization and a cycle', () => {
    write('loop/kustomization.yaml', 'resources:\n  - "./"\n  - ../empty\n');
    mkdirSync(path.join(dir, 'empty'), { recursive: true });
    const t = readKustomizeTree(path.join(dir, 'loop'));
    expect(t.errors.map((e) => e.message)).toEqual([
      'kustomization.yaml: cycle: this kustomization includes itself',
      '../empty: no kustomization.yaml / kustomization.yml / Kustomization in this folder',
    ]);
  });
});
