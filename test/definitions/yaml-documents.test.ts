import { describe, expect, it } from 'vitest';
import {
  ambiguousBooleans,
  findNode,
  formatPath,
  locate,
  parseDocuments,
  scalarSource,
  type ParsedDocument,
  type PathSegment,
} from '../../src/definitions/rules/yaml-documents.js';

/** The one parsed document of `text` (fails the test when there is not exactly one). */
function one(text: string): ParsedDocument {
  const { documents, errors } = parseDocuments({ path: 'f.yaml', text });
  expect(errors).toEqual([]);
  expect(documents).toHaveLength(1);
  return documents[0]!;
}

describe('formatPath', () => {
  it.each<[PathSegment[], string]>([
    [[], ''],
    [['spec'], 'spec'],
    [['spec', 'env', 0, 'name'], 'spec.env[0].name'],
    [[0, 'a'], '[0].a'],
    [[0, 1], '[0][1]'],
  ])('%j → %s', (path, want) => expect(formatPath(path)).toBe(want));
});

describe('parseDocuments: YAML errors name the line and field of the mistake', () => {
  /** [name, text, [line, column, field, message start] of each error] */
  it.each<[string, string, [number, number, string, string][]]>([
    [
      'UnclosedFlowSequenceAtTheEndOfAFileWithoutFinalNewline',
      'a: 1\nspec: [unclosed',
      [[2, 1, 'spec', 'YAML syntax: Flow sequence']],
    ],
    [
      'UnclosedFlowSequenceAtTheEndOfAFileWithFinalNewline',
      'a: 1\nspec: [unclosed\n',
      [[2, 1, 'spec', 'YAML syntax: Flow sequence']],
    ],
    [
      'UnclosedValueOnTheLineBelowItsKeyWithoutFinalNewline',
      'spec:\n  x:\n    [a',
      [[3, 5, 'spec.x', 'YAML syntax: Flow sequence']],
    ],
    [
      'UnclosedQuoteOnTheLineBelowItsKeyWithoutFinalNewline',
      'spec:\n  x:\n    "a',
      [[3, 5, 'spec.x', 'YAML syntax: Missing closing "quote']],
    ],
    [
      'UnclosedQuoteAtTheEndOfAFileWithoutFinalNewline',
      'spec:\n  x: "a',
      [[2, 3, 'spec.x', 'YAML syntax: Missing closing "quote']],
    ],
    [
      'UnclosedValueBeforeADocumentMarkerIsShownOnItsOwnLine',
      'spec:\n  x:\n    [a\n---\nb: 1\n',
      [[3, 5, 'spec.x', 'YAML syntax: Flow sequence']],
    ],
    [
      'UnclosedValueBeforeADocumentEndMarker',
      'spec:\n  x: [a\n...\n',
      [[2, 3, 'spec.x', 'YAML syntax: Flow sequence']],
    ],
    [
      'UnclosedValueBeforeTrailingBlankLines',
      'spec:\n  x: [a\n\n  \n',
      [[2, 3, 'spec.x', 'YAML syntax: Flow sequence']],
    ],
    [
      'DuplicateKeyAfterAnotherKeyNamesTheDuplicate',
      'a: 1\nb: 2\na:\n  3\n',
      [[3, 1, 'a', 'duplicate key "a": a key may appear only once in a mapping']],
    ],
    [
      'DuplicateKeyAfterANestedMappingNamesTheOuterKey',
      'a: 1\nb:\n  c: 1\nb: 2\n',
      [[4, 1, 'b', 'duplicate key "b"']],
    ],
    [
      'DuplicateKeyInAListItemNamesTheField',
      'env:\n  - name: A\n    name: B\n',
      [[3, 5, 'env[0].name', 'duplicate key "name"']],
    ],
    [
      'DuplicateKeyInTheSecondListItem',
      'env:\n  - name: A\n  - name: B\n    name: C\n',
      [[4, 5, 'env[1].name', 'duplicate key "name"']],
    ],
    [
      'BadScalarInTheSecondListItemNamesTheList',
      'a:\n  - x\n  - @y\n',
      [[3, 5, 'a', 'YAML syntax: Plain value cannot start with reserved character @']],
    ],
    [
      'UnclosedListItemNamesTheListNotTheIndex',
      'a:\n  - 1\n  - [2\n',
      [[3, 3, 'a', 'YAML syntax: Flow sequence']],
    ],
    ['DuplicateDoubleQuotedKeyKeepsItsQuotes', 'a: 1\n"a": 2\n', [[2, 1, 'a', 'duplicate key "a":']]],
    ['DuplicateSingleQuotedKeyIsTheKey', "a: 1\n'a' : 2\n", [[2, 1, 'a', 'duplicate key "a":']]],
    ['DuplicateKeyWithoutValueInAFlowMapping', '{a: 1, a}\n', [[1, 8, 'a', 'duplicate key "a":']]],
    ['DuplicateExplicitKey', 'a: 1\n? a\n', [[2, 3, 'a', 'duplicate key "a":']]],
    ['DuplicateKeyUnderAComplexKey', '? [k]\n: {a: 1, a: 2}\n', [[2, 10, '?.a', 'duplicate key "a":']]],
    ['TabIndentation', 'a:\n\tb: 1\n', [[2, 1, '', 'YAML syntax: Tabs are not allowed as indentation']]],
    [
      'ErrorInTheFirstLineStaysThere',
      'a: b: c\n',
      [[1, 4, 'a.b', 'YAML syntax: Nested mappings are not allowed in compact mappings']],
    ],
    ['ErrorInTheOnlyLineAtTheEndOfAFile', '[a', [[1, 1, '', 'YAML syntax: Flow sequence must end with a ]']]],
    [
      'MisalignedMappingItemIsShownAtItsOwnColumnNotTheLineStart',
      'spec:\n  resources:\n    gpus: 1\n   cpu: "4"\n',
      [[4, 4, 'spec.cpu', 'YAML syntax: All mapping items must start at the same column']],
    ],
    [
      'MisalignedTopLevelItemAtItsOwnColumn',
      'kind: Algorithm\nspec:\n  image: x\n cpu: "4"\n',
      [[4, 2, 'cpu', 'YAML syntax: All mapping items must start at the same column']],
    ],
  ])('%s', (_name, text, want) => {
    const { errors } = parseDocuments({ path: 'f.yaml', text });
    expect(errors.map((e) => [e.file, e.line, e.column, e.field])).toEqual(
      want.map(([l, c, f]) => ['f.yaml', l, c, f]),
    );
    errors.forEach((e, i) => expect(e.message.startsWith(want[i]![3]), e.message).toBe(true));
  });

  it('drops the location the yaml library appends to its message', () => {
    const { errors } = parseDocuments({ path: 'f.yaml', text: 'a: b: c\n' });
    expect(errors.map((e) => e.message)).toEqual([
      'YAML syntax: Nested mappings are not allowed in compact mappings',
    ]);
  });

  it('reads CRLF and lone CR line ends as LF', () => {
    for (const eol of ['\r\n', '\r']) {
      const { errors } = parseDocuments({ path: 'f.yaml', text: ['a: 1', 'b: 2', 'a: 3', ''].join(eol) });
      expect(errors.map((e) => [e.line, e.column, e.field])).toEqual([[3, 1, 'a']]);
    }
  });
});

