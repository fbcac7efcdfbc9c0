/**
 * `gpuops validate` never passes by accident: pointed at `algorithms/` itself or a folder that is no
 * repo root it is a usage error with a hint (exit 2); an empty algorithms/ or an Algorithm file with
 * no document is an error (exit 1); a single file is validated on its own (in a repo, and
 * elsewhere); files are named from the working directory.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const repo = path.join(root, 'examples/gitops-repo');
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-validate-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function gpuops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('gpuops validate targets', { timeout: 90_000 }, () => {
  it.each([
    [
      'the algorithms/ folder itself',
      () => path.join(repo, 'algorithms'),
      /no algorithms\/ folder here: did you mean the repo root\? \(gpuops validate .*examples\/gitops-repo\)/,
    ],
    [
      'a folder with no spec and no algorithms/',
      () => (mkdirSync(path.join(work, 'bare'), { recursive: true }), path.join(work, 'bare')),
      /no algorithms\/ folder here: did you mean the repo root\? \(the folder that holds algorithms\/ and policies\/\)/,
    ],
  ])('%s is not a repo root: a usage error with a hint, exit 2', async (_, target, message) => {
    const r = await gpuops('validate', target());
    expect(r.stderr).toMatch(new RegExp(`^gpuops validate: ${target()}: ${message.source}\n$`));
    expect([r.code, r.stdout]).toEqual([2, '']);
    const json = await gpuops('validate', target(), '--output', 'json');
    expect([json.code, json.stdout]).toEqual([2, '']);
  });

  it('a repo with an empty algorithms/ is an error at the folder, without a position (exit 1)', async () => {
    const dir = path.join(work, 'empty');
    mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
    const r = await gpuops('validate', dir);
    expect([r.code, r.stdout]).toEqual([
      1,
      `${dir}/algorithms/: no Algorithm spec (*.yaml) in algorithms/: did you mean the repo root?\nno spec validated\n`,
    ]);
    const github = await gpuops('validate', dir, '--output', 'github');
    expect(github.stdout.split('\n')[0]).toBe(
      `::error file=${dir}/algorithms/,title=document::no Algorithm spec (*.yaml) in algorithms/: did you mean the repo root?`,
    );
    const json = await gpuops('validate', dir, '--output', 'json');
    expect((JSON.parse(json.stdout) as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ file: 'algorithms/', line: 0, column: 0 }),
    ]);
  });

  it.each([
    ['an empty file', 1, () => ''],
    ['a file of comments only', 1, () => '# switched off for now\n'],
    ['a file of empty documents', 1, () => '---\n---\n'],
    [
      'empty documents before a spec (a neighbour that stays valid)',
      0,
      (spec: string) => `---\n---\n${spec}`,
    ],
  ])('%s in algorithms/: exit %i', async (name, code, content) => {
    const dir = path.join(work, name.replace(/\W+/g, '-'));
    mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
    copyFileSync(path.join(repo, 'algorithms/bert-train.yaml'), path.join(dir, 'algorithms/bert-train.yaml'));
    const spec = readFileSync(path.join(repo, 'algorithms/resnet50-infer.yaml'), 'utf8');
    writeFileSync(path.join(dir, 'algorithms/x.yaml'), content(spec));
    const r = await gpuops('validate', dir);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe(
      code === 0
        ? '2 files valid, 2 algorithms\n'
        : `${dir}/algorithms/x.yaml:1:1: (document): no Algorithm in this file (it is empty or only comments): delete the file to remove an algorithm\n1 error in 1 of 2 files; 1 valid algorithm\n`,
    );
  });

  it('names files from the working directory: relative inside it, the repo root as given', async () => {
    const dir = path.join(work, 'rel/repo');
    mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
    writeFileSync(path.join(dir, 'algorithms/x.yaml'), '');
    const from = (cwd: string, target: string) =>
      new Promise<string>((resolve) =>
        execFile('node', [path.join(root, 'bin/gpuops.js'), 'validate', target], { cwd }, (_e, stdout) =>
          resolve(stdout.split(':')[0]!),
        ),
      );
    expect(await from(path.join(work, 'rel'), 'repo')).toBe('repo/algorithms/x.yaml');
    expect(await from(dir, '.')).toBe('algorithms/x.yaml');
    expect(await from(path.join(dir, 'algorithms'), '..')).toBe('x.yaml');
    expect(await from(path.join(dir, 'algorithms'), 'x.yaml')).toBe('x.yaml');
  });

  it('the repo root with specs passes its neighbour check (exit by its specs, not by the folder)', async () => {
    const r = await gpuops('validate', path.join(root, 'test/fixtures/repos/valid'));
    expect(r.code).toBe(0);
  });

  it('validates a single file inside a repo and one elsewhere', async () => {
    const good = await gpuops('validate', path.join(repo, 'algorithms/bert-train.yaml'));
    expect([good.code, good.stdout]).toEqual([
      0,
      'policy: demo (policies/demo.yaml over the shipped default)\n1 file valid, 1 algorithm\n',
    ]);
    const outside = path.join(work, 'whisper.yaml');
    copyFileSync(path.join(root, 'test/fixtures/repos/mixed/algorithms/whisper.yaml'), outside);
    const bad = await gpuops('validate', outside);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      new RegExp(`^${outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:9:13: spec\\.resources\\.memory`, 'm'),
    );
    expect(bad.stdout).toContain('in 1 of 1 file');
  });

  it('reports cross-field errors with the schema errors of the same file, each with file, line and field', async () => {
    const file = path.join(work, 'both.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: gpuops.dev/v1alpha1',
        'kind: Algorithm',
        'metadata: {name: both}',
        'spec:',
        '  image: registry.example.com/ml/x:1',
        '  resources: {gpu: 1}',
        '  scaling:',
        '    minReplicas: 6',
        '    maxReplicas: 2',
        '    utilization: {min: 80, max: 20}',
        '',
      ].join('\n'),
    );
    const r = await gpuops('validate', file);
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      `${file}:6:3: spec.resources.gpus: required field "gpus" is missing`,
      `${file}:6:15: spec.resources.gpu: unknown field "gpu"; did you mean "gpus"?`,
      `${file}:8:18: spec.scaling.minReplicas: minReplicas 6 is above maxReplicas 2`,
      `${file}:10:24: spec.scaling.utilization.min: utilization min 80% must be below max 20%`,
      '4 errors in 1 of 1 file; 0 valid algorithms',
    ]);
  });

  it('a path that does not exist is a usage error (exit 2)', async () => {
    expect((await gpuops('validate', path.join(work, 'nope'))).code).toBe(2);
  });
});
