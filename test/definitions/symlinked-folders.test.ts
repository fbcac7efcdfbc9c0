import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRepo } from '../../src/definitions/load.js';
import { readClusterFiles } from '../../src/pass/specs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SPEC = (name: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata:\n  name: ${name}\nspec:\n  image: r.example.com/x:1\n  resources: {gpus: 1}\n`;

let base: string;
/** A fresh repo under `base` whose `folder` is a link to `target`; `algorithms/` holds one good spec otherwise. */
async function repoWithLink(name: string, folder: string, target: string): Promise<string> {
  const repo = path.join(base, name);
  await mkdir(path.join(repo, path.dirname(folder)), { recursive: true });
  if (folder !== 'algorithms') {
    await mkdir(path.join(repo, 'algorithms'));
    await writeFile(path.join(repo, 'algorithms/inside.yaml'), SPEC('inside'));
  }
  await symlink(target, path.join(repo, folder));
  return repo;
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'gpuops-links-'));
  // Outside the repos: a spec and a policy that must never be read.
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside/secret-name.yaml'), SPEC('outside-secret'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('symlinked folders are refused by real path (issue 29 item 2)', () => {
  it.each([
    ['algorithms -> ../outside', 'algorithms', '../outside'],
    ['algorithms -> /usr', 'algorithms', '/usr'],
    ['algorithms -> /', 'algorithms', '/'],
    ['policies -> ../outside', 'policies', '../outside'],
    ['policies -> /', 'policies', '/'],
  ])('%s: one located error, nothing read', async (name, folder, target) => {
    const repo = await repoWithLink(name.replace(/\W+/g, '-'), folder, target);
    const loaded = await loadRepo(repo);
    // `validate FILE`'s load (spec folders only) refuses the same way, without listing the target.
    const specsOnly = await loadRepo(repo, undefined, { misplaced: false });
    expect(specsOnly.errors.filter((e) => e.file === `${folder}/`)).toEqual(
      loaded.errors.filter((e) => e.file === `${folder}/`),
    );
    const errors = loaded.errors.filter((e) => e.file === `${folder}/`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 0, field: '' });
    expect(errors[0]!.message).toMatch(/^a symbolic link \(to .*\); gpuops reads nothing through links/);
    expect(JSON.stringify(loaded)).not.toContain('outside-secret');
    expect(JSON.stringify(loaded)).not.toContain('secret-name');
  });

  it('a link inside the repo to another folder of it is refused too (the rule is "no link", not only "no escape")', async () => {
    const repo = path.join(base, 'inner');
    await mkdir(path.join(repo, 'real'), { recursive: true });
    await writeFile(path.join(repo, 'real/a.yaml'), SPEC('a'));
    await symlink('real', path.join(repo, 'algorithms'));
    const loaded = await loadRepo(repo);
    expect(loaded.errors.map((e) => e.file)).toEqual(['algorithms/']);
    expect(loaded.algorithms).toEqual([]);
  });

  it.each([
    ['clusters/prod -> ../../outside', 'clusters/prod', '../../outside', 'clusters/prod/'],
    ['clusters -> /', 'clusters', '/', 'clusters/'],
    ['clusters/prod -> /usr', 'clusters/prod', '/usr', 'clusters/prod/'],
  ])('%s: readClusterFiles throws a located error before reading', async (name, folder, target, shown) => {
    const repo = await repoWithLink(name.replace(/\W+/g, '-'), folder, target);
    await expect(readClusterFiles(repo, 'prod')).rejects.toThrow(
      new RegExp(`^${shown}: a symbolic link \\(to `),
    );
  });

  it('gpuops validate on algorithms -> / reports the folder and exits 1', { timeout: 90_000 }, async () => {
    const repo = await repoWithLink('cli', 'algorithms', '/');
    const r = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile('node', [path.join(root, 'bin/gpuops.js'), 'validate', repo], (err, stdout) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout }),
      ),
    );
    expect(r.code).toBe(1);
    // A folder-level error has no position; the folder is named from the working directory.
    expect(r.stdout.split('\n')[0]).toBe(
      `${repo}/algorithms/: a symbolic link (to /); gpuops reads nothing through links: commit the folder itself`,
    );
  });
});
