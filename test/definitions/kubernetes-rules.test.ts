/**
 * Issue 29 item 7: `validate` passes only what the API server (and the kubelet) accepts. Each
 * out-of-range or malformed value of the issue has a row, and its in-range neighbour a row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { isImageReference } from '../../src/definitions/rules/image.js';
import { ALGORITHM_LIMITS } from '../../src/definitions/schema/algorithm.js';
import type { Policy } from '../../src/definitions/types.js';

let policy: Policy;
beforeAll(async () => {
  policy = await loadDefaultPolicy();
  // The schema's own bounds, with the policy's caps (spec-limits.test.ts) out of the way.
  const wide = Number.MAX_SAFE_INTEGER;
  policy.spec.limits = {
    replicas: wide,
    gpusPerPod: wide,
    benchmarkRuns: wide,
    benchmarkTimeoutSeconds: wide,
  };
});

/** An Algorithm with `spec` lines replaced or added (each an indented YAML line under `spec:`). */
const doc = (o: { meta?: string[]; spec?: string[]; image?: string; resources?: string }) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    '  name: a',
    ...(o.meta ?? []),
    'spec:',
    `  image: ${o.image ?? '"registry.example.com/ml/a:1.0"'}`,
    `  resources: ${o.resources ?? '{gpus: 1}'}`,
    ...(o.spec ?? []),
    '',
  ].join('\n');

const errorsOf = (text: string) =>
  parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).errors.map(formatSpecError);
/** The field of every error. */
const fields = (text: string) =>
  parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).errors.map((e) => e.field);

describe('integer ranges', () => {
  it.each([
    ['resources.gpus', (n: string) => doc({ resources: `{gpus: ${n}}` }), ALGORITHM_LIMITS.gpus],
    [
      'benchmark.timeoutSeconds',
      (n: string) => doc({ spec: [`  benchmark: {timeoutSeconds: ${n}}`] }),
      ALGORITHM_LIMITS.timeoutSeconds,
    ],
    [
      'scaling.maxReplicas',
      (n: string) => doc({ spec: [`  scaling: {maxReplicas: ${n}}`] }),
      ALGORITHM_LIMITS.replicas,
    ],
    [
      'scaling.minReplicas',
      (n: string) => doc({ spec: [`  scaling: {minReplicas: ${n}, maxReplicas: 2147483647}`] }),
      ALGORITHM_LIMITS.replicas,
    ],
  ])('%s: the limit passes, one above is an error at the field', (field, text, limit) => {
    expect(errorsOf(text(String(limit)))).toEqual([]);
    expect(fields(text(String(limit + 1)))).toEqual([`spec.${field}`]);
  });

  it('the limits: 64 GPUs a pod, 30 days a run, int32 replicas', () => {
    expect(ALGORITHM_LIMITS).toEqual({ gpus: 64, timeoutSeconds: 2_592_000, replicas: 2_147_483_647 });
  });

  it.each([
    [
      'gpus: 1e300 (a whole number to JSON, and no pod has that)',
      doc({ resources: '{gpus: 1e300}' }),
      'spec.resources.gpus',
      /≤ 64/,
    ],
    [
      'timeoutSeconds above int64',
      doc({ spec: ['  benchmark: {timeoutSeconds: 9223372036854775808}'] }),
      'spec.benchmark.timeoutSeconds',
      /≤ 2592000/,
    ],
    [
      'maxReplicas above int32',
      doc({ spec: ['  scaling: {maxReplicas: 2147483648}'] }),
      'spec.scaling.maxReplicas',
      /≤ 2147483647/,
    ],
  ])('%s is refused', (_name, text, field, message) => {
    const errors = parseAlgorithms([{ path: 'algorithms/a.yaml', text }], policy).errors;
    expect(errors.map((e) => e.field)).toEqual([field]);
    expect(errors[0]!.message).toMatch(message);
  });
});

describe('env names (IsEnvVarName)', () => {
  it.each([
    ['A=B', /"=" separates a name from its value/],
    ['1ST', /not starting with a digit/],
    ['MY VAR', /not an environment variable name/],
    ['', /not an environment variable name|must not be empty/],
  ])('spec.env name %j is refused', (name, message) => {
    const errors = errorsOf(doc({ spec: [`  env: [{name: ${JSON.stringify(name)}, value: "1"}]`] }));
    expect(errors).toEqual([expect.stringMatching(/^algorithms\/a\.yaml:8:\d+: spec\.env\[0\]\.name: /)]);
    expect(errors[0]).toMatch(message);
  });

  it.each(['BATCH', '_X', 'my.var-1', 'CUDA_VISIBLE_DEVICES'])('the neighbour %j passes', (name) => {
    expect(errorsOf(doc({ spec: [`  env: [{name: ${name}, value: "1"}]`] }))).toEqual([]);
  });

  it('template env names of the container and init containers too', () => {
    const text = doc({
      spec: [
        '  template:',
        '    spec:',
        '      containers: [{env: [{name: "A=B", value: "1"}, {name: OK, value: "2"}]}]',
        '      initContainers: [{name: init, image: "busybox:1.36", env: [{name: "2X", value: "1"}]}]',
      ],
    });
    expect(fields(text)).toEqual([
      'spec.template.spec.containers[0].env[0].name',
      'spec.template.spec.initContainers[0].env[0].name',
    ]);
  });
});

