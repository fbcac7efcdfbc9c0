import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/spec/rules/did-you-mean.js';
import { isDnsLabel, isLabelKey, suggestDnsLabel } from '../../src/spec/rules/dns-label.js';
import { isQuantity, quantityMessage } from '../../src/spec/rules/quantity.js';

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
