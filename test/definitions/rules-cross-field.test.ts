import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crossFieldProblems, parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import {
  mergePolicy,
  parseDefaultPolicy,
  parsePolicy,
  policyCrossProblems,
} from '../../src/definitions/rules/policy.js';
import { parseRepo } from '../../src/definitions/rules/repo.js';
import type { Policy, PolicySpec } from '../../src/definitions/types.js';

const DEFAULT_TEXT = readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8');

/** The shipped default policy (replicas 1..8, utilisation 30..80 %), parsed in the calling test. */
function defaults(edit: (p: PolicySpec) => void = () => {}): Policy {
  const policy = parseDefaultPolicy({ path: 'policies/default.yaml', text: DEFAULT_TEXT });
  edit(policy.spec);
  return policy;
}

const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: one}\nspec:\n  image: x:1\n';
const POLICY_HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n';
/** A Policy head with its own name: two documents of one name are refused (the later one). */
const headNamed = (name: string) => POLICY_HEAD.replace('{name: team}', `{name: ${name}}`);

describe('crossFieldProblems: which bound the problem names', () => {
  it.each<[string, (p: PolicySpec) => void, unknown, [string, string][]]>([
    [
      'the spec sets min above the policy max: min',
      () => {},
      { spec: { scaling: { minReplicas: 9 } } },
      [['spec.scaling.minReplicas', 'minReplicas 9 is above maxReplicas 8 (policy default)']],
    ],
    [
      'the spec sets max below the policy min: max',
      (p) => (p.scaling.minReplicas = 3),
      { spec: { scaling: { maxReplicas: 2 } } },
      [['spec.scaling.maxReplicas', 'minReplicas 3 (policy default) is above maxReplicas 2']],
    ],
    [
      'the spec sets both: min, no default named',
      () => {},
      { spec: { scaling: { minReplicas: 3, maxReplicas: 2 } } },
      [['spec.scaling.minReplicas', 'minReplicas 3 is above maxReplicas 2']],
    ],
    [
      'the spec sets min equal to the policy max: a fixed size',
      () => {},
      { spec: { scaling: { minReplicas: 8 } } },
      [],
    ],
    [
      'the spec sets neither: the policy’s own mistake is not the spec’s',
      (p) => {
        p.scaling.minReplicas = 5;
        p.scaling.maxReplicas = 2;
        p.scaling.utilization = { min: 90, max: 10 };
      },
      { spec: {} },
      [],
    ],
    [
      'the spec sets utilization max below the policy min: max',
      () => {},
      { spec: { scaling: { utilization: { max: 20 } } } },
      [['spec.scaling.utilization.max', 'utilization min 30% (policy default) must be below max 20%']],
    ],
    [
      'the spec sets utilization min equal to the policy max: min',
      () => {},
      { spec: { scaling: { utilization: { min: 80 } } } },
      [['spec.scaling.utilization.min', 'utilization min 80% must be below max 80% (policy default)']],
    ],
    [
      'utilization min just below max is valid',
      () => {},
      { spec: { scaling: { utilization: { min: 79.5 } } } },
      [],
    ],
  ])('%s', (_name, edit, value, want) => {
    const problems = crossFieldProblems(value, defaults(edit));
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual(want);
    expect(problems.every((p) => p.at === 'value')).toBe(true);
  });

  it('leaves out a bound the schema rejects, and defaults to no schema problems', () => {
    const value = { spec: { scaling: { minReplicas: 9, utilization: { min: 90 } } } };
    const problem = { path: ['spec', 'scaling', 'minReplicas'], at: 'value' as const, message: 'm' };
    expect(crossFieldProblems(value, defaults(), [problem]).map((p) => p.path.join('.'))).toEqual([
      'spec.scaling.utilization.min',
    ]);
    expect(crossFieldProblems(value, defaults()).map((p) => p.path.join('.'))).toEqual([
      'spec.scaling.minReplicas',
      'spec.scaling.utilization.min',
    ]);
  });
});

