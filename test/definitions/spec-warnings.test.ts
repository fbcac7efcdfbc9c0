/**
 * Values valid but most likely meant otherwise, and policy names used twice (newcomer-4 faults):
 * a utilisation band written as a ratio warns at its field (never refuses), the neighbour across
 * the boundary stays silent; `pools.test.size: 0` warns unless `perGPUProduct`; a template's
 * mount path follows the model cache's written rule; a second Policy with one `metadata.name` is
 * refused at its name, naming the first.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseRepo } from '../../src/definitions/rules/repo.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** A policy file whose `spec` is the flow mapping `spec` (on line 5). */
const policy = (name: string, spec: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata:\n  name: ${name}\nspec: ${spec}\n`;
/** An Algorithm whose `scaling` is `scaling` (on line 7), and its pod template `pod` (line 8). */
const algorithm = (scaling: string, pod = '{}') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: a}',
    'spec:',
    '  image: registry.example.com/ml/a:1.0',
    '  resources: {gpus: 1}',
    `  scaling: ${scaling}`,
    `  template: {spec: ${pod}}`,
    '',
  ].join('\n');

const load = (policies: Record<string, string>, algorithms: Record<string, string> = {}) =>
  parseRepo(defaults, {
    policies: Object.entries(policies).map(([path, text]) => ({ path, text })),
    algorithms: Object.entries(algorithms).map(([path, text]) => ({ path, text })),
  });
const shown = (errs: { file: string; line: number; field: string; message: string }[] | undefined) =>
  (errs ?? []).map((e) => `${e.file}:${e.line} ${e.field}: ${e.message}`);

describe('a utilisation band written as a ratio', () => {
  it.each([
    ['min 0.3 beside the default max 80', '{min: 0.3}', ['min']],
    ['min 0.99', '{min: 0.99}', ['min']],
    ['a whole ratio band', '{min: 0.3, max: 0.8}', ['min', 'max']],
    ['min 0, max 1', '{min: 0, max: 1}', ['max']],
  ])('policy: %s warns at each ratio bound, the policy still applies', (_, band, fields) => {
    const repo = load({ 'policies/p.yaml': policy('p', `{scaling: {utilization: ${band}}}`) });
    expect(repo.errors).toEqual([]);
    expect(repo.policyFiles).toEqual(['policies/p.yaml']);
    expect((repo.warnings ?? []).map((w) => [w.file, w.line, w.field])).toEqual(
      fields.map((f) => ['policies/p.yaml', 5, `spec.scaling.utilization.${f}`]),
    );
    expect(repo.warnings![0]!.message).toMatch(/reads as a ratio, but the band is percent, 0-100/);
  });

  it.each([
    ['min 1 (a whole percent)', '{min: 1}'],
    ['min 0, max 1.5', '{min: 0, max: 1.5}'],
    ['the documented 30/80', '{min: 30, max: 80}'],
  ])('policy: %s is a percent as written: no warning', (_, band) => {
    const repo = load({ 'policies/p.yaml': policy('p', `{scaling: {utilization: ${band}}}`) });
    expect([repo.errors, repo.warnings]).toEqual([[], undefined]);
  });

  it('an Algorithm band: min 0.5 warns at line 7, min 5 does not; both specs are valid', () => {
    const repo = load(
      {},
      {
        'algorithms/a.yaml': algorithm('{utilization: {min: 0.5}}'),
        'algorithms/b.yaml': algorithm('{utilization: {min: 5}}').replace('name: a', 'name: b'),
      },
    );
    expect(repo.algorithms.map((a) => a.name)).toEqual(['a', 'b']);
    expect(shown(repo.warnings)).toEqual([
      expect.stringMatching(
        /^algorithms\/a\.yaml:7 spec\.scaling\.utilization\.min: 0\.5 reads as a ratio.*write 50$/,
      ),
    ]);
  });
});

describe('pools.test.size: 0', () => {
  it('warns at the field: no test pool, so a spec without gpu.product is never benchmarked', () => {
    const repo = load({ 'policies/p.yaml': policy('p', '{pools: {test: {size: 0}}}') });
    expect(repo.errors).toEqual([]);
    expect(shown(repo.warnings)).toEqual([
      expect.stringMatching(
        /^policies\/p\.yaml:5 spec\.pools\.test\.size: no test pool: an algorithm without spec\.gpu\.product is never benchmarked/,
      ),
    ]);
  });
  it.each([
    ['size 1', '{pools: {test: {size: 1}}}'],
    ['size 0 with perGPUProduct', '{pools: {test: {size: 0, perGPUProduct: true}}}'],
  ])('%s: no warning', (_, spec) => {
    expect(load({ 'policies/p.yaml': policy('p', spec) }).warnings).toBeUndefined();
  });
});

describe('two Policy documents with one metadata.name', () => {
  it('the later is refused at its name, naming the first; the first applies', () => {
    const repo = load({
      'policies/a.yaml': policy('team', '{scaling: {utilization: {max: 90}}}'),
      'policies/b.yaml': policy('team', '{scaling: {utilization: {max: 70}}}'),
    });
    expect(shown(repo.errors)).toEqual([
      'policies/b.yaml:4 metadata.name: duplicate policy name "team": already defined at policies/a.yaml:4:9; this document is not applied (merge it into that one, or give it its own name)',
    ]);
    expect(repo.policyFiles).toEqual(['policies/a.yaml']);
    expect(repo.policy.spec.scaling.utilization.max).toBe(90);
  });
  it('two names: both apply, the later winning field by field', () => {
    const repo = load({
      'policies/a.yaml': policy('team', '{scaling: {utilization: {max: 90}}}'),
      'policies/b.yaml': policy('team-2', '{scaling: {utilization: {max: 70}}}'),
    });
    expect([repo.errors, repo.policyFiles, repo.policy.spec.scaling.utilization.max]).toEqual([
      [],
      ['policies/a.yaml', 'policies/b.yaml'],
      70,
    ]);
  });
});

describe("a template's own mount path follows the model cache's written rule", () => {
  const pod = (path: string) =>
    `{volumes: [{name: data, emptyDir: {}}], containers: [{volumeMounts: [{name: data, mountPath: "${path}"}]}]}`;
  it.each([
    [
      '/data:ro',
      /"\/data:ro" holds ":": a mount path takes no options.*set readOnly: true on it, write the path alone, e\.g\. "\/data"/,
    ],
    ['/data ', /starts or ends with white space/],
    ['data', /is not an absolute path/],
  ])('%s is refused at volumeMounts[0].mountPath', (path, message) => {
    const repo = load({}, { 'algorithms/a.yaml': algorithm('{}', pod(path)) });
    expect(repo.errors.map((e) => [e.line, e.field])).toEqual([
      [8, 'spec.template.spec.containers[0].volumeMounts[0].mountPath'],
    ]);
    expect(repo.errors[0]!.message).toMatch(message);
  });
  it('/data (the neighbour) is taken', () => {
    const repo = load({}, { 'algorithms/a.yaml': algorithm('{}', pod('/data')) });
    expect([repo.errors, repo.algorithms.length]).toEqual([[], 1]);
  });
});
