/**
 * `gpuops validate` says against which policy it checked the algorithms: the repo's `policies/`
 * files merged over the shipped default, or the shipped default alone when they were refused.
 * A single spec file checked against a refused policy is not valid (exit 1, the policy's errors
 * listed), as the whole repo is not. Each row beside its neighbour: the same repo, policy fixed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../support/run-main.js';

const work = mkdtempSync(path.join(tmpdir(), 'gpuops-validate-policy-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ALGORITHM =
  'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: a}\nspec: {image: registry.example.com/ml/a:1.0, resources: {gpus: 1}}\n';
const policy = (name: string, window: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${name}}\nspec: {scaling: {windowSeconds: ${window}}}\n`;

let count = 0;
function repoWith(policies: Record<string, string>): string {
  const dir = path.join(work, `repo-${count++}`);
  mkdirSync(path.join(dir, 'algorithms'), { recursive: true });
  mkdirSync(path.join(dir, 'policies'), { recursive: true });
  writeFileSync(path.join(dir, 'algorithms/a.yaml'), ALGORITHM);
  for (const [file, text] of Object.entries(policies)) writeFileSync(path.join(dir, 'policies', file), text);
  return dir;
}

const REFUSED =
  'policies/p.yaml:4:33: spec.scaling.windowSeconds: must be a whole number, got the string "soon"';

/** [what, policy files, exit code, the policy line (none without a policy file), the JSON's policy]. */
const ROWS: [string, Record<string, string>, number, string | null, object][] = [
  [
    'the only policy file refused',
    { 'p.yaml': policy('p', '"soon"') },
    1,
    'policy: the shipped default alone; policies/p.yaml refused (errors above), not applied',
    { name: 'default', files: [], refused: ['policies/p.yaml'] },
  ],
  [
    'the same file fixed',
    { 'p.yaml': policy('p', '60') },
    0,
    'policy: p (policies/p.yaml over the shipped default)',
    { name: 'p', files: ['policies/p.yaml'], refused: [] },
  ],
  [
    'one of two files refused',
    { 'o.yaml': policy('o', '90'), 'p.yaml': policy('p', '"soon"') },
    1,
    'policy: o (policies/o.yaml over the shipped default); policies/p.yaml refused (errors above), not applied',
    { name: 'o', files: ['policies/o.yaml'], refused: ['policies/p.yaml'] },
  ],
  [
    'one document of a file refused, the other applied',
    { 'p.yaml': `${policy('p', '60')}---\n${policy('q', '"soon"')}` },
    1,
    'policy: p (policies/p.yaml over the shipped default); policies/p.yaml partly refused (errors above): its documents with errors not applied',
    { name: 'p', files: ['policies/p.yaml'], refused: ['policies/p.yaml'] },
  ],
  ['no policy file', {}, 0, null, { name: 'default', files: [], refused: [] }],
];

describe('gpuops validate names the policy it checked against', { timeout: 60_000 }, () => {
  it.each(ROWS)('%s', async (_what, policies, code, line, json) => {
    const dir = repoWith(policies);
    const text = await runMain('validate', dir);
    const lines = text.out.trimEnd().split('\n');
    expect([text.code, lines.at(-2)]).toEqual([code, line ?? undefined]);
    if (line === null) expect(text.out).not.toContain('policy:');
    const out = await runMain('validate', dir, '--output', 'json');
    expect([out.code, (JSON.parse(out.out) as { policy: object }).policy]).toEqual([code, json]);
  });

  it('one spec file checked against a refused policy is not valid: exit 1, the policy error listed', async () => {
    const dir = repoWith({ 'p.yaml': policy('p', '"soon"') });
    const file = path.join(dir, 'algorithms/a.yaml');
    const r = await runMain('validate', file);
    // Named from the working directory: absolute, as the repo is outside it.
    const shown = path.join(dir, 'policies/p.yaml');
    expect([r.code, r.out]).toEqual([
      1,
      `${shown}${REFUSED.slice('policies/p.yaml'.length)}\n` +
        'policy: the shipped default alone; policies/p.yaml refused (errors above), not applied\n' +
        '1 error in 1 of 2 files; 1 valid algorithm\n',
    ]);
    writeFileSync(path.join(dir, 'policies/p.yaml'), policy('p', '60'));
    const fixed = await runMain('validate', file);
    expect([fixed.code, fixed.out]).toEqual([
      0,
      'policy: p (policies/p.yaml over the shipped default)\n1 file valid, 1 algorithm\n',
    ]);
  });
});
