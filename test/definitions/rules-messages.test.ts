import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/definitions/rules/did-you-mean.js';
import { dnsLabelMessage, isLabelKey, suggestDnsLabel } from '../../src/definitions/rules/dns-label.js';
import { documentProblems, envelopeProblem } from '../../src/definitions/rules/document.js';
import { parseDocuments } from '../../src/definitions/rules/yaml-documents.js';
import { validators } from '../../src/definitions/schema/compile.js';
import { isQuantity, quantityMessage } from '../../src/definitions/rules/quantity.js';
import { pointerToPath, schemaProblems, show } from '../../src/definitions/rules/schema-errors.js';

/** An ajv error as ajv reports it in `allErrors` + `verbose` mode (only the fields gpuops reads). */
function ajvError(
  keyword: string,
  instancePath: string,
  params: Record<string, unknown>,
  data?: unknown,
  extra: Partial<ErrorObject> = {},
): ErrorObject {
  return { keyword, instancePath, schemaPath: '#', params, data, ...extra };
}

describe('pointerToPath (RFC 6901)', () => {
  const data = { spec: { env: [{ name: 'A' }], labels: { '0': 'x' } }, none: null };
  it.each<[string, (string | number)[]]>([
    ['', []],
    ['/spec', ['spec']],
    ['/spec/env/0/name', ['spec', 'env', 0, 'name']],
    ['/spec/labels/0', ['spec', 'labels', '0']],
    ['/spec/env/x', ['spec', 'env', 'x']],
    ['/spec/nope/0/1', ['spec', 'nope', '0', '1']],
    ['/a~1b/~0c', ['a/b', '~c']],
    ['/~01', ['~1']],
    ['/spec/env/1a', ['spec', 'env', '1a']],
    ['/spec/env/a1', ['spec', 'env', 'a1']],
    ['/none/0/x', ['none', '0', 'x']],
  ])('%j', (pointer, want) => expect(pointerToPath(pointer, data)).toEqual(want));
});

describe('show', () => {
  it.each<[unknown, string]>([
    [null, 'an empty value'],
    ['x', 'the string "x"'],
    ['a'.repeat(40), `the string "${'a'.repeat(40)}"`],
    ['b'.repeat(41), `the string "${'b'.repeat(40)}…"`],
    [[1], 'a list'],
    [{ a: 1 }, 'a mapping'],
    [3, '3'],
    [false, 'false'],
    [1e23, '1e+23'],
    [Infinity, 'an infinite number (.inf, or a number beyond ±1.8e308)'],
    [-Infinity, 'an infinite number (-.inf, or a number beyond ±1.8e308)'],
    [NaN, 'not a number (.nan)'],
  ])('%j → %s', (value, want) => expect(show(value)).toBe(want));
});