describe('parseDocuments: documents and names', () => {
  it('skips empty documents and keeps the index and start of the others', () => {
    const text = '---\n# only a comment\n---\n~\n---\nnull\n---\n\n  a: 1\n---\n- x\n';
    const { documents, errors, names } = parseDocuments({ path: 'f.yaml', text });
    expect(errors).toEqual([]);
    expect(names).toEqual([]);
    expect(documents.map((d) => [d.file, d.index, d.start, d.value])).toEqual([
      ['f.yaml', 3, { line: 9, column: 3 }, { a: 1 }],
      ['f.yaml', 4, { line: 11, column: 1 }, ['x']],
    ]);
  });

  it('names every document with a string metadata.name, documents with errors included', () => {
    const text = [
      'metadata: {name: first}',
      '---',
      'metadata: {name: 7}',
      '---',
      'metadata: {name: once}',
      'metadata: {name: twice}',
      '---',
      'metadata: [a]',
      '---',
      'plain',
      '---',
      'metadata: {name: [unclosed',
      '---',
      'metadata: {name: last}',
      '',
    ].join('\n');
    const { documents, errors, names } = parseDocuments({ path: 'f.yaml', text });
    // A duplicate key: the document still says what it is (the later key, as the reader takes it).
    expect(names).toEqual(['first', 'twice', 'last']);
    expect(documents.map((d) => d.index)).toEqual([0, 1, 3, 4, 6]);
    expect(errors.map((e) => [e.line, e.field])).toEqual([
      [6, 'metadata'],
      [12, 'metadata'],
      [12, 'metadata'],
    ]);
  });

  it('caps alias expansion with a located error, also in a document with other errors', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    ];
    const ok = parseDocuments({ path: 'f.yaml', text: [...bomb.slice(0, 2), ''].join('\n') });
    expect(ok.errors).toEqual([]);
    const capped = parseDocuments({ path: 'f.yaml', text: `\n${bomb.join('\n')}\n` });
    expect(capped.documents).toEqual([]);
    expect(capped.errors).toHaveLength(1);
    expect(capped.errors[0]).toMatchObject({ file: 'f.yaml', line: 2, column: 1, field: '' });
    expect(capped.errors[0]!.message).toMatch(
      /^aliases expand to too many nodes \(limit 100\): Excessive alias count/,
    );
    // The name of a document that has a duplicate key and too many aliases cannot be read.
    const both = parseDocuments({ path: 'f.yaml', text: `${bomb.join('\n')}\nmetadata: {name: x}\na: 1\n` });
    expect(both.names).toEqual([]);
    expect(both.errors.map((e) => e.field)).toEqual(['a']);
  });

  it.each([
    {
      case: 'an alias with no anchor',
      text: 'metadata: {name: x}\nspec:\n  args: *nope\n',
      at: [3, 9, 'spec.args'],
      message: 'alias *nope has no anchor &nope before it in this document',
    },
    {
      case: 'an anchor set only after the alias',
      text: 'a: *x\nb: &x 1\n',
      at: [1, 4, 'a'],
      message: 'alias *x has no anchor &x before it',
    },
    {
      case: "a merge of an anchor of the previous document (anchors end at '---')",
      text: 'base: &base {gpus: 1}\n---\nspec:\n  resources:\n    <<: *base\n',
      at: [5, 9, 'spec.resources.<<'],
      message: 'alias *base has no anchor &base before it in this document',
    },
    {
      case: 'a merge of a scalar',
      text: 'a: &x 1\nb:\n  <<: *x\n',
      at: [3, 3, 'b.<<'],
      message: '"<<" merges a mapping, an alias of one or a list of them; got the alias *x of a non-mapping',
    },
    {
      case: 'a merge of a list with a scalar',
      text: 'a: &x {k: 1}\nb:\n  <<: [*x, 2]\n',
      at: [3, 3, 'b.<<'],
      message: 'got a list with an item that is not one',
    },
  ])('locates $case at the alias or the merge key, not as too many aliases', ({ text, at, message }) => {
    const { documents, errors } = parseDocuments({ path: 'f.yaml', text });
    expect(documents.filter((d) => d.value !== null && (d.value as { spec?: unknown }).spec)).toEqual([]);
    const error = errors.at(-1)!;
    expect([error.line, error.column, error.field]).toEqual(at);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('too many');
  });

  it('merges a list of mappings and an anchor set earlier in the same document', () => {
    const doc = one('a: &p {x: 1}\nb: &q {y: 2}\nc: {<<: [*p, *q], z: 3}\nd: *p\n');
    expect(doc.value).toEqual({ a: { x: 1 }, b: { y: 2 }, c: { x: 1, y: 2, z: 3 }, d: { x: 1 } });
  });

  it('reads YAML 1.2 core: yes is a string, merges apply', () => {
    const doc = one('a: yes\nb: &b {x: 1}\nc: {<<: *b, y: 2}\n');
    expect(doc.value).toEqual({ a: 'yes', b: { x: 1 }, c: { x: 1, y: 2 } });
  });
});

