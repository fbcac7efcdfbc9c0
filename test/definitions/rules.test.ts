import { describe, expect, it } from 'vitest';
import type { SpecError } from '../../src/definitions/types.js';
import { boundAt, stringAt } from '../../src/definitions/rules/cross-field.js';
import { didYouMean } from '../../src/definitions/rules/did-you-mean.js';
import { compareSpecErrors, formatSpecError } from '../../src/definitions/rules/format.js';
import type { FieldProblem } from '../../src/definitions/rules/schema-errors.js';
import { isDnsLabel, isLabelKey, suggestDnsLabel } from '../../src/definitions/rules/dns-label.js';
import { isQuantity, quantityMessage } from '../../src/definitions/rules/quantity.js';

describe('Kubernetes quantities', () => {
  it.each([
    ['500m', true],
    ['4', true],
    ['0.5', true],
    ['.5', true],
    ['16Gi', true],
    ['16G', true],
    ['16k', true],
    ['1e3', true],
    ['1E3', true],
    ['+2Mi', true],
    ['16g', false],
    ['16K', false],
    ['16GB', false],
    ['1000abc', false],
    ['-1', false],
    ['', false],
    ['16 Gi', false],
    ['1.2.3', false],
  ])('%s → %s', (text, valid) => expect(isQuantity(text)).toBe(valid));

  it.each([
    ['16g', 'did you mean 16Gi or 16G?'],
    ['16GB', 'did you mean 16Gi or 16G?'],
    ['16gi', 'did you mean 16Gi?'],
    ['16GiB', 'did you mean 16Gi?'],
    ['16K', 'did you mean 16Ki or 16k?'],
    ['16 Gi', 'did you mean 16Gi?'],
    ['-2', 'is negative'],
  ])('hint for %s: %s', (text, hint) => expect(quantityMessage(text)).toContain(hint));

  it('gives no guess for garbage', () => expect(quantityMessage('1000abc')).not.toContain('did you mean'));
});

describe('DNS-1123 labels', () => {
  it.each([
    ['resnet50-infer', true],
    ['a', true],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['../x', false],
    ['Résumé v2', false],
    ['-a', false],
    ['a-', false],
    ['a.b', false],
    ['A', false],
  ])('%s → %s', (name, valid) => expect(isDnsLabel(name)).toBe(valid));

  it.each([
    ['Résumé v2', 'resume-v2'],
    ['../x', 'x'],
    ['My_Model', 'my-model'],
    ['...', undefined],
  ])('suggests %s → %s', (name, want) => expect(suggestDnsLabel(name)).toBe(want));

  it.each([
    ['gpuops.dev/pool', true],
    ['pool', true],
    ['a/b/c', false],
    ['Bad_Prefix/x', false],
    ['x/-y', false],
  ])('label key %s → %s', (key, valid) => expect(isLabelKey(key)).toBe(valid));
});

describe('didYouMean', () => {
  const known = ['image', 'command', 'args', 'env', 'resources', 'benchmark', 'scaling', 'placement'];
  it.each([
    ['imagee', 'image'],
    ['Image', 'image'],
    ['sclaing', 'scaling'],
    ['resource', 'resources'],
    ['arg', 'args'],
    ['replicas', undefined],
    ['xyz', undefined],
  ])('%s → %s', (word, want) => expect(didYouMean(word, known)).toBe(want));
});

