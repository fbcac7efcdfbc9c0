import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { annotation } from '../../src/cli/commands/validate.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = path.join(root, 'test/fixtures/repos');

/** Runs `node bin/gpuops.js ...args` from the repo root; resolves with exit code and output. */
function gpuops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const temps: string[] = [];
afterAll(async () => {
  for (const t of temps) await rm(t, { recursive: true, force: true });
});

// Each run starts node with tsx and the whole CLI; generous timeouts for a busy CI machine.
describe('gpuops validate', { timeout: 90_000 }, () => {
  it('prints one located error per bad file, then a summary, and exits 1 (two good files, three bad)', async () => {
    const r = await gpuops('validate', path.join(fixtures, 'mixed'));
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(
      /^test\/fixtures\/repos\/mixed\/algorithms\/bert-train\.yaml:8:11: spec\.resources\.gpus: must be a whole number/,
    );
    expect(lines[1]).toMatch(
      /^test\/fixtures\/repos\/mixed\/algorithms\/whisper\.yaml:9:13: spec\.resources\.memory: "16g" .*did you mean 16Gi or 16G\?$/,
    );
    expect(lines[2]).toBe(
      'test/fixtures/repos/mixed/policies/scaling.yaml:7:5: spec.scaling.utilisation: unknown field "utilisation"; did you mean "utilization"?',
    );
    expect(lines[3]).toBe(
      'policy: the shipped default alone; policies/scaling.yaml refused (errors above), not applied',
    );
    expect(lines[4]).toBe('3 errors in 3 of 5 files; 3 valid algorithms');
  });

  it('--output json prints {files, errors[]} with the contract fields', async () => {
    const r = await gpuops('validate', path.join(fixtures, 'mixed'), '--output', 'json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { files: number; errors: Record<string, unknown>[]; policy: object };
    expect(Object.keys(out).sort()).toEqual(['errors', 'files', 'policy', 'warnings']);
    expect(out.policy).toEqual({ name: 'default', files: [], refused: ['policies/scaling.yaml'] });
    expect(out.files).toBe(5);
    expect(out.errors.map((e) => [e['file'], e['line'], e['column'], e['field']])).toEqual([
      ['algorithms/bert-train.yaml', 8, 11, 'spec.resources.gpus'],
      ['algorithms/whisper.yaml', 9, 13, 'spec.resources.memory'],
      ['policies/scaling.yaml', 7, 5, 'spec.scaling.utilisation'],
    ]);
    for (const e of out.errors) {
      expect(Object.keys(e).sort()).toEqual(['column', 'field', 'file', 'line', 'message']);
      expect(typeof e['message']).toBe('string');
    }
  });

  it('--output github annotations carry the path from the working directory, escaped', () => {
    const e = { file: 'algorithms/a.yaml', line: 7, column: 5, field: 'spec.x', message: '50%\nnext' };
    expect(annotation(e, 'test/fixtures/repos/mixed')).toBe(
      '::error file=test/fixtures/repos/mixed/algorithms/a.yaml,line=7,col=5,title=spec.x::50%25%0Anext',
    );
    expect(annotation({ ...e, field: '' }, '.')).toContain('title=document::');
  });

  it('exits 0 with a summary when every file is valid (nested folder, .yml, policy override)', async () => {
    const r = await gpuops('validate', path.join(fixtures, 'valid'));
    expect(r).toMatchObject({
      code: 0,
      stdout:
        'policy: team-scaling (policies/scaling.yaml over the shipped default)\n3 files valid, 3 algorithms\n',
    });
  });

  it('validates a single file that is not a spec: its errors, exit 1 (issue 16: a file can be validated)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gpuops-validate-'));
    temps.push(dir);
    await writeFile(path.join(dir, 'file.yaml'), 'a: 1\n');
    const file = await gpuops('validate', path.join(dir, 'file.yaml'));
    expect(file.code).toBe(1);
    expect(file.stdout).toContain(
      `${path.join(dir, 'file.yaml')}:1:1: apiVersion: required field "apiVersion" is missing`,
    );
  });
});
