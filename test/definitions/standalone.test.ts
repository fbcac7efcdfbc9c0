import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validators } from '../../src/definitions/schema/compile.js';
import { compileValidators } from '../../src/definitions/schema/runtime-compile.js';
import { GENERATED_FILE, standaloneSource } from '../../src/definitions/schema/standalone.js';

const read = (p: string) => parse(readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8')) as unknown;

const GOOD = {
  apiVersion: 'gpuops.dev/v1alpha1',
  kind: 'Algorithm',
  metadata: { name: 'resnet50-infer', namespace: 'algorithms' },
  spec: {
    image: 'registry.example.com/ml/resnet50:1.4.2',
    resources: { gpus: 1, cpu: '4', memory: '16Gi' },
    benchmark: { args: ['--bench'], runs: 3, timeoutSeconds: 1800 },
    scaling: { minReplicas: 1, maxReplicas: 8, utilization: { min: 30, max: 80 } },
    placement: { pool: 'auto' },
  },
};
const withSpec = (spec: Record<string, unknown>) => ({ ...GOOD, spec: { ...GOOD.spec, ...spec } });

/** Documents on both sides of each kind of rule: formats, bounds, enums, required, unknown keys. */
const ALGORITHMS: [string, unknown][] = [
  ['the example spec', read('examples/gitops-repo/algorithms/resnet50-infer.yaml')],
  ['a full valid spec', GOOD],
  ['name a DNS-1123 label of 63 characters', { ...GOOD, metadata: { name: 'a'.repeat(63) } }],
  ['name of 64 characters', { ...GOOD, metadata: { name: 'a'.repeat(64) } }],
  ['name with an upper-case letter', { ...GOOD, metadata: { name: 'ResNet' } }],
  ['gpus 1 (the least)', withSpec({ resources: { gpus: 1 } })],
  ['gpus 0', withSpec({ resources: { gpus: 0 } })],
  ['gpus 1.5', withSpec({ resources: { gpus: 1.5 } })],
  ['gpus as a string', withSpec({ resources: { gpus: '1' } })],
  ['memory not a quantity', withSpec({ resources: { gpus: 1, memory: '16 GB' } })],
  ['cpu in millicores', withSpec({ resources: { gpus: 1, cpu: '500m' } })],
  ['an unknown pool', withSpec({ placement: { pool: 'fast' } })],
  ['a misspelt key (did-you-mean)', withSpec({ resoruces: { gpus: 1 } })],
  ['spec missing', { apiVersion: GOOD.apiVersion, kind: GOOD.kind, metadata: GOOD.metadata }],
  ['the wrong apiVersion', { ...GOOD, apiVersion: 'gpuops.dev/v1' }],
  ['utilization above 100', withSpec({ scaling: { utilization: { min: 30, max: 101 } } })],
  ['null in an optional field', withSpec({ command: null })],
  ['not an object', 'resnet50'],
];

const POLICIES: [string, unknown][] = [
  ['the shipped default', read('policies/default.yaml')],
  ['the example override', read('examples/gitops-repo/policies/demo.yaml')],
  [
    'an unknown field',
    { apiVersion: 'gpuops.dev/v1alpha1', kind: 'Policy', metadata: { name: 'x' }, spec: { nope: 1 } },
  ],
  [
    'a bad label key',
    {
      apiVersion: 'gpuops.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'x' },
      spec: { pools: { labelKey: 'a/b/c' } },
    },
  ],
  [
    'a bad scaling mode',
    {
      apiVersion: 'gpuops.dev/v1alpha1',
      kind: 'Policy',
      metadata: { name: 'x' },
      spec: { scaling: { mode: 'push' } },
    },
  ],
];

/** What a validator answers: valid or not, and every error with the schema it came from. */
function answer(validate: (d: unknown) => boolean, doc: unknown) {
  const v = validate as ((d: unknown) => boolean) & { errors?: unknown };
  const valid = v(doc);
  return { valid, errors: v.errors ?? null };
}

describe('the standalone validators (generated at build time)', () => {
  const runtime = compileValidators();
  const standalone = validators();

  it('are the code the schemas generate now (regenerate: npm run build)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(standaloneSource());
  });

  it.each(ALGORITHMS)('answer an Algorithm as ajv compiling the schema does: %s', (_name, doc) => {
    const got = answer(standalone.algorithm, doc);
    expect(got).toEqual(answer(runtime.algorithm, doc));
  });

  it.each(POLICIES)('answer a Policy as ajv compiling the schema does: %s', (_name, doc) => {
    expect(answer(standalone.policy, doc)).toEqual(answer(runtime.policy, doc));
  });

  it('tell valid from invalid across each boundary of the table', () => {
    const valid = (name: string) =>
      answer(standalone.algorithm, ALGORITHMS.find(([n]) => n === name)![1]).valid;
    expect(valid('name a DNS-1123 label of 63 characters')).toBe(true);
    expect(valid('name of 64 characters')).toBe(false);
    expect(valid('gpus 1 (the least)')).toBe(true);
    expect(valid('gpus 0')).toBe(false);
    expect(valid('cpu in millicores')).toBe(true);
    expect(valid('memory not a quantity')).toBe(false);
    expect(valid('the example spec')).toBe(true);
    expect(answer(standalone.policy, POLICIES[0]![1]).valid).toBe(true);
    expect(answer(standalone.policy, POLICIES[3]![1]).valid).toBe(false);
  });
});
