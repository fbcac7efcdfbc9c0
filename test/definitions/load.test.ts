import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicy, loadRepo, MAX_FILE_BYTES } from '../../src/definitions/load.js';

const temps: string[] = [];
afterAll(async () => {
  for (const t of temps) await rm(t, { recursive: true, force: true });
});

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gpuops-spec-'));
  temps.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

const algo = (name: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: ${name}}\nspec: {image: x, resources: {gpus: 1}}\n`;

describe('loadRepo', () => {
  it('reads *.yaml and *.yml under algorithms/ recursively, ignores other files, counts policy files', async () => {
    const dir = await repo({
      'algorithms/a.yaml': algo('a'),
      'algorithms/deep/er/b.yml': algo('b'),
      'algorithms/README.md': '# not a spec',
      'policies/team.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: t}\nspec: {namespace: ml}\n',
      'clusters/prod/nodes/n.yaml': 'not: a spec',
    });
    const r = await loadRepo(dir);
    expect(r.errors).toEqual([]);
    expect(r.files).toBe(3);
    expect(r.algorithms.map((a) => [a.name, a.namespace, a.source.file])).toEqual([
      ['a', 'ml', 'algorithms/a.yaml'],
      ['b', 'ml', 'algorithms/deep/er/b.yml'],
    ]);
    expect(r.policy.spec.namespace).toBe('ml');
  });

  it('is valid and empty for a repo without algorithms/ or policies/', async () => {
    const r = await loadRepo(await repo({}));
    expect(r).toMatchObject({ algorithms: [], errors: [], files: 0 });
    expect(r.policy.spec.placement.longTaskThresholdSeconds).toBe(600);
  });

  it('reports symbolic links and oversized files instead of reading them', async () => {
    const dir = await repo({
      'algorithms/a.yaml': algo('a'),
      'algorithms/big.yaml': `# ${'x'.repeat(MAX_FILE_BYTES)}\n`,
    });
    await symlink('/etc/hostname', path.join(dir, 'algorithms/link.yaml'));
    const r = await loadRepo(dir);
    expect(r.algorithms.map((a) => a.name)).toEqual(['a']);
    expect(r.errors.map((e) => [e.file, e.line, e.message.slice(0, 20)])).toEqual([
      ['algorithms/big.yaml', 1, `file is ${MAX_FILE_BYTES + 3} bytes`.slice(0, 20)],
      ['algorithms/link.yaml', 1, 'symbolic links are n'],
    ]);
    expect(r.files).toBe(3);
  });

  it('throws when the directory does not exist', async () => {
    await expect(loadRepo('/nonexistent/gpuops')).rejects.toThrow('is not a directory');
  });
});

describe('loadPolicy', () => {
  it('merges a repo policy onto the shipped default', async () => {
    const dir = await repo({
      'policies/a.yaml':
        'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: t}\nspec: {scaling: {engine: hpa}}\n',
    });
    const p = await loadPolicy(dir);
    expect(p.errors).toEqual([]);
    expect(p.files).toBe(1);
    expect(p.policy.spec.scaling.engine).toBe('hpa');
    expect(p.policy.spec.scaling.mode).toBe('pull-request');
  });
});
