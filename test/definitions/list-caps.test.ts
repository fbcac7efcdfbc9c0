/**
 * A few valid specs made a pass slow and large (20 specs of 1 MiB with 20,000 ports each: plan
 * 127 s, 731 MiB). Each list a spec may write has a cap real services never reach: a row at the
 * cap (no cap error) and one past it (one error at the list, file:line:column, and nothing else
 * checked in that document). Spec files are at most 256 KiB. Duplicate keys are still found, now
 * without the YAML library's quadratic check (the figure is in `npm run bench -- spec-size`).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy, loadRepo, MAX_FILE_BYTES } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';

/** The documented sizes (docs/spec-reference.md, "Sizes"), written out so a change to one is seen. */
const CAPS: Record<string, number> = {
  ports: 100,
  env: 500,
  volumes: 100,
  args: 1000,
  tolerations: 50,
  initContainers: 20,
  annotations: 100,
};
import type { Policy } from '../../src/definitions/types.js';

let policy: Policy;
beforeAll(async () => {
  policy = await loadDefaultPolicy();
});

const HEAD = ['apiVersion: gpuops.dev/v1alpha1', 'kind: Algorithm', 'metadata:', '  name: a'];
const spec = (...lines: string[]) =>
  [
    ...HEAD,
    ...lines.filter((l) => l.startsWith('  annotations') || l.startsWith('    k')),
    'spec:',
    '  image: "x:1"',
    '  resources: {gpus: 1}',
    ...lines.filter((l) => !l.startsWith('  annotations') && !l.startsWith('    k')),
    '',
  ].join('\n');
const flow = (n: number, item: (i: number) => string) =>
  `[${Array.from({ length: n }, (_, i) => item(i)).join(', ')}]`;

/** [the list, a spec line holding n items, the field, the line its key is on, its column]. */
const ROWS: [string, (n: number) => string[], string, number, number][] = [
  [
    'ports',
    (n) => [
      '  template:',
      `    spec: {containers: [{ports: ${flow(n, (i) => `{containerPort: ${1000 + i}}`)}}]}`,
    ],
    'spec.template.spec.containers[0].ports',
    9,
    26,
  ],
  ['env', (n) => [`  env: ${flow(n, (i) => `{name: E${i}, value: v}`)}`], 'spec.env', 8, 3],
  [
    'volumes',
    (n) => ['  template:', `    spec: {volumes: ${flow(n, (i) => `{name: v${i}, emptyDir: {}}`)}}`],
    'spec.template.spec.volumes',
    9,
    12,
  ],
  ['args', (n) => [`  args: ${flow(n, (i) => `a${i}`)}`], 'spec.args', 8, 3],
  [
    'tolerations',
    (n) => ['  template:', `    spec: {tolerations: ${flow(n, (i) => `{key: k${i}, operator: Exists}`)}}`],
    'spec.template.spec.tolerations',
    9,
    12,
  ],
  [
    'initContainers',
    (n) => ['  template:', `    spec: {initContainers: ${flow(n, (i) => `{name: i${i}, image: "x:1"}`)}}`],
    'spec.template.spec.initContainers',
    9,
    12,
  ],
  [
    'annotations',
    (n) => ['  annotations:', ...Array.from({ length: n }, (_, i) => `    k${i}: v`)],
    'metadata.annotations',
    5,
    3,
  ],
];

const capErrors = (text: string) =>
  parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).errors.filter((e) =>
    e.message.includes('at most'),
  );

