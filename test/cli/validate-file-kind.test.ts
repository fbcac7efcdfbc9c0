/**
 * `gpuops validate FILE` checks only what gpuops reads (newcomer-4 fault 3): a file not named
 * `*.yaml`/`*.yml` is a usage error (exit 2: the command was pointed at something it does not
 * check; the loaders would skip the file), its neighbour `*.yml` is validated; a spec in a
 * sub-folder of a repo's algorithms/ is checked against that repo's policy; warnings print and
 * leave the exit code alone.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = path.join(root, 'examples/gitops-repo/algorithms/bert-train.yaml');
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-validate-kind-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function gpuops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('gpuops validate FILE', { timeout: 90_000 }, () => {
  it.each(['spec.md', 'spec.json', 'spec.YAML'])(
    '%s is a usage error (exit 2) naming the file',
    async (name) => {
      const file = path.join(work, name);
      copyFileSync(example, file);
      const r = await gpuops('validate', file);
      expect([r.code, r.stdout]).toEqual([2, '']);
      expect(r.stderr).toBe(
        `gpuops validate: ${file}: not a spec file: gpuops reads Algorithm and Policy files named *.yaml or *.yml; give one, or the repo root (the folder that holds algorithms/)\n`,
      );
    },
  );

  it('spec.yml (the neighbour) is validated: exit 0', async () => {
    const file = path.join(work, 'spec.yml');
    copyFileSync(example, file);
    const r = await gpuops('validate', file);
    expect([r.code, r.stdout]).toEqual([0, '1 file valid, 1 algorithm\n']);
  });

  it("a spec in algorithms/team/ is checked against the repo's policy, warnings printed, exit 0", async () => {
    const repo = path.join(work, 'repo');
    mkdirSync(path.join(repo, 'algorithms/team'), { recursive: true });
    mkdirSync(path.join(repo, 'policies/nested'), { recursive: true });
    copyFileSync(example, path.join(repo, 'algorithms/team/bert-train.yaml'));
    const policy = (name: string, min: number) =>
      `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec:\n  scaling:\n    utilization: {min: ${min}}\n`;
    writeFileSync(path.join(repo, 'policies/p.yaml'), policy('p', 0.3));
    writeFileSync(path.join(repo, 'policies/nested/q.yaml'), policy('q', 20));
    const one = await gpuops('validate', path.join(repo, 'algorithms/team/bert-train.yaml'));
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^policy: p \(policies\/p\.yaml over the shipped default\)\n1 file valid, 1 algorithm\n$/,
    );
    const all = await gpuops('validate', repo, '--output', 'json');
    expect(all.code).toBe(0);
    const out = JSON.parse(all.stdout) as {
      errors: unknown[];
      warnings: { file: string; line: number; field: string }[];
    };
    expect(out.errors).toEqual([]);
    expect(out.warnings.map((w) => `${w.file}:${w.line} ${w.field}`)).toEqual([
      'policies/nested/q.yaml:2 kind',
      'policies/p.yaml:6 spec.scaling.utilization.min',
    ]);
    const text = await gpuops('validate', repo);
    expect([text.code, text.stdout.split('\n').at(-2)]).toEqual([
      0,
      '2 files valid, 1 algorithm; 2 warnings',
    ]);
  });
});
