/**
 * deploymentsToHandOver asks whether a namespace file binds `gpuops-scale` once per namespace per
 * pass: the file is one per namespace, the question was asked once per algorithm (issue 42). The
 * answer is kept by the file's text (bindsScaleRole's memo): a file unchanged since the last pass
 * is not parsed again, a changed file (even one of the same length) is.
 */
import { describe, expect, it, vi } from 'vitest';

// Counts the YAML parses bindsScaleRole makes (the real parser answers).
const parses = vi.hoisted(() => ({ n: 0 }));
vi.mock('yaml', async (importOriginal) => {
  const real = await importOriginal<typeof import('yaml')>();
  return {
    ...real,
    parseAllDocuments: ((...args: Parameters<typeof real.parseAllDocuments>) => {
      parses.n++;
      return real.parseAllDocuments(...args);
    }) as typeof real.parseAllDocuments,
  };
});

const { DEFAULT_SERVICE_ACCOUNT, namespaceFilePath, renderNamespaceFile } =
  await import('../../src/manifests/namespaces.js');
const { workloadDir } = await import('../../src/manifests/workloads.js');
const { readGitModel } = await import('../../src/plan/git-model.js');
const { deploymentsToHandOver } = await import('../../src/pass/handover-schedule.js');

const cluster = 'prod';
/** Four algorithms in `team-a`, three in `team-b`, one in `team-c` (no namespace file); `a5` has no Deployment in Git. */
const algorithms = [
  ...['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => ({ name, namespace: 'team-a' })),
  ...['b1', 'b2', 'b3'].map((name) => ({ name, namespace: 'team-b' })),
  { name: 'c1', namespace: 'team-c' },
];

/** The base branch's files: each namespace's file (binding `gpuops-scale` where `scaled` says) and the Deployments. */
function gitWith(scaled: Record<'team-a' | 'team-b', boolean>) {
  const files = new Map<string, string>();
  for (const ns of ['team-a', 'team-b'] as const)
    files.set(
      namespaceFilePath(cluster, ns),
      renderNamespaceFile(cluster, ns, DEFAULT_SERVICE_ACCOUNT, { scale: scaled[ns] }).content,
    );
  for (const a of algorithms.filter((x) => x.name !== 'a5'))
    files.set(
      `${workloadDir(cluster, a.name)}/deployment.yaml`,
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${a.name}, namespace: ${a.namespace}}\nspec: {replicas: 2}\n`,
    );
  return readGitModel(cluster, files, 'gpuops.dev/pool');
}

/** One pass's question: the Deployments handed over, and the parses it took. */
function pass(git: ReturnType<typeof gitWith>) {
  const before = parses.n;
  const refs = deploymentsToHandOver({ algorithms, git });
  return { names: refs.map((r) => `${r.namespace}/${r.name}`), parses: parses.n - before };
}

describe('deploymentsToHandOver (issue 42: one bindsScaleRole parse per namespace file text)', () => {
  it('parses each namespace file once a pass, however many algorithms share it, and not again while unchanged', () => {
    const git = gitWith({ 'team-a': true, 'team-b': false });
    const first = pass(git);
    expect(first.names).toEqual(['team-a/a1', 'team-a/a2', 'team-a/a3', 'team-a/a4']);
    // team-a and team-b: one parse each (not 8, one per algorithm); team-c has no file to parse.
    expect(first.parses).toBe(2);
    // The next pass, same texts (a new Git model of them): the same answer, nothing parsed.
    expect(pass(gitWith({ 'team-a': true, 'team-b': false }))).toEqual({ names: first.names, parses: 0 });
  });

  it('answers a namespace file that changed between passes from its new content', () => {
    expect(pass(gitWith({ 'team-a': true, 'team-b': false })).names).toHaveLength(4);
    const next = pass(gitWith({ 'team-a': false, 'team-b': true }));
    expect(next.names).toEqual(['team-b/b1', 'team-b/b2', 'team-b/b3']);
    // Both texts are new (team-a's lost its binding, team-b's gained one): parsed afresh.
    expect(next.parses).toBe(2);
  });

  it('parses again a file edited to the same length (the key is the whole text)', () => {
    const git = gitWith({ 'team-a': true, 'team-b': false });
    expect(pass(git).names).toHaveLength(4);
    const path = namespaceFilePath(cluster, 'team-a');
    const edited = git.files
      .get(path)!
      .replace('  name: gpuops-scale\n  apiGroup', '  name: gpuops-scalX\n  apiGroup');
    expect(edited).toHaveLength(git.files.get(path)!.length);
    expect(edited).not.toBe(git.files.get(path));
    const files = new Map(git.files).set(path, edited);
    const next = pass(readGitModel(cluster, files, 'gpuops.dev/pool'));
    expect(next).toEqual({ names: [], parses: 1 });
  });
});