describe('list caps', () => {
  it('the documented sizes are the ones in force', async () => {
    const { DEFAULT_LIST_CAP, LIST_CAPS } = await import('../../src/definitions/rules/list-caps.js');
    for (const [name, cap] of Object.entries(CAPS)) expect(LIST_CAPS[name], name).toBe(cap);
    expect(DEFAULT_LIST_CAP).toBe(256);
  });

  it.each(ROWS)(
    '%s: at the cap no cap error; one past it, one error at the list',
    (name, lines, field, line, column) => {
      const cap = CAPS[name]!;
      expect(capErrors(spec(...lines(cap)))).toEqual([]);
      const past = parseAlgorithms([{ path: 'algorithms/a.yaml', text: spec(...lines(cap + 1)) }], policy);
      expect(past.algorithms).toEqual([]);
      expect(past.errors.map(formatSpecError)).toEqual([
        `algorithms/a.yaml:${line}:${column}: ${field}: has ${cap + 1} ${name === 'annotations' ? 'keys' : 'items'}; at most ${cap} (real services never come near it; docs/spec-reference.md, "Sizes")`,
      ]);
    },
  );

  it('any other list holds at most 256 items (a probe command, dnsConfig searches)', () => {
    const probe = (n: number) => [
      '  template:',
      `    spec: {containers: [{readinessProbe: {exec: {command: ${flow(n, (i) => `c${i}`)}}}}]}`,
    ];
    // `command` of a probe is named command: its cap is 1,000.
    expect(capErrors(spec(...probe(1000)))).toEqual([]);
    expect(capErrors(spec(...probe(1001)))).toHaveLength(1);
    const searches = (n: number) => [
      '  template:',
      `    spec: {dnsConfig: {searches: ${flow(n, (i) => `s${i}.example.com`)}}}`,
    ];
    expect(capErrors(spec(...searches(256)))).toEqual([]);
    expect(capErrors(spec(...searches(257))).map((e) => e.field)).toEqual([
      'spec.template.spec.dnsConfig.searches',
    ]);
  });

  it('a document past a cap is checked no further, and still holds its name against a later copy', () => {
    const big = spec(
      '  template:',
      `    spec: {containers: [{ports: ${flow(101, (i) => `{containerPort: ${1000 + i}}`)}, bogus: 1}]}`,
    );
    const parsed = parseAlgorithms(
      [
        { path: 'algorithms/a.yaml', text: big },
        { path: 'algorithms/b.yaml', text: spec() },
      ],
      policy,
    );
    expect(parsed.errors.map((e) => [e.file, e.field])).toEqual([
      ['algorithms/a.yaml', 'spec.template.spec.containers[0].ports'],
      ['algorithms/b.yaml', 'metadata.name'],
    ]);
  });

  it('duplicate keys are still found in large mappings, at the repeated key', () => {
    const keys = [...Array.from({ length: 250 }, (_, i) => `    k${i}: v`), '    k7: again'];
    expect(
      parseAlgorithms(
        [{ path: 'algorithms/a.yaml', text: spec('  annotations:', ...keys) }],
        policy,
      ).errors.map(formatSpecError),
    ).toEqual([
      'algorithms/a.yaml:256:5: metadata.annotations.k7: duplicate key "k7": a key may appear only once in a mapping',
    ]);
  });
});

describe('spec files are at most 256 KiB', () => {
  it('a file at the size is read; one byte more is refused by its size, the others go on', async () => {
    expect(MAX_FILE_BYTES).toBe(256 * 1024);
    const dir = await mkdtemp(path.join(tmpdir(), 'gpuops-caps-'));
    try {
      await mkdir(path.join(dir, 'algorithms'));
      const body = spec();
      const pad = (n: number) => `${body}#${'x'.repeat(n - body.length - 2)}\n`;
      await writeFile(path.join(dir, 'algorithms/at.yaml'), pad(MAX_FILE_BYTES));
      await writeFile(
        path.join(dir, 'algorithms/past.yaml'),
        pad(MAX_FILE_BYTES + 1).replace('name: a', 'name: b'),
      );
      const repo = await loadRepo(dir, policy);
      expect(repo.algorithms.map((a) => a.name)).toEqual(['a']);
      expect(repo.errors.map(formatSpecError)).toEqual([
        `algorithms/past.yaml:1:1: (document): file is ${MAX_FILE_BYTES + 1} bytes; spec files are at most ${MAX_FILE_BYTES}`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
