/**
 * `loadRepo` lists the repo once (`repo-walk.ts`) and opens each file at most once: the spec
 * loader and the misplaced-spec check share the walk, which enters no folder gpuops writes. `loadRepo(dir, _, { misplaced: false })`
 * (`validate FILE`) lists only `algorithms/` and `policies/`.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ readdir: [] as string[], readFile: [] as string[] }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    readdir: ((p: string, o: unknown) => {
      calls.readdir.push(String(p));
      return fs.readdir(p, o as never);
    }) as typeof fs.readdir,
    readFile: ((p: string, o: unknown) => {
      calls.readFile.push(String(p));
      return fs.readFile(p, o as never);
    }) as typeof fs.readFile,
  };
});
const { loadRepo } = await import('../../src/definitions/load.js');

const examples = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));
const spec = readFileSync(path.join(examples, 'algorithms/bert-train.yaml'), 'utf8');
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-one-walk-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const policy = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec: {}\n';
const files: Record<string, string> = {
  'algorithms/bert-train.yaml': spec,
  'algorithms/team/b.yaml': spec.replace('bert-train', 'b'),
  'policies/p.yaml': policy,
  'policies/team/nested.yaml': policy,
  'clusters/prod/bert.yaml': spec.replace('bert-train', 'bert-2'),
  'clusters/prod/nodes/n1.yaml': 'apiVersion: v1\nkind: Node\n',
  'clusters/prod/algorithms/b/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\n',
};
/** gpuops's own output (`writtenByGpuops`): its folders are not listed, its files not read. */
const OUTPUT = ['clusters/prod/nodes/n1.yaml', 'clusters/prod/algorithms/b/deployment.yaml'];
for (const [file, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
  writeFileSync(path.join(work, file), text);
}
const counts = (list: string[]) =>
  Object.entries(
    list.reduce<Record<string, number>>(
      (m, p) => ({ ...m, [path.relative(work, p) || '.']: (m[path.relative(work, p) || '.'] ?? 0) + 1 }),
      {},
    ),
  ).sort();

beforeEach(() => {
  calls.readdir.length = 0;
  calls.readFile.length = 0;
});

describe('loadRepo walks the repo once', () => {
  it('lists every folder once and opens every YAML file once, with the misplaced-spec warnings', async () => {
    const repo = await loadRepo(work);
    expect(repo.warnings?.map((w) => w.file)).toEqual([
      'clusters/prod/bert.yaml',
      'policies/team/nested.yaml',
    ]);
    const repoReads = calls.readFile.filter((p) => p.startsWith(work));
    expect(counts(calls.readdir)).toEqual(
      [
        '.',
        'algorithms',
        'algorithms/team',
        'clusters',
        'clusters/prod',
        'clusters/prod/algorithms',
        'policies',
        'policies/team',
      ]
        .map((d) => [d, 1])
        .sort(),
    );
    expect(counts(repoReads)).toEqual(
      Object.keys(files)
        .filter((f) => !OUTPUT.includes(f))
        .map((f) => [f, 1])
        .sort(),
    );
  });

  it('validate FILE (misplaced: false) lists only algorithms/ and policies/', async () => {
    const repo = await loadRepo(work, undefined, { misplaced: false });
    expect(repo.warnings).toBeUndefined();
    expect(counts(calls.readdir)).toEqual([
      ['algorithms', 1],
      ['algorithms/team', 1],
      ['policies', 1],
    ]);
    // The same specs and errors as the whole walk gives.
    const whole = await loadRepo(work);
    expect(repo.algorithms.map((a) => a.name)).toEqual(whole.algorithms.map((a) => a.name));
    expect(repo.errors).toEqual(whole.errors);
    expect(repo.files).toBe(3);
  });
});