describe('policyCrossProblems: the bound the applied document sets', () => {
  const merged = (scaling: object) => ({ spec: { scaling } });
  it.each<[string, object, unknown, [string, string][]]>([
    [
      'the default policy itself (no override): min',
      merged({ minReplicas: 3, maxReplicas: 2 }),
      undefined,
      [['spec.scaling.minReplicas', 'minReplicas 3 is above maxReplicas 2']],
    ],
    [
      'an override that sets max: max',
      merged({ minReplicas: 3, maxReplicas: 2 }),
      merged({ maxReplicas: 2 }),
      [['spec.scaling.maxReplicas', 'minReplicas 3 is above maxReplicas 2']],
    ],
    [
      'an override that sets min: min',
      merged({ minReplicas: 3, maxReplicas: 2 }),
      merged({ minReplicas: 3 }),
      [['spec.scaling.minReplicas', 'minReplicas 3 is above maxReplicas 2']],
    ],
    [
      'an override with scaling as a list: max',
      merged({ minReplicas: 3, maxReplicas: 2 }),
      { spec: { scaling: [] } },
      [['spec.scaling.maxReplicas', 'minReplicas 3 is above maxReplicas 2']],
    ],
    [
      'an override that sets utilization max: max',
      merged({ utilization: { min: 50, max: 50 } }),
      merged({ utilization: { max: 50 } }),
      [['spec.scaling.utilization.max', 'utilization min 50% must be below max 50%']],
    ],
    [
      'an override that sets utilization min: min',
      merged({ utilization: { min: 60, max: 50 } }),
      merged({ utilization: { min: 60 } }),
      [['spec.scaling.utilization.min', 'utilization min 60% must be below max 50%']],
    ],
    ['equal replica bounds', merged({ minReplicas: 2, maxReplicas: 2 }), undefined, []],
    ['a missing bound', merged({ minReplicas: 2, utilization: { max: 50 } }), undefined, []],
  ])('%s', (_name, p, override, want) => {
    const problems = policyCrossProblems(p, override);
    expect(problems.map((x) => [x.path.join('.'), x.message])).toEqual(want);
    expect(problems.every((x) => x.at === 'value')).toBe(true);
  });
});

describe('mergePolicy', () => {
  it.each<[string, unknown, unknown, unknown]>([
    ['a scalar replaces a mapping', { a: { b: 1 } }, { a: 2 }, { a: 2 }],
    ['a mapping replaces a scalar', { a: 1 }, { a: { b: 2 } }, { a: { b: 2 } }],
    ['null replaces', { a: { b: 1 } }, { a: null }, { a: null }],
    ['a list replaces a mapping', { a: { b: 1 } }, { a: [1] }, { a: [1] }],
    ['new keys come after the base keys', { a: 1 }, { c: 3, a: 2 }, { a: 2, c: 3 }],
    ['a list base is replaced', [1, 2], { a: 1 }, { a: 1 }],
  ])('%s', (_name, base, override, want) => {
    const out = mergePolicy(base, override);
    expect(out).toEqual(want);
    expect(Object.keys(out as object)).toEqual(Object.keys(want as object));
  });

  it('copies what it takes from the override', () => {
    const override = { a: { list: [1] }, b: { c: { d: 1 } } };
    const out = mergePolicy<unknown>({ a: { x: 1 } }, override) as typeof override;
    out.a.list.push(2);
    out.b.c.d = 2;
    expect(override).toEqual({ a: { list: [1] }, b: { c: { d: 1 } } });
  });

  it('treats __proto__ and constructor as fields, not as the prototype', () => {
    const override = JSON.parse('{"__proto__": {"x": 1}, "constructor": {"y": 2}, "a": {"b": 2}}') as object;
    const out = mergePolicy({ a: { c: 1 } }, override) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['a', '__proto__', 'constructor']);
    expect(out['constructor']).toEqual({ y: 2 });
    expect(out['a']).toEqual({ c: 1, b: 2 });
  });
});

