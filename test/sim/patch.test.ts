/** The patch formats of the simulated API server (pure functions), row by row. */
import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch, strategicMergePatch } from '../../src/sim/patch.js';
import { SimApiError } from '../../src/sim/types.js';

const pod = {
  metadata: { name: 'p', labels: { a: '1', b: '2' }, finalizers: ['x'] },
  spec: {
    containers: [
      { name: 'main', image: 'img:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
      { name: 'side', image: 'side:1' },
    ],
    tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
  },
};

describe('merge patch (RFC 7386)', () => {
  it.each([
    ['sets a nested key', { metadata: { labels: { c: '3' } } }, { a: '1', b: '2', c: '3' }],
    ['null deletes a key', { metadata: { labels: { a: null } } }, { b: '2' }],
    ['replaces an object with a scalar', { metadata: { labels: 'x' } }, 'x'],
  ])('%s', (_name, patch, labels) => {
    expect((mergePatch(pod, patch) as typeof pod).metadata.labels).toEqual(labels);
  });

  it('replaces lists whole', () => {
    const out = mergePatch(pod, { spec: { containers: [{ name: 'main', image: 'img:2' }] } }) as typeof pod;
    expect(out.spec.containers).toEqual([{ name: 'main', image: 'img:2' }]);
  });
});

describe('strategic merge patch', () => {
  const run = (patch: unknown) => strategicMergePatch(pod, patch) as typeof pod;

  it('merges containers by name, keeping the untouched one and unpatched fields', () => {
    const out = run({ spec: { containers: [{ name: 'main', image: 'img:2' }] } });
    expect(out.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ['main', 'img:2'],
      ['side', 'side:1'],
    ]);
    expect(out.spec.containers[0]!.env).toEqual([{ name: 'A', value: '1' }]);
  });

  it('merges env by name inside a container and appends new entries', () => {
    const out = run({
      spec: {
        containers: [
          {
            name: 'main',
            env: [
              { name: 'A', value: '9' },
              { name: 'B', value: '2' },
            ],
          },
        ],
      },
    });
    expect(out.spec.containers[0]!.env).toEqual([
      { name: 'A', value: '9' },
      { name: 'B', value: '2' },
    ]);
  });

  it('deletes an element with $patch: delete', () => {
    const out = run({ spec: { containers: [{ name: 'side', $patch: 'delete' }] } });
    expect(out.spec.containers.map((c) => c.name)).toEqual(['main']);
  });

  it('replaces a list with a $patch: replace element', () => {
    const out = run({ spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1' }] } });
    expect(out.spec.containers).toEqual([{ name: 'only', image: 'o:1' }]);
  });

  it('replaces tolerations whole (they have no merge key in the Kubernetes types)', () => {
    const out = run({
      spec: {
        tolerations: [{ key: 'gpuops.dev/pool', operator: 'Equal', value: 'test', effect: 'NoSchedule' }],
      },
    });
    expect(out.spec.tolerations).toEqual([
      { key: 'gpuops.dev/pool', operator: 'Equal', value: 'test', effect: 'NoSchedule' },
    ]);
  });

  it('merges finalizers as a set and removes with $deleteFromPrimitiveList', () => {
    expect(run({ metadata: { finalizers: ['y', 'x'] } }).metadata.finalizers).toEqual(['x', 'y']);
    expect(run({ metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }).metadata.finalizers).toEqual(
      [],
    );
  });

  it('drops $setElementOrder and $retainKeys directives from the result', () => {
    const out = run({
      spec: {
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'main' }],
        containers: [{ name: 'side', image: 'side:2' }],
      },
    });
    expect(Object.keys(out.spec)).toEqual(['containers', 'tolerations']);
    expect(out.spec.containers.map((c) => c.image)).toEqual(['img:1', 'side:2']);
  });
});

