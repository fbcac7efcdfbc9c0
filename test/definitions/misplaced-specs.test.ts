/**
 * gpuops specs where gpuops does not read them are warned about by name (newcomer-4 faults 1 and
 * 2), never refused; other YAML of a GitOps repo (a Flux Kustomization, a README) and the folders
 * skipped on purpose (`algorithms/.archive/`, the folders gpuops writes under `clusters/<cluster>/`)
 * stay silent.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepo } from '../../src/definitions/load.js';

const examples = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-misplaced-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const spec = readFileSync(path.join(examples, 'algorithms/bert-train.yaml'), 'utf8');
const policy = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: nested}\nspec: {}\n';
const kustomization =
  'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: gpuops}\nspec: {path: ./clusters/prod}\n';

/** A repo with the example's algorithms/ and `files` (repo-relative path → text). */
function repoWith(name: string, files: Record<string, string>): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
  writeFileSync(path.join(dir, 'algorithms/bert-train.yaml'), spec);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

describe('gpuops specs in places gpuops does not read', () => {
  it.each([
    [
      'a Policy in a sub-folder of policies/',
      'policies/team/limits.yaml',
      policy,
      /at the top of policies\/ only/,
    ],
    [
      'an Algorithm under clusters/',
      'clusters/prod/bert.yaml',
      spec.replace('bert-train', 'bert-2'),
      /outside the folders gpuops reads; Algorithm files go in algorithms\//,
    ],
    [
      'an Algorithm in clusters/prod/algorithms/ itself (gpuops writes only its sub-folders)',
      'clusters/prod/algorithms/bert.yaml',
      spec.replace('bert-train', 'bert-3'),
      /Algorithm files go in algorithms\//,
    ],
    ['a Policy at the root', 'policy.yml', policy, /Policy files go in policies\//],
    [
      'an Algorithm named .YAML',
      'algorithms/x.YAML',
      spec.replace('bert-train', 'x'),
      /named \*\.yaml or \*\.yml \(lower case\)/,
    ],
  ])('%s: a warning naming the file at its kind, nothing refused', async (_, file, text, message) => {
    const repo = await loadRepo(repoWith(file.replace(/\W+/g, '-'), { [file]: text }));
    expect(repo.errors).toEqual([]);
    const kindLine = text.split('\n').findIndex((l) => l.startsWith('kind:')) + 1;
    expect(repo.warnings?.map((w) => [w.file, w.line, w.field])).toEqual([[file, kindLine, 'kind']]);
    expect(repo.warnings![0]!.message).toMatch(message);
  });

  it.each([
    ['a Policy at the top of policies/ (read)', 'policies/p.yaml', policy],
    [
      'an Algorithm in a sub-folder of algorithms/ (read)',
      'algorithms/team/b.yaml',
      spec.replace('bert-train', 'b'),
    ],
    ['a Flux Kustomization', 'clusters/prod/flux.yaml', kustomization],
    // gpuops's own output (DESIGN.md's layout): not read, whatever a hand edit left in it.
    ['an Algorithm in a rendered workload folder', 'clusters/prod/algorithms/bert/deployment.yaml', spec],
    ['an Algorithm among the rendered nodes', 'clusters/prod/nodes/gpu-a.yaml', spec],
    ['a Policy among the rendered namespaces', 'clusters/staging/namespaces/ml.yaml', policy],
    ['an Algorithm in a rendered standby folder', 'clusters/prod/standby/warm/deployment.yaml', spec],
    ['a README', 'README.md', '# kind: Algorithm\napiVersion: gpuops.dev/v1alpha1\n'],
    ['an Algorithm in a dot-folder (skipped on purpose)', 'algorithms/.archive/old.yaml', spec],
    [
      'a YAML file that does not parse',
      'clusters/prod/broken.yaml',
      'kind: Algorithm\napiVersion: gpuops.dev/v1\n  x: [\n',
    ],
    [
      "another group's Policy",
      'clusters/prod/np.yaml',
      'apiVersion: kyverno.io/v1\nkind: Policy\nmetadata: {name: x}\n',
    ],
  ])('%s: no warning', async (_, file, text) => {
    const repo = await loadRepo(repoWith(`ok-${file.replace(/\W+/g, '-')}`, { [file]: text }));
    expect(repo.warnings).toBeUndefined();
  });
});