describe('cross-field bounds: a value the schema already rejects is not judged again', () => {
  const doc = {
    spec: { min: 5, text: 'x', half: 0.5, inf: Number.POSITIVE_INFINITY, nan: Number.NaN, none: null },
  };
  const problem = (...path: (string | number)[]): FieldProblem => ({ path, at: 'value', message: 'm' });
  it.each<[string, string[], FieldProblem[], number | undefined, unknown]>([
    ['own number', ['spec', 'min'], [], 1, { value: 5, own: true }],
    [
      'own fraction (the schema judges wholeness)',
      ['spec', 'half'],
      [],
      undefined,
      { value: 0.5, own: true },
    ],
    ['unset: the fallback', ['spec', 'max'], [], 90, { value: 90, own: false }],
    ['unset, fallback 0', ['spec', 'max'], [], 0, { value: 0, own: false }],
    ['unset, no fallback', ['spec', 'max'], [], undefined, undefined],
    ['below a null: the fallback', ['spec', 'none', 'x'], [], 7, { value: 7, own: false }],
    ['a string', ['spec', 'text'], [], 1, undefined],
    ['infinite', ['spec', 'inf'], [], 1, undefined],
    ['NaN', ['spec', 'nan'], [], 1, undefined],
    ['a problem on the field', ['spec', 'min'], [problem('spec', 'min')], 1, undefined],
    ['a problem above the field', ['spec', 'min'], [problem('spec')], 1, undefined],
    ['a problem on a sibling', ['spec', 'min'], [problem('spec', 'max')], 1, { value: 5, own: true }],
    [
      'a problem deeper than the field',
      ['spec', 'min'],
      [problem('spec', 'min', 'x')],
      1,
      { value: 5, own: true },
    ],
  ])('boundAt: %s', (_name, path, problems, fallback, want) => {
    expect(boundAt(doc, path, problems, fallback)).toEqual(want);
  });

  it.each<[string, (string | number)[], FieldProblem[], string | undefined]>([
    ['a string', ['spec', 'text'], [], 'x'],
    ['a number is no string', ['spec', 'min'], [], undefined],
    ['missing', ['spec', 'nope'], [], undefined],
    ['through a list', ['spec', 'text', 0], [], undefined],
    ['a problem above', ['spec', 'text'], [problem('spec')], undefined],
    ['a problem on a sibling', ['spec', 'text'], [problem('spec', 'min')], 'x'],
  ])('stringAt: %s', (_name, path, problems, want) => {
    expect(stringAt(doc, path, problems)).toBe(want);
  });
});

describe('spec error lines', () => {
  const e = (file: string, line: number, column: number, field = 'spec.gpus'): SpecError => ({
    file,
    line,
    column,
    field,
    message: 'must be >= 1',
  });
  it('file:line:column: field: message; the whole document as (document)', () => {
    expect(formatSpecError(e('algorithms/a.yaml', 7, 9))).toBe(
      'algorithms/a.yaml:7:9: spec.gpus: must be >= 1',
    );
    expect(formatSpecError(e('algorithms/a.yaml', 1, 1, ''))).toBe(
      'algorithms/a.yaml:1:1: (document): must be >= 1',
    );
  });
  it('an error about a whole file or folder (line 0) has no position', () => {
    expect(formatSpecError(e('algorithms/', 0, 0, ''))).toBe('algorithms/: must be >= 1');
    expect(formatSpecError(e('policies/', 0, 0))).toBe('policies/: spec.gpus: must be >= 1');
    expect(formatSpecError(e('algorithms/a.yaml', 1, 0, ''))).toBe(
      'algorithms/a.yaml:1:0: (document): must be >= 1',
    );
  });
  it('sorted by file, then line, then column', () => {
    const errors = [
      e('b.yaml', 1, 1),
      e('a.yaml', 3, 1),
      e('a.yaml', 2, 5),
      e('a.yaml', 2, 3),
      e('a.yaml', 2, 3),
    ];
    expect(errors.sort(compareSpecErrors).map((x) => `${x.file}:${x.line}:${x.column}`)).toEqual([
      'a.yaml:2:3',
      'a.yaml:2:3',
      'a.yaml:2:5',
      'a.yaml:3:1',
      'b.yaml:1:1',
    ]);
    expect(compareSpecErrors(e('a.yaml', 2, 3), e('a.yaml', 2, 3))).toBe(0);
    expect(compareSpecErrors(e('b.yaml', 1, 1), e('a.yaml', 9, 9))).toBe(1);
  });
});