describe('schemaProblems: one message per mistake', () => {
  const known = { properties: { image: {}, command: {}, args: {} } };
  it.each<[string, ErrorObject, { path: (string | number)[]; at: string; message: string }]>([
    [
      'an unknown field close to a known one',
      ajvError(
        'additionalProperties',
        '/spec',
        { additionalProperty: 'imagee' },
        {},
        { parentSchema: known },
      ),
      { path: ['spec', 'imagee'], at: 'key', message: 'unknown field "imagee"; did you mean "image"?' },
    ],
    [
      'an unknown field far from all',
      ajvError('additionalProperties', '/spec', { additionalProperty: 'zzz' }, {}, { parentSchema: known }),
      {
        path: ['spec', 'zzz'],
        at: 'key',
        message: 'unknown field "zzz"; known fields: image, command, args',
      },
    ],
    [
      'an unknown field where no field is known',
      ajvError('additionalProperties', '', { additionalProperty: 'zzz' }, {}, { parentSchema: {} }),
      { path: ['zzz'], at: 'key', message: 'unknown field "zzz"' },
    ],
    [
      'a missing field',
      ajvError('required', '/spec', { missingProperty: 'image' }),
      { path: ['spec', 'image'], at: 'key', message: 'required field "image" is missing' },
    ],
    [
      'a fraction where a whole number is due',
      ajvError('type', '/spec/runs', { type: 'integer' }, 0.5),
      { path: ['spec', 'runs'], at: 'value', message: 'must be a whole number, got 0.5' },
    ],
    [
      'a string where a number is due',
      ajvError('type', '/spec/runs', { type: 'number' }, '3'),
      { path: ['spec', 'runs'], at: 'value', message: 'must be a number, got the string "3"' },
    ],
    [
      'a number where a string is due',
      ajvError('type', '/spec/image', { type: 'string' }, 32),
      {
        path: ['spec', 'image'],
        at: 'value',
        message: 'must be a string, got 32; write it in quotes ("32")',
      },
    ],
    [
      'a boolean where a string is due',
      ajvError('type', '/spec/image', { type: 'string' }, true),
      {
        path: ['spec', 'image'],
        at: 'value',
        message: 'must be a string, got true; write it in quotes ("true")',
      },
    ],
    [
      'a list where a string is due: no quotes hint',
      ajvError('type', '/spec/image', { type: 'string' }, []),
      { path: ['spec', 'image'], at: 'value', message: 'must be a string, got a list' },
    ],
    [
      'a number where a mapping is due: no quotes hint',
      ajvError('type', '/spec', { type: 'object' }, 1),
      { path: ['spec'], at: 'value', message: 'must be a mapping, got 1' },
    ],
    [
      'a type without a plain name',
      ajvError('type', '/spec', { type: 'null' }, 1),
      { path: ['spec'], at: 'value', message: 'must be null, got 1' },
    ],
    [
      'the GPU count has its own message (type)',
      ajvError('type', '/spec/resources/gpus', { type: 'integer' }, 'two'),
      {
        path: ['spec', 'resources', 'gpus'],
        at: 'value',
        message:
          'must be a whole number of GPUs, at least 1, got the string "two" (nvidia.com/gpu is not divisible)',
      },
    ],
    [
      'the GPU count has its own message (minimum)',
      ajvError('minimum', '/spec/resources/gpus', { comparison: '>=', limit: 1 }, 0),
      {
        path: ['spec', 'resources', 'gpus'],
        at: 'value',
        message: 'must be a whole number of GPUs, at least 1, got 0 (nvidia.com/gpu is not divisible)',
      },
    ],
    [
      'the GPU count above a maximum: the generic message',
      ajvError('maximum', '/spec/resources/gpus', { comparison: '<=', limit: 8 }, 9),
      { path: ['spec', 'resources', 'gpus'], at: 'value', message: 'must be ≤ 8, got 9' },
    ],
    [
      'a const',
      ajvError('const', '/kind', { allowedValue: 'Algorithm' }, 'Pod'),
      { path: ['kind'], at: 'value', message: 'must be "Algorithm", got the string "Pod"' },
    ],
    [
      'an enum with a close value',
      ajvError('enum', '/mode', { allowedValues: ['gpuops', 'hpa'] }, 'HPA'),
      {
        path: ['mode'],
        at: 'value',
        message: 'must be one of gpuops, hpa, got the string "HPA"; did you mean "hpa"?',
      },
    ],
    [
      'an enum with a far value',
      ajvError('enum', '/mode', { allowedValues: ['gpuops', 'hpa'] }, 'keda'),
      { path: ['mode'], at: 'value', message: 'must be one of gpuops, hpa, got the string "keda"' },
    ],
    [
      'an enum with a number',
      ajvError('enum', '/mode', { allowedValues: [1, 2] }, 3),
      { path: ['mode'], at: 'value', message: 'must be one of 1, 2, got 3' },
    ],
    [
      'a DNS label',
      ajvError('format', '/metadata/name', { format: 'dns-1123-label' }, 'A'),
      {
        path: ['metadata', 'name'],
        at: 'value',
        message:
          '"A" must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit; did you mean "a"?',
      },
    ],
    [
      'a quantity',
      ajvError('format', '/cpu', { format: 'k8s-quantity' }, '2 m'),
      {
        path: ['cpu'],
        at: 'value',
        message:
          '"2 m" is not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 4, 16Gi; did you mean 2m or 2Mi or 2M?',
      },
    ],
    [
      'a label key',
      ajvError('format', '/key', { format: 'k8s-label-key' }, 'a/b/c'),
      {
        path: ['key'],
        at: 'value',
        message:
          '"a/b/c" is not a Kubernetes label key ([prefix/]name, name ≤ 63 characters of letters, digits, "-", "_", ".")',
      },
    ],
    [
      'an unknown format',
      ajvError('format', '/x', { format: 'uri' }, 'x'),
      { path: ['x'], at: 'value', message: 'must be a uri' },
    ],
    [
      'a known format on a non-string',
      ajvError('format', '/x', { format: 'dns-1123-label' }, 3),
      { path: ['x'], at: 'value', message: 'must be a dns-1123-label' },
    ],
    [
      'a minimum',
      ajvError('minimum', '/runs', { comparison: '>=', limit: 1 }, 0),
      { path: ['runs'], at: 'value', message: 'must be ≥ 1, got 0' },
    ],
    [
      'an exclusive minimum',
      ajvError('exclusiveMinimum', '/t', { comparison: '>', limit: 0 }, 0),
      { path: ['t'], at: 'value', message: 'must be > 0, got 0' },
    ],
    [
      'an exclusive maximum',
      ajvError('exclusiveMaximum', '/t', { comparison: '<', limit: 100 }, 100),
      { path: ['t'], at: 'value', message: 'must be < 100, got 100' },
    ],
    [
      'a comparison without a symbol',
      ajvError('maximum', '/t', { comparison: '=~', limit: 100 }, 101),
      { path: ['t'], at: 'value', message: 'must be =~ 100, got 101' },
    ],
    [
      'an empty string',
      ajvError('minLength', '/image', { limit: 1 }, ''),
      { path: ['image'], at: 'value', message: 'must not be empty' },
    ],
    [
      'a short string',
      ajvError('minLength', '/image', { limit: 3 }, 'ab'),
      { path: ['image'], at: 'value', message: 'must be at least 3 characters' },
    ],
    [
      'another keyword: ajv’s message',
      ajvError('pattern', '/x', {}, 'x', { message: 'must match pattern "^a"' }),
      { path: ['x'], at: 'value', message: 'must match pattern "^a"' },
    ],
    [
      'another keyword without a message: the keyword',
      ajvError('uniqueItems', '/x', {}, [1, 1]),
      { path: ['x'], at: 'value', message: 'uniqueItems' },
    ],
  ])('%s', (_name, error, want) => {
    const data = { spec: { env: [] } };
    const [problem, ...rest] = schemaProblems([error], data);
    expect(rest).toEqual([]);
    expect({ path: problem!.path, at: problem!.at, message: problem!.message }).toEqual(want);
    expect(problem!.keyword).toBe(error.keyword);
    expect(problem!.expected).toBe(error.keyword === 'type' ? error.params['type'] : undefined);
  });

  it('keeps the first problem of each field', () => {
    const problems = schemaProblems(
      [
        ajvError('type', '/a', { type: 'integer' }, 0.5),
        ajvError('minimum', '/a', { comparison: '>=', limit: 1 }, 0.5),
        ajvError('minimum', '/b', { comparison: '>=', limit: 1 }, 0),
        ajvError('required', '', { missingProperty: 'a' }),
      ],
      {},
    );
    expect(problems.map((p) => [p.path, p.keyword])).toEqual([
      [['a'], 'type'],
      [['b'], 'minimum'],
    ]);
  });
});

