/**
 * Issue 29 item 1, end to end through the CLI: a spec in `kube-system`, one in `gpuops-system` and
 * one in an unlisted namespace are located errors at `gpuops validate`; `gpuops plan` lists them,
 * places the good spec beside them and writes no Namespace or RoleBinding for the refused ones.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
const DUMPS = ['--nodes', path.join(FIXTURE, 'nodes.json'), '--pods', path.join(FIXTURE, 'pods.json')];
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-ns-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const spec = (name: string, ns: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${ns}`,
    'spec: {image: "registry.example.com/ml/x:1", resources: {gpus: 1}}',
    '',
  ].join('\n');

const repo = path.join(work, 'repo');
mkdirSync(path.join(repo, 'algorithms'), { recursive: true });
mkdirSync(path.join(repo, 'policies'), { recursive: true });
writeFileSync(path.join(repo, 'algorithms/a-kube.yaml'), spec('sneaky', 'kube-system'));
writeFileSync(path.join(repo, 'algorithms/b-controller.yaml'), spec('next-door', 'gpuops-system'));
writeFileSync(path.join(repo, 'algorithms/c-unlisted.yaml'), spec('wanderer', 'research'));
writeFileSync(path.join(repo, 'algorithms/d-listed.yaml'), spec('good', 'vision'));
writeFileSync(
  path.join(repo, 'policies/namespaces.yaml'),
  'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: ns}\nspec: {allowedNamespaces: [algorithms, vision]}\n',
);

describe('a spec outside the allowed namespaces, through the CLI', { timeout: 60_000 }, () => {
  it('gpuops validate: exit 1, one located line per refused spec, the listed one valid', async () => {
    const run = await runMain('validate', repo);
    expect(run.code).toBe(1);
    const lines = run.out
      .replaceAll(`${repo}/`, '')
      .split('\n')
      .filter((l) => l.startsWith('algorithms/'));
    expect(lines).toEqual([
      expect.stringMatching(
        /^algorithms\/a-kube\.yaml:5:14: metadata\.namespace: "kube-system" is Kubernetes' own/,
      ),
      expect.stringMatching(
        /^algorithms\/b-controller\.yaml:5:14: metadata\.namespace: "gpuops-system" is the controller's own/,
      ),
      expect.stringMatching(
        /^algorithms\/c-unlisted\.yaml:5:14: metadata\.namespace: namespace "research" is not in the policy's allowedNamespaces \(algorithms, vision\)/,
      ),
    ]);
  });

  it('gpuops plan: the refused specs are listed and never rendered; the good one goes on', async () => {
    const run = await runMain('plan', '--repo', repo, '--cluster', 'prod', ...DUMPS, '--output', 'json');
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.out) as {
      errors: { file: string; field: string }[];
      placements: { algorithm: string }[];
      files: { path: string }[];
    };
    expect(plan.errors.map((e) => [e.file, e.field])).toEqual([
      ['algorithms/a-kube.yaml', 'metadata.namespace'],
      ['algorithms/b-controller.yaml', 'metadata.namespace'],
      ['algorithms/c-unlisted.yaml', 'metadata.namespace'],
    ]);
    expect(plan.placements.map((p) => p.algorithm)).toEqual(['good']);
    const namespaces = plan.files.map((f) => f.path).filter((p) => p.includes('/namespaces/'));
    expect(namespaces).toEqual(['clusters/prod/namespaces/vision.yaml']);
  });
});