describe('parsePolicy and parseDefaultPolicy', () => {
  it('reports __proto__ in a policy as an unknown field and applies nothing of it', () => {
    const out = parsePolicy(defaults(), [
      { path: 'policies/a.yaml', text: `${POLICY_HEAD}  __proto__: {namespace: x}\n` },
    ]);
    expect(out.errors.map((e) => [e.line, e.column, e.field])).toEqual([[5, 3, 'spec.__proto__']]);
    expect(out.errors[0]!.message).toMatch(/^unknown field "__proto__"/);
    expect(out.policy.spec.namespace).toBe('algorithms');
    expect(Object.getPrototypeOf(out.policy.spec)).toBe(Object.prototype);
  });

  it('sorts errors by file and line, and a wrong envelope is one error', () => {
    const out = parsePolicy(defaults(), [
      { path: 'policies/b.yaml', text: `${POLICY_HEAD}  scaling: {minReplicas: 0}\n` },
      { path: 'policies/a.yaml', text: `${headNamed('ay')}  nope: 1\n---\nkind: Policy\n` },
      { path: 'policies/c.yaml', text: 'a: [\n' },
    ]);
    expect(out.errors.map((e) => [e.file, e.line, e.field])).toEqual([
      ['policies/a.yaml', 5, 'spec.nope'],
      ['policies/a.yaml', 7, 'apiVersion'],
      ['policies/b.yaml', 5, 'spec.scaling.minReplicas'],
      ['policies/c.yaml', 1, 'a'],
    ]);
  });

  it('applies a later file over an earlier one given first', () => {
    const out = parsePolicy(defaults(), [
      { path: 'policies/b.yaml', text: `${headNamed('bee')}  namespace: bee\n` },
      { path: 'policies/a.yaml', text: `${headNamed('ay')}  namespace: ay\n` },
    ]);
    expect(out.errors).toEqual([]);
    expect(out.policy.spec.namespace).toBe('bee');
  });

  it.each<[string, string, RegExp]>([
    ['no document', '# nothing\n', /^the default policy d\.yaml is not one valid Policy document\n?$/],
    ['two documents', `${DEFAULT_TEXT}\n---\n${DEFAULT_TEXT}`, /is not one valid Policy document/],
    [
      'another kind',
      DEFAULT_TEXT.replace('kind: Policy', 'kind: Algorithm'),
      /is not one valid Policy document\nd\.yaml:\d+:7: kind: must be "Policy" in policies\//,
    ],
    ['a syntax error', `${DEFAULT_TEXT}\nx: [\n`, /\nd\.yaml:\d+:1: x: YAML syntax/],
    [
      'a cross-field error',
      DEFAULT_TEXT.replace(/maxReplicas: \d+/, 'maxReplicas: 0').replace(
        /minReplicas: \d+/,
        'minReplicas: 1',
      ),
      /spec\.scaling\.maxReplicas: must be ≥ 1/,
    ],
  ])('parseDefaultPolicy throws on %s', (_name, text, want) => {
    expect(() => parseDefaultPolicy({ path: 'd.yaml', text })).toThrow(want);
  });

  it('parseDefaultPolicy returns the one valid Policy', () => {
    const p = parseDefaultPolicy({ path: 'd.yaml', text: DEFAULT_TEXT });
    expect(p.kind).toBe('Policy');
    expect(p.spec.scaling.minReplicas).toBe(1);
    expect(p.spec.scaling.maxReplicas).toBe(8);
  });
});

