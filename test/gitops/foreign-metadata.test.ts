/**
 * A Namespace file gpuops writes keeps the labels and annotations a person added (a Pod Security
 * `enforce` label, a team annotation): the pools change never drops them. Whatever a change does
 * remove that gpuops does not write (a person's label on a node file) the pull request says first.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildChangeSet } from '../../src/change-sets/change-set.js';
import { removedMetadata } from '../../src/change-sets/removed-metadata.js';
import { createReconcilerMemory, rememberedLookups } from '../../src/plan/memory.js';
import {
  namespaceFilePath,
  renderNamespaceFile,
  renderNamespaceFiles,
} from '../../src/manifests/namespaces.js';

const PATH = namespaceFilePath('prod', 'vision');
/** The file gpuops wrote, with a person's Pod Security label and annotation added by hand. */
const edited = renderNamespaceFile('prod', 'vision')
  .content.replace(
    '    app.kubernetes.io/managed-by: gpuops\n',
    '    app.kubernetes.io/managed-by: gpuops\n    pod-security.kubernetes.io/enforce: restricted\n',
  )
  .replace('  annotations:\n', '  annotations:\n    team.example.com/owner: vision\n');

const nsMeta = (text: string) =>
  (parse(text.split('\n---\n')[0]!) as { metadata: { labels: object; annotations: object } }).metadata;

describe('a Namespace file a person added labels to', () => {
  it('keeps the person’s label and annotation, and gpuops’s own', () => {
    expect(edited).toContain('pod-security.kubernetes.io/enforce: restricted');
    const [file] = renderNamespaceFiles('prod', ['vision'], undefined, undefined, new Map([[PATH, edited]]));
    // Before: the file was rendered afresh, the Pod Security label gone.
    const { labels, annotations } = nsMeta(file!.content);
    expect({ labels, annotations }).toEqual({
      labels: {
        'app.kubernetes.io/managed-by': 'gpuops',
        'pod-security.kubernetes.io/enforce': 'restricted',
      },
      annotations: {
        'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false',
        'argocd.argoproj.io/sync-wave': '-2',
        'kustomize.toolkit.fluxcd.io/prune': 'disabled',
        'team.example.com/owner': 'vision',
      },
    });
    // Rendered again on what it wrote: the same bytes (no change every pass).
    const [again] = renderNamespaceFiles(
      'prod',
      ['vision'],
      undefined,
      undefined,
      new Map([[PATH, file!.content]]),
    );
    expect(again!.content).toBe(file!.content);
  });

  it('a file whose alias has no anchor is rendered afresh instead of stopping the pass', () => {
    const broken = edited.replace('metadata:\n', 'extra: *missing\nmetadata:\n');
    expect(broken).toContain('extra: *missing');
    const [file] = renderNamespaceFiles('prod', ['vision'], undefined, undefined, new Map([[PATH, broken]]));
    expect(file!.content).toBe(renderNamespaceFile('prod', 'vision').content);
  });

  it('gpuops’s own keys are gpuops’s: a person’s value for them is not kept', () => {
    const [file] = renderNamespaceFiles(
      'prod',
      ['vision'],
      undefined,
      undefined,
      new Map([[PATH, edited.replace('sync-wave: "-2"', 'sync-wave: "5"')]]),
    );
    expect(nsMeta(file!.content).annotations).toMatchObject({ 'argocd.argoproj.io/sync-wave': '-2' });
  });
});

describe('what a change removes that gpuops did not add', () => {
  const node = (labels: string) =>
    `apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\n  labels:\n${labels}`;
  it.each([
    [
      'a person’s label on a node file',
      node('    gpuops.dev/pool: unused\n    team.example.com/keep: "yes"\n'),
      node('    gpuops.dev/pool: test\n'),
      ['team.example.com/keep'],
    ],
    [
      'only gpuops’s own label changes',
      node('    gpuops.dev/pool: unused\n'),
      node('    gpuops.dev/pool: test\n'),
      [],
    ],
    [
      'the Pod Security label of a Namespace',
      edited,
      renderNamespaceFile('prod', 'vision').content,
      ['pod-security.kubernetes.io/enforce', 'team.example.com/owner'],
    ],
  ])('%s', (_, before, after, keys) => {
    const removed = removedMetadata([{ path: 'f.yaml', content: after }], new Map([['f.yaml', before]]));
    expect(removed.map((r) => r.key)).toEqual(keys);
  });

  // Memo equals fresh: through a reconciler's memo of parsed texts (as `planDesiredState` passes
  // it), on a miss and on a hit, the same removals as parsing each time, for one-document files
  // (the memo answers) and for files the memo cannot answer (several documents, an error).
  it.each([
    [
      'a person’s label, block style',
      node('    team/keep: "1"\n    gpuops.dev/pool: a\n'),
      node('    gpuops.dev/pool: b\n'),
    ],
    [
      'flow-style labels and an alias',
      'kind: Node\nmetadata: {name: n, labels: &l {team/a: "1", team/b: "2"}, annotations: *l}\n',
      'kind: Node\nmetadata: {name: n, labels: {team/a: "1"}}\n',
    ],
    ['a Namespace file of two documents', edited, renderNamespaceFile('prod', 'vision').content],
    [
      'a second document with an error',
      `${node('    team/keep: "1"\n')}---\nkind: [\n`,
      `${node('    team/other: "1"\n')}---\nkind: [\n`,
    ],
    ['a file that is now a scalar', node('    team/keep: "1"\n'), 'just text\n'],
  ])('%s: the same removals through a parse memo', (_, before, after) => {
    const files = [{ path: 'f.yaml', content: after }];
    const current = new Map([['f.yaml', before]]);
    const fresh = removedMetadata(files, current);
    expect(fresh.length).toBeGreaterThan(0);
    const memory = createReconcilerMemory();
    const parseOne = rememberedLookups(memory).parse;
    expect(removedMetadata(files, current, parseOne)).toEqual(fresh);
    expect(memory.parsed.size).toBe(2);
    expect(removedMetadata(files, current, parseOne)).toEqual(fresh);
  });

  it('the pull request says so before anything else, inert', () => {
    const cs = buildChangeSet({
      cluster: 'prod',
      kind: 'pools',
      subject: 'pools',
      files: [{ path: 'clusters/prod/nodes/gpu-a.yaml', content: node('    gpuops.dev/pool: test\n') }],
      current: new Map([
        [
          'clusters/prod/nodes/gpu-a.yaml',
          node('    gpuops.dev/pool: unused\n    "@team/x": "<img src=y>"\n'),
        ],
      ]),
    })!;
    const lines = cs.body.split('\n');
    expect(lines[2]).toMatch(/^\*\*This pull request removes 1 label or annotation gpuops did not add\*\*/);
    expect(cs.body).toContain(
      '| `clusters/prod/nodes/gpu-a.yaml` | `Node/gpu-a` | label | `@team/x` | `<img src=y>` |',
    );
  });
});
