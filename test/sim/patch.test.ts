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
    ['an unknown operation', [{ op: 'frobnicate', path: '/a' }], 400],
  ])('rejects %s', (_name, ops, code) => {
    let caught: unknown;
    try {
      jsonPatch(pod, ops);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SimApiError);
    expect((caught as SimApiError).code).toBe(code);
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
