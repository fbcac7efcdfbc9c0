/**
 * Issue 23 item 5 (input `test/fixtures/fleet-faults/F04`, from `../shared/cases/fleet-faults/F04`):
 * specs gpuops cannot read are never deleted specs. Real git: the spec in a real submodule under
 * `algorithms/` (a second bare repository, `git submodule add`), a Git LFS pointer in place of the
 * spec, a spec file that fails to parse — each keeps the running Deployment's file in Git and
 * names the path it could not read. The neighbours: the same spec inline (no change at all), and
 * the spec really removed from Git (then, and only then, the Deployment goes).
 * Before the change the submodule was skipped without a word and a placement PR deleted the file.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/sim/index.js';
import { git } from '../gitops/helpers.js';
import { startHarness, type Harness } from '../support/reconcile-harness.js';

const F04 = new URL('../fixtures/fleet-faults/F04/', import.meta.url).pathname;
const DEPLOYMENT = 'clusters/prod/algorithms/resnet50-infer/deployment.yaml';
const SPEC = readFileSync(join(F04, 'team-vision', 'resnet50-infer.yaml'), 'utf8');

function mainTree(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(join(F04, 'main-tree'), p)] = readFileSync(p, 'utf8');
    }
  };
  walk(join(F04, 'main-tree'));
  return out;
}

const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

async function f04(extra: Record<string, string>): Promise<Harness> {
  const nodes = (JSON.parse(readFileSync(join(F04, 'nodes.json'), 'utf8')) as { items: KubeObject[] }).items;
  const h = await startHarness({ files: { ...mainTree(), ...extra }, nodes });
  harnesses.push(h);
  await h.sync();
  return h;
}

/** Adds `algorithms/team-vision` as a real submodule (its own bare repository holding the spec) on main. */
function addSubmodule(h: Harness): string {
  const tv = join(h.repo.root, 'team-vision.git');
  git(h.repo.root, 'init', '-q', '--bare', '-b', 'main', tv);
  const work = join(h.repo.root, 'tv');
  git(h.repo.root, 'clone', '-q', tv, work);
  writeFileSync(join(work, 'resnet50-infer.yaml'), SPEC);
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'specs');
  git(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  const seed = join(h.repo.root, 'seed');
  git(h.repo.root, 'clone', '-q', h.repo.remote, seed);
  git(
    seed,
    '-c',
    'protocol.file.allow=always',
    'submodule',
    'add',
    '-q',
    `file://${tv}`,
    'algorithms/team-vision',
  );
  git(seed, 'commit', '-q', '-m', 'specs in a submodule');
  git(seed, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  return git(work, 'rev-parse', 'HEAD');
}

/** Every file a change set of the pass deletes, and the branches of the remote that delete the Deployment. */
function deletes(h: Harness, r: Awaited<ReturnType<Harness['pass']>>) {
  const files = r.changeSets.flatMap((cs) => cs.files.filter((f) => f.content === null).map((f) => f.path));
  const branches = h.branches().filter((b) => b !== 'main' && h.file(b, DEPLOYMENT) === null);
  return { files, branches };
}

describe('F04: specs gpuops cannot read keep their Deployment', () => {
  it('a git submodule under algorithms/: reported by path, nothing deleted', async () => {
    const h = await f04({});
    const commit = addSubmodule(h);
    const r = await h.pass();
    expect(deletes(h, r)).toEqual({ files: [], branches: [] });
    expect(r.plan.errors).toContainEqual({
      file: 'algorithms/team-vision',
      line: 1,
      column: 1,
      field: '',
      message: expect.stringMatching(
        new RegExp(
          `^algorithms/team-vision is a git submodule \\(commit ${commit.slice(0, 12)}\\): gpuops does not read submodules, so no algorithm is removed while it is there`,
        ),
      ),
    });
    expect(h.file('main', DEPLOYMENT)).not.toBeNull();
    expect(h.sim.store.get('deployments', 'algorithms', 'resnet50-infer')).toBeDefined();
  });

  it('a Git LFS pointer in place of the spec: reported, nothing deleted', async () => {
    const pointer =
      'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 412\n';
    const h = await f04({ 'algorithms/resnet50-infer.yaml': pointer });
    const r = await h.pass();
    expect(deletes(h, r)).toEqual({ files: [], branches: [] });
    expect(r.plan.errors.map((e) => [e.file, e.message])).toEqual([
      [
        'algorithms/resnet50-infer.yaml',
        expect.stringMatching(
          /^algorithms\/resnet50-infer\.yaml is a Git LFS pointer \(sha256:4d7a2146\w+\), not the spec/,
        ),
      ],
    ]);
  });

  it('a spec file that fails to parse: reported, nothing deleted', async () => {
    const h = await f04({ 'algorithms/resnet50-infer.yaml': `${SPEC}  placement: {pool: [auto\n` });
    const r = await h.pass();
    expect(deletes(h, r)).toEqual({ files: [], branches: [] });
    expect(r.plan.errors.map((e) => e.file)).toContain('algorithms/resnet50-infer.yaml');
  });

  it('the neighbour: the same spec inline under algorithms/team-vision/ — no change set for it', async () => {
    const h = await f04({ 'algorithms/team-vision/resnet50-infer.yaml': SPEC });
    const r = await h.pass();
    expect(r.plan.errors).toEqual([]);
    expect(r.changeSets.filter((cs) => cs.subject === 'resnet50-infer')).toEqual([]);
    expect(deletes(h, r)).toEqual({ files: [], branches: [] });
  });

  it('the other neighbour: Git no longer has the spec file — then the Deployment goes', async () => {
    const h = await f04({});
    const r = await h.pass();
    expect(r.plan.errors).toEqual([]);
    expect(deletes(h, r).files).toContain(DEPLOYMENT);
  });
});
