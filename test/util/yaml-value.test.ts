/**
 * `documentValue`: a hand-edited file's YAML faults that `yaml` reports only by throwing from
 * `toJS` (an alias with no anchor, an alias bomb) come back as messages, beside the parse errors it
 * does list, so one bad file never stops a pass.
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { documentValue } from '../../src/util/yaml-value.js';

const bomb = [
  'a: &a [x, x, x, x, x, x, x, x, x, x]',
  ...'bcd'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abc'[i]}`).join(', ')}]`),
].join('\n');

describe('documentValue', () => {
  it.each<[string, string, unknown]>([
    ['a mapping', 'kind: Namespace\nmetadata: {name: a}\n', { kind: 'Namespace', metadata: { name: 'a' } }],
    ['an anchor set before its alias', 'x: &a 1\ny: *a\n', { x: 1, y: 1 }],
    ['an empty document', '', null],
  ])('%s: its value', (_name, text, value) => {
    expect(documentValue(parseAllDocuments(text)[0] ?? parseAllDocuments('~')[0]!)).toEqual({
      ok: true,
      value,
    });
  });

  it.each<[string, string, RegExp]>([
    ['an alias with no anchor', 'kind: Namespace\nx: *a\n', /Unresolved alias.*: a/],
    ['an alias used before its anchor', 'y: *a\nx: &a 1\n', /Unresolved alias/],
    ['a parse error', 'a: [1\n', /.+/],
    ['aliases that expand past the limit', bomb, /alias/i],
  ])('%s: a message, not an exception', (_name, text, message) => {
    const got = documentValue(parseAllDocuments(text)[0]!);
    expect(got.ok).toBe(false);
    expect(got.ok ? '' : got.error).toMatch(message);
  });
});