describe('parseAlgorithms and parseRepo', () => {
  it('keeps a merged quantity as text too, and fills every field the spec sets', () => {
    const text = [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: one, namespace: ml, annotations: {a: b}}',
      'spec:',
      '  image: x:1',
      '  resources: {<<: {cpu: 1e3}, gpus: 1, memory: 2}',
      '  scaling: {minReplicas: 2, maxReplicas: 3, utilization: {min: 10, max: 20}}',
      '  benchmark: {args: [--x], runs: 5, timeoutSeconds: 60}',
      '  placement: {pool: long-task}',
      '',
    ].join('\n');
    const policy = defaults((p) => (p.allowedNamespaces = ['algorithms', 'ml']));
    const out = parseAlgorithms([{ path: 'algorithms/a.yaml', text: `\n${text}` }], policy);
    expect(out.errors).toEqual([]);
    const [a] = out.algorithms;
    expect(a?.spec.resources).toEqual({ gpus: 1, cpu: '1000', memory: '2' });
    expect(a).toMatchObject({
      name: 'one',
      namespace: 'ml',
      scaling: { minReplicas: 2, maxReplicas: 3, utilization: { min: 10, max: 20 } },
      benchmark: { args: ['--x'], runs: 5, timeoutSeconds: 60 },
      placement: 'long-task',
      annotations: { a: 'b' },
      source: { file: 'algorithms/a.yaml', line: 2 },
    });
  });

  it('has no annotations key when the spec has none', () => {
    const out = parseAlgorithms(
      [{ path: 'algorithms/a.yaml', text: `${HEAD}  resources: {gpus: 1}\n` }],
      defaults(),
    );
    expect(Object.keys(out.algorithms[0]!)).not.toContain('annotations');
  });

  it('an invalid name takes no part in the duplicate rule', () => {
    const out = parseAlgorithms(
      [
        {
          path: 'algorithms/a.yaml',
          text: `${HEAD.replace('name: one', 'name: One')}  resources: {gpus: 1}\n`,
        },
        {
          path: 'algorithms/b.yaml',
          text: `${HEAD.replace('name: one', 'name: One')}  resources: {gpus: 1}\n`,
        },
      ],
      defaults(),
    );
    expect(out.errors.map((e) => [e.file, e.field])).toEqual([
      ['algorithms/a.yaml', 'metadata.name'],
      ['algorithms/b.yaml', 'metadata.name'],
    ]);
    expect(out.errors.every((e) => !e.message.includes('duplicate'))).toBe(true);
  });

  it('reads files in path order whatever order they come in, and names each file’s documents', () => {
    const doc = (name: string) => `${HEAD.replace('name: one', `name: ${name}`)}  resources: {gpus: 1}\n`;
    const out = parseAlgorithms(
      [
        { path: 'algorithms/c.yaml', text: doc('same') },
        { path: 'algorithms/a.yaml', text: `${doc('a1')}---\n${doc('a2')}` },
        { path: 'algorithms/b.yaml', text: doc('same') },
      ],
      defaults(),
    );
    expect(out.algorithms.map((a) => `${a.source.file}:${a.name}`)).toEqual([
      'algorithms/a.yaml:a1',
      'algorithms/a.yaml:a2',
      'algorithms/b.yaml:same',
    ]);
    expect(out.errors.map((e) => [e.file, e.message])).toEqual([
      [
        'algorithms/c.yaml',
        'duplicate algorithm name "same": already defined at algorithms/b.yaml:3:18; names must be unique in the repo',
      ],
    ]);
    expect([...out.names]).toEqual([
      ['algorithms/a.yaml', ['a1', 'a2']],
      ['algorithms/b.yaml', ['same']],
      ['algorithms/c.yaml', ['same']],
    ]);
  });

  it('parseRepo merges the policies first, counts the files and sorts every error', () => {
    const repo = parseRepo(defaults(), {
      policies: [
        { path: 'policies/z.yaml', text: `${headNamed('zed')}  x: 1\n` },
        { path: 'policies/p.yaml', text: `${POLICY_HEAD}  scaling: {maxReplicas: 2}\n` },
      ],
      algorithms: [
        { path: 'algorithms/a.yaml', text: `${HEAD}  resources: {gpus: 1}\n  scaling: {minReplicas: 3}\n` },
        { path: 'algorithms/b.yaml', text: `${HEAD.replace('one', 'two')}  resources: {gpus: 1}\n` },
      ],
    });
    expect(repo.files).toBe(4);
    expect(repo.policy.spec.scaling.maxReplicas).toBe(2);
    expect(repo.algorithms.map((a) => [a.name, a.scaling.maxReplicas])).toEqual([['two', 2]]);
    expect(repo.errors.map((e) => [e.file, e.field])).toEqual([
      ['algorithms/a.yaml', 'spec.scaling.minReplicas'],
      ['policies/z.yaml', 'spec.x'],
    ]);
    expect(repo.errors[0]!.message).toBe('minReplicas 3 is above maxReplicas 2 (policy default)');
    expect([...(repo.names ?? new Map())]).toEqual([
      ['algorithms/a.yaml', ['one']],
      ['algorithms/b.yaml', ['two']],
    ]);
  });
});