describe('locating fields', () => {
  const text = [
    'metadata:',
    '  name: x',
    'spec:',
    '  base: &base {gpus: 1}',
    '  resources: *base',
    '  merged: {<<: *base, cpu: "2"}',
    '  env:',
    '    - name: A',
    '      value: "1"',
    '  empty:',
    '  cpu: 1e3',
    '  "quoted": 4',
    '',
  ].join('\n');
  // Parsed in each test, not here: Stryker counts what runs outside a test as covered by every test.
  const parsed = () => one(text);

  it.each<[string, PathSegment[], 'key' | 'value', number, number]>([
    ['a value', ['metadata', 'name'], 'value', 2, 9],
    ['a key', ['metadata', 'name'], 'key', 2, 3],
    ['a list item', ['spec', 'env', 0, 'value'], 'value', 9, 14],
    ['a list item key', ['spec', 'env', 0, 'value'], 'key', 9, 7],
    ['a list item as a whole (no key: its value)', ['spec', 'env', 0], 'key', 8, 7],
    ['through an alias', ['spec', 'resources', 'gpus'], 'value', 4, 22],
    ['an empty value: right after its key', ['spec', 'empty'], 'value', 10, 9],
    ['a missing field: its parent', ['spec', 'nope', 'deeper'], 'key', 3, 1],
    ['a merged field: the mapping it is merged into', ['spec', 'merged', 'gpus'], 'value', 6, 11],
    ['an index past the end: the list', ['spec', 'env', 5], 'value', 8, 5],
    ['a name where a list is: the list', ['spec', 'env', 'name'], 'value', 8, 5],
    ['an index where a mapping is: the mapping', ['spec', 0], 'value', 4, 3],
    ['the whole document', [], 'value', 1, 1],
  ])('%s', (_name, path, at, line, column) => {
    expect(locate(parsed(), path, at)).toEqual({ line, column });
  });

  it('falls back to where the document starts when no node has a position', () => {
    const doc = parsed();
    const moved = { ...doc, start: { line: 42, column: 7 } };
    const noRange = { ...moved, doc: { ...doc.doc, contents: null } } as unknown as ParsedDocument;
    expect(locate(noRange, ['spec'], 'value')).toEqual({ line: 42, column: 7 });
  });

  it('findNode says whether the path is in the source', () => {
    const doc = parsed();
    expect(findNode(doc.doc, ['spec', 'cpu']).exact).toBe(true);
    expect(findNode(doc.doc, ['spec', 'quoted']).exact).toBe(true);
    expect(findNode(doc.doc, ['spec', 'resources', 'gpus']).exact).toBe(true);
    expect(findNode(doc.doc, ['spec', 'merged', 'gpus']).exact).toBe(false);
    expect(findNode(doc.doc, ['spec', 'env', 1]).exact).toBe(false);
    const { key, value } = findNode(doc.doc, ['spec', 'env', 0]);
    expect(key).toBeNull();
    expect(value?.range?.[0]).toBe(text.indexOf('name: A'));
  });

  it.each<[string, PathSegment[], string | undefined]>([
    ['a number as written', ['spec', 'cpu'], '1e3'],
    ['a quoted key', ['spec', 'quoted'], '4'],
    ['a mapping is no scalar', ['spec', 'env', 0], undefined],
    ['a merged field is not in the source', ['spec', 'merged', 'gpus'], undefined],
    ['a missing field', ['spec', 'nope'], undefined],
    ['a path below a scalar', ['spec', 'cpu', 'x'], undefined],
  ])('scalarSource: %s', (_name, path, want) => {
    expect(scalarSource(parsed(), path)).toBe(want);
  });
});

describe('ambiguousBooleans', () => {
  it('finds every unquoted YAML 1.1 boolean in value position, and nothing else', () => {
    const words = ['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO'];
    const more = ['on', 'On', 'ON', 'off', 'Off', 'OFF'];
    const text = [
      `plain: [${[...words, ...more].join(', ')}]`,
      'not: [yess, ayes, "yes", \'no\', true, false, 1, yEs, oN]',
      'yes: key',
      '? [complex]',
      ': off',
      'deep: {list: [{x: no}]}',
      '',
    ].join('\n');
    const found = ambiguousBooleans(one(text));
    expect(found.map((f) => f.text)).toEqual([...words, ...more, 'no']);
    expect(found[0]).toEqual({ path: ['plain', 0], text: 'y', at: { line: 1, column: 9 } });
    expect(found.at(-1)).toEqual({ path: ['deep', 'list', 0, 'x'], text: 'no', at: { line: 6, column: 19 } });
  });
});