describe('JSON patch (RFC 6902)', () => {
  it.each([
    [
      'add to an object',
      [{ op: 'add', path: '/metadata/labels/c', value: '3' }],
      (o: typeof pod) => o.metadata.labels,
      { a: '1', b: '2', c: '3' },
    ],
    [
      'escaped slash in a key',
      [{ op: 'add', path: '/metadata/labels/gpuops.dev~1pool', value: 'test' }],
      (o: typeof pod) => o.metadata.labels,
      { a: '1', b: '2', 'gpuops.dev/pool': 'test' },
    ],
    [
      'append to a list with -',
      [{ op: 'add', path: '/metadata/finalizers/-', value: 'y' }],
      (o: typeof pod) => o.metadata.finalizers,
      ['x', 'y'],
    ],
    [
      'insert into a list',
      [{ op: 'add', path: '/metadata/finalizers/0', value: 'w' }],
      (o: typeof pod) => o.metadata.finalizers,
      ['w', 'x'],
    ],
    [
      'remove',
      [{ op: 'remove', path: '/metadata/labels/a' }],
      (o: typeof pod) => o.metadata.labels,
      { b: '2' },
    ],
    [
      'replace',
      [{ op: 'replace', path: '/spec/containers/1/image', value: 'side:9' }],
      (o: typeof pod) => o.spec.containers[1]!.image,
      'side:9',
    ],
    [
      'move',
      [{ op: 'move', from: '/metadata/labels/a', path: '/metadata/labels/z' }],
      (o: typeof pod) => o.metadata.labels,
      { b: '2', z: '1' },
    ],
    [
      'copy',
      [{ op: 'copy', from: '/metadata/labels/a', path: '/metadata/labels/y' }],
      (o: typeof pod) => o.metadata.labels,
      { a: '1', b: '2', y: '1' },
    ],
    [
      'test passes then acts',
      [
        { op: 'test', path: '/metadata/labels/a', value: '1' },
        { op: 'remove', path: '/metadata/labels/b' },
      ],
      (o: typeof pod) => o.metadata.labels,
      { a: '1' },
    ],
  ])('%s', (_name, ops, pick, expected) => {
    expect(pick(jsonPatch(pod, ops) as typeof pod)).toEqual(expected);
  });

  it.each([
    ['a failed test', [{ op: 'test', path: '/metadata/labels/a', value: '2' }], 422],
    ['replace of a missing key', [{ op: 'replace', path: '/metadata/labels/nope', value: '1' }], 422],
    ['remove of a missing index', [{ op: 'remove', path: '/metadata/finalizers/5' }], 422],
    ['an object instead of a list of operations', { metadata: {} }, 400],
    ['a list element that is not an operation object', ['add'], 400],
    // handlers/patch.go: whatever fails in Apply (an unknown op too) is 422, not 400.
    ['an unknown operation', [{ op: 'frobnicate', path: '/a' }], 422],
    ['a pointer without a leading slash', [{ op: 'add', path: 'metadata/labels/c', value: '3' }], 422],
    ['add under a missing parent', [{ op: 'add', path: '/metadata/annotations/x', value: '1' }], 422],
    ['add past the end of a list', [{ op: 'add', path: '/metadata/finalizers/2', value: 'y' }], 422],
    ['replace without a value', [{ op: 'replace', path: '/metadata/labels/a' }], 422],
    ['copy from a missing path', [{ op: 'copy', from: '/metadata/nope', path: '/metadata/labels/c' }], 422],
    ['an escaped pointer to a key that is not there', [{ op: 'remove', path: '/metadata/labels/a~1b' }], 422],
    ['a write to __proto__', [{ op: 'add', path: '/__proto__/polluted', value: 'x' }], 422],
    [
      'more than 10,000 operations',
      Array.from({ length: 10_001 }, () => ({ op: 'test', path: '', value: pod })),
      413,
    ],
  ])('rejects %s', (_name, ops, code) => {
    let caught: unknown;
    try {
      jsonPatch(pod, ops);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SimApiError);
    expect((caught as SimApiError).code).toBe(code);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [
      'a failed test',
      [{ op: 'test', path: '/metadata/labels/a', value: '2' }],
      'testing value /metadata/labels/a failed',
    ],
    [
      'a missing path',
      [{ op: 'remove', path: '/metadata/labels/zz' }],
      'remove operation does not apply: doc is missing path: "/metadata/labels/zz"',
    ],
    ['an unknown operation', [{ op: 'frobnicate', path: '/a' }], 'Unexpected kind: frobnicate'],
  ])('says which operation failed: %s', (_name, ops, message) => {
    let caught: unknown;
    try {
      jsonPatch(pod, ops);
    } catch (err) {
      caught = err;
    }
    expect((caught as SimApiError).message).toBe(
      'the server rejected our request due to an error in our request',
    );
    expect((caught as SimApiError).details).toEqual({
      causes: [{ type: 'UnexpectedServerResponse', message }],
    });
  });

  it.each([
    ['~1 is a slash', { 'gpuops.dev/pool': 'test' }, '/gpuops.dev~1pool', 'test'],
    ['~0 is a tilde', { 'a~b': 'x' }, '/a~0b', 'x'],
    ['~01 is a tilde then 1, not a slash', { 'a~1b': 'y', 'a/b': 'wrong' }, '/a~01b', 'y'],
  ])('unescapes pointers (RFC 6901): %s', (_name, labels, path, value) => {
    const doc = { metadata: { labels } };
    expect(() => jsonPatch(doc, [{ op: 'test', path: `/metadata/labels${path}`, value }])).not.toThrow();
    const out = jsonPatch(doc, [{ op: 'remove', path: `/metadata/labels${path}` }]) as typeof doc;
    expect(Object.values(out.metadata.labels)).not.toContain(value);
    expect(Object.keys(out.metadata.labels)).toHaveLength(Object.keys(labels).length - 1);
  });

  it('test compares values, not key order or text: an object with its keys reordered passes, a changed one fails', () => {
    const doc = { spec: { selector: { app: 'x', tier: 'gpu' } } };
    expect(() =>
      jsonPatch(doc, [{ op: 'test', path: '/spec/selector', value: { tier: 'gpu', app: 'x' } }]),
    ).not.toThrow();
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/spec/selector', value: { tier: 'gpu' } }])).toThrow(
      SimApiError,
    );
    expect(() => jsonPatch(doc, [{ op: 'test', path: '/spec/selector/app', value: ['x'] }])).toThrow(
      SimApiError,
    );
  });

  it('a copied value is a copy: changing it later leaves the source alone', () => {
    const out = jsonPatch(pod, [
      { op: 'copy', from: '/spec/containers/0/env', path: '/spec/containers/1/env' },
      { op: 'add', path: '/spec/containers/1/env/0/value', value: '2' },
    ]) as { spec: { containers: { env?: { value: string }[] }[] } };
    expect(out.spec.containers[0]!.env![0]!.value).toBe('1');
    expect(out.spec.containers[1]!.env![0]!.value).toBe('2');
  });

  it('is all or nothing: the input is never modified', () => {
    const before = JSON.stringify(pod);
    expect(() =>
      jsonPatch(pod, [
        { op: 'remove', path: '/metadata/labels/a' },
        { op: 'test', path: '/x', value: 1 },
      ]),
    ).toThrow(SimApiError);
    expect(JSON.stringify(pod)).toBe(before);
  });
});