describe('didYouMean and editDistance', () => {
  it.each([
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['flaw', 'lawn', 2],
    ['same', 'same', 0],
    ['ab', 'ba', 2],
  ])('editDistance(%s, %s) = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });

  it.each<[string, string[], string | undefined]>([
    ['abcd', ['abce'], 'abce'],
    ['abcd', ['abxy'], undefined],
    ['abcde', ['abxye'], 'abxye'],
    ['abcde', ['axyze'], undefined],
    ['abcdefghijklmno', ['abcdefghijklxyz'], 'abcdefghijklxyz'],
    ['abcdefghijklmn', ['abcdefghijkxyz'], undefined],
    ['abcdefghij', ['abcdefghxy'], 'abcdefghxy'],
    ['abcdefghij', ['abcdefgxyz'], undefined],
    ['abcd', ['abcf', 'abce'], 'abcf'],
    ['abcd', ['abxy', 'abce'], 'abce'],
    ['IMAGEE', ['image'], 'image'],
    ['Image', ['imag', 'image'], 'image'],
    ['x', [], undefined],
  ])('%s in %j → %s', (word, known, want) => expect(didYouMean(word, known)).toBe(want));
});

describe('DNS-1123 label messages', () => {
  it.each<[string, string]>([
    ['a'.repeat(70), `"${'a'.repeat(20)}…" is 70 characters; a name is at most 63 (DNS-1123 label)`],
    [
      `A${'a'.repeat(62)}`,
      `"A${'a'.repeat(62)}" must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit; did you mean "${'a'.repeat(63)}"?`,
    ],
    [
      'My_Model',
      '"My_Model" must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit; did you mean "my-model"?',
    ],
    [
      '...',
      '"..." must be a DNS-1123 label: lower-case letters, digits and "-", starting and ending with a letter or digit',
    ],
  ])('%s', (name, want) => expect(dnsLabelMessage(name)).toBe(want));

  it.each<[string, string | undefined]>([
    ['ok', undefined],
    ['--x--', 'x'],
    ['a b', 'a-b'],
    [`${'a'.repeat(62)}-b`, 'a'.repeat(62)],
    [`${'a'.repeat(63)}b`, 'a'.repeat(63)],
    ['ÀB', 'ab'],
  ])('suggestDnsLabel(%s) = %s', (name, want) => expect(suggestDnsLabel(name)).toBe(want));

  it.each<[string, boolean]>([
    [`${'a'.repeat(253)}/x`, false],
    [`${'a.'.repeat(126)}a/x`, true],
    [`${'a.'.repeat(127)}a/x`, false],
    [`${'a'.repeat(63)}.b/x`, true],
    [`${'a'.repeat(64)}.b/x`, false],
    [`p/${'a'.repeat(63)}`, true],
    [`p/${'a'.repeat(64)}`, false],
    ['/x', false],
    ['a.b/c', true],
    ['a_b', true],
    ['a.b', true],
    ['_a', false],
    ['a_', false],
    ['', false],
    ['a/', false],
  ])('isLabelKey(%s) = %s', (key, want) => expect(isLabelKey(key)).toBe(want));
});

describe('quantities', () => {
  const base = (t: string) =>
    `"${t}" is not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 4, 16Gi`;
  it.each<[string, string]>([
    ['16g', `${base('16g')}; did you mean 16Gi or 16G?`],
    ['+16g', `${base('+16g')}; did you mean +16Gi or +16G?`],
    ['.5kb', `${base('.5kb')}; did you mean .5Ki or .5k?`],
    ['16mi', `${base('16mi')}; did you mean 16Mi?`],
    ['16MiB', `${base('16MiB')}; did you mean 16Mi?`],
    ['16 g', `${base('16 g')}; did you mean 16Gi or 16G?`],
    ['1 6', `${base('1 6')}; did you mean 16?`],
    ['1 6 g', `${base('1 6 g')}; did you mean 16Gi or 16G?`],
    ['16  Gi', `${base('16  Gi')}; did you mean 16Gi?`],
    ['16Gi', base('16Gi')],
    ['16x', base('16x')],
    ['x16g', base('x16g')],
    ['16gg', base('16gg')],
    ['-2', '"-2" is negative; a resource request is at least 0'],
    [' -2', '" -2" is negative; a resource request is at least 0'],
    ['1-2', base('1-2')],
  ])('%j', (text, want) => expect(quantityMessage(text)).toBe(want));

  it.each<[string, boolean]>([
    ['1.', true],
    ['1e+3', true],
    ['1e-3', true],
    ['1Ei', true],
    ['2E', true],
    ['1e', false],
    ['Ki', false],
    ['.', false],
    ['+', false],
    ['1ki', false],
    ['1m ', false],
    [' 1', false],
    ['1Mi1', false],
    ['x1', false],
  ])('isQuantity(%j) = %s', (text, want) => expect(isQuantity(text)).toBe(want));
});

describe('envelopeProblem', () => {
  const api = 'gpuops.dev/v1alpha1';
  it.each<[string, unknown, 'Algorithm' | 'Policy', unknown]>([
    [
      'a list',
      [1],
      'Algorithm',
      {
        path: [],
        at: 'value',
        message: 'a document must be a mapping with apiVersion, kind, metadata and spec, got a list',
      },
    ],
    [
      'a scalar',
      'x',
      'Algorithm',
      {
        path: [],
        at: 'value',
        message: 'a document must be a mapping with apiVersion, kind, metadata and spec, got the string "x"',
      },
    ],
    [
      'null',
      null,
      'Policy',
      {
        path: [],
        at: 'value',
        message: 'a document must be a mapping with apiVersion, kind, metadata and spec, got an empty value',
      },
    ],
    [
      'no apiVersion',
      { kind: 'Algorithm' },
      'Algorithm',
      { path: ['apiVersion'], at: 'key', message: `required field "apiVersion" is missing (${api})` },
    ],
    [
      'another apiVersion',
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      'Algorithm',
      { path: ['apiVersion'], at: 'value', message: `must be "${api}", got the string "apps/v1"` },
    ],
    [
      'no kind',
      { apiVersion: api },
      'Policy',
      { path: ['kind'], at: 'key', message: 'required field "kind" is missing (Policy)' },
    ],
    [
      'a Policy in algorithms/',
      { apiVersion: api, kind: 'Policy' },
      'Algorithm',
      {
        path: ['kind'],
        at: 'value',
        message:
          'must be "Algorithm" in algorithms/, got the string "Policy"; Policy documents belong under policies/',
      },
    ],
    [
      'an unknown kind',
      { apiVersion: api, kind: 'Deployment' },
      'Policy',
      { path: ['kind'], at: 'value', message: 'must be "Policy" in policies/, got the string "Deployment"' },
    ],
    [
      'kind: constructor is no folder’s kind',
      { apiVersion: api, kind: 'constructor' },
      'Algorithm',
      {
        path: ['kind'],
        at: 'value',
        message: 'must be "Algorithm" in algorithms/, got the string "constructor"',
      },
    ],
    [
      'kind: toString',
      { apiVersion: api, kind: 'toString' },
      'Policy',
      { path: ['kind'], at: 'value', message: 'must be "Policy" in policies/, got the string "toString"' },
    ],
    [
      'a kind that is no string',
      { apiVersion: api, kind: 3 },
      'Policy',
      { path: ['kind'], at: 'value', message: 'must be "Policy" in policies/, got 3' },
    ],
    [
      'a kind that is a list',
      { apiVersion: api, kind: ['Policy'] },
      'Algorithm',
      { path: ['kind'], at: 'value', message: 'must be "Algorithm" in algorithms/, got a list' },
    ],
    ['the right kind', { apiVersion: api, kind: 'Policy' }, 'Policy', undefined],
  ])('%s', (_name, value, kind, want) => expect(envelopeProblem(value, kind)).toEqual(want));
});

describe('documentProblems: unquoted YAML 1.1 booleans beside the schema', () => {
  const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata:\n  name: one\n';
  it.each<[string, string, [string, string][]]>([
    [
      'in a string field: quote it',
      `${HEAD}  labels: {tracing: on}\nspec: {image: x, resources: {gpus: 1}}\n`,
      [
        [
          'metadata.labels.tracing',
          'unquoted on is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); write "on" in quotes for a string, or true/false for a boolean',
        ],
      ],
    ],
    [
      'where a number is due: the schema’s problem only',
      `${HEAD}spec: {image: x, resources: {gpus: yes}}\n`,
      [
        [
          'spec.resources.gpus',
          'must be a whole number of GPUs, at least 1, got the string "yes" (nvidia.com/gpu is not divisible)',
        ],
      ],
    ],
    [
      'under an unknown field: the unknown field only',
      `${HEAD}spec: {image: x, resources: {gpus: 1}, extra: {debug: yes}}\n`,
      [
        [
          'spec.extra',
          'unknown field "extra"; known fields: image, command, args, env, resources, gpu, benchmark, scaling, placement, modelCache, template',
        ],
      ],
    ],
    [
      'where an enum is due: the schema’s problem only',
      `${HEAD}spec: {image: x, resources: {gpus: 1}, placement: {pool: no}}\n`,
      [['spec.placement.pool', 'must be one of auto, long-task, short-task, got the string "no"']],
    ],
    [
      'beside an unknown field: both',
      `${HEAD}  labels: {a: on}\n  extra: 1\nspec: {image: x, resources: {gpus: 1}}\n`,
      [
        ['metadata.extra', 'unknown field "extra"; known fields: name, namespace, labels, annotations'],
        [
          'metadata.labels.a',
          'unquoted on is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); write "on" in quotes for a string, or true/false for a boolean',
        ],
      ],
    ],
    [
      'as the value of an unknown field: the unknown field only',
      `${HEAD}spec: {image: x, resources: {gpus: 1}, debug: yes}\n`,
      [
        [
          'spec.debug',
          'unknown field "debug"; known fields: image, command, args, env, resources, gpu, benchmark, scaling, placement, modelCache, template',
        ],
      ],
    ],
    ['a valid document', `${HEAD}spec: {image: x, resources: {gpus: 1}}\n`, []],
  ])('%s', (_name, text, want) => {
    const [parsed] = parseDocuments({ path: 'a.yaml', text }).documents;
    const problems = documentProblems(validators().algorithm, parsed!.value, parsed!);
    expect(problems.map((p) => [p.path.join('.'), p.message])).toEqual(want);
  });

  it('where a boolean is due: one problem, "write true or false", in place of the type problem', () => {
    const text =
      'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec:\n  pools: {taint: {enabled: yes}}\n';
    const [parsed] = parseDocuments({ path: 'p.yaml', text }).documents;
    const problems = documentProblems(validators().policy, parsed!.value, parsed!);
    const here = problems.filter((p) => p.path.join('.') === 'spec.pools.taint.enabled');
    expect(here.map((p) => [p.at, p.message])).toEqual([
      [
        'value',
        'unquoted yes is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); write true or false',
      ],
    ]);
  });
});