describe('images', () => {
  it.each([
    ['a newline', '"registry.example.com/ml/a:1.0\\nrm -rf /"', /whitespace or a control character/],
    ['a space', '"registry.example.com/ml/a 1.0"', /whitespace or a control character/],
    ['a leading space', '" registry.example.com/ml/a:1.0"', /whitespace or a control character/],
    ['an upper-case path', 'registry.example.com/ML/ResNet:1.0', /upper-case letters in its path/],
    ['two tags', 'registry.example.com/ml/a:1:2', /is not an image reference/],
    ['a short digest', 'registry.example.com/ml/a@sha256:abc', /is not an image reference/],
  ])('%s is refused at spec.image', (_name, image, message) => {
    const errors = errorsOf(doc({ image }));
    expect(errors).toEqual([expect.stringMatching(/^algorithms\/a\.yaml:6:10: spec\.image: /)]);
    expect(errors[0]).toMatch(message);
  });

  it.each([
    'x',
    'x:1',
    'busybox:1.36',
    'nvcr.io/nvidia/tritonserver:24.05-py3',
    'localhost:5000/team/model_v2:Latest',
    'Registry.Example.com/ml/a:1.0',
    '[::1]:5000/a/b:c',
    `registry.example.com/ml/llm@sha256:${'0123456789abcdef'.repeat(4)}`,
    `registry.example.com/ml/llm:1.0@sha256:${'0123456789abcdef'.repeat(4)}`,
  ])('the neighbour %s passes', (image) => {
    expect(isImageReference(image)).toBe(true);
    expect(errorsOf(doc({ image: JSON.stringify(image) }))).toEqual([]);
  });

  it('an init container image with a newline is refused too', () => {
    const text = doc({
      spec: ['  template:', '    spec:', '      initContainers: [{name: init, image: "busybox\\n:1"}]'],
    });
    expect(fields(text)).toEqual(['spec.template.spec.initContainers[0].image']);
  });
});

describe('label and annotation keys, label values', () => {
  const long = (n: number) => 'a'.repeat(n);
  it.each([
    ['a key with a space', '  labels: {"team name": x}', 'metadata.labels.team name'],
    ['two slashes', '  labels: {"a/b/c": x}', 'metadata.labels.a/b/c'],
    ['a name of 64', `  labels: {${long(64)}: x}`, `metadata.labels.${long(64)}`],
    ['a prefix of 254', `  annotations: {${`${long(63)}.`.repeat(3)}${long(62)}/x: v}`, null],
    ['an upper-case prefix', '  annotations: {Example.com/x: v}', 'metadata.annotations.Example.com/x'],
    ['a value of 64', `  labels: {team: ${long(64)}}`, 'metadata.labels.team'],
    ['a value with a space', '  labels: {team: "ml ops"}', 'metadata.labels.team'],
  ])('%s is refused', (_name, line, field) => {
    const f = fields(doc({ meta: [line] }));
    expect(f).toHaveLength(1);
    if (field) expect(f[0]).toBe(field);
  });

  it.each([
    ['a name of 63', `  labels: {${long(63)}: x}`],
    ['a prefix of 253', `  labels: {${`${long(63)}.`.repeat(3)}${long(61)}/x: v}`],
    ['a value of 63', `  labels: {team: ${long(63)}}`],
    ['an empty value', '  labels: {team: ""}'],
    ['a dotted name', '  annotations: {prometheus.io/scrape: "true"}'],
  ])('the neighbour, %s, passes', (_name, line) => {
    expect(errorsOf(doc({ meta: [line] }))).toEqual([]);
  });

  it('template labels are held to the same rules', () => {
    const text = doc({
      spec: ['  template:', '    metadata:', '      labels: {"bad key": x, team: "bad value"}'],
    });
    expect(fields(text)).toEqual([
      'spec.template.metadata.labels.bad key',
      'spec.template.metadata.labels.team',
    ]);
  });

  it('annotations over 256 KiB are refused; at 256 KiB they pass', () => {
    const at = (bytes: number) => doc({ meta: [`  annotations: {big: "${'x'.repeat(bytes - 3)}"}`] });
    expect(errorsOf(at(256 * 1024))).toEqual([]);
    expect(fields(at(256 * 1024 + 1))).toEqual(['metadata.annotations']);
  });
});

describe('quantities', () => {
  it.each([
    ['a fractional exponent', '{gpus: 1, cpu: "1e3.5"}', 'spec.resources.cpu'],
    ['above 2^63-1 (Kubernetes would cap it)', '{gpus: 1, memory: "1e19"}', 'spec.resources.memory'],
    ['above 2^63-1 in Ei', '{gpus: 1, memory: 9Ei}', 'spec.resources.memory'],
  ])('%s is refused', (_name, resources, field) => {
    expect(fields(doc({ resources }))).toEqual([field]);
  });

  it.each([
    ['an integer exponent', '{gpus: 1, cpu: "1e3"}'],
    ['just below 2^63', '{gpus: 1, memory: "9e18"}'],
    ['7Ei', '{gpus: 1, memory: 7Ei}'],
  ])('the neighbour, %s, passes', (_name, resources) => {
    expect(errorsOf(doc({ resources }))).toEqual([]);
  });
});
