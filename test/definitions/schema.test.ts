import { readFile } from 'node:fs/promises';
import type { JSONSchemaType } from 'ajv';
import { describe, expect, it } from 'vitest';
import { algorithmSchema } from '../../src/definitions/schema/algorithm.js';
import { compileValidators } from '../../src/definitions/schema/runtime-compile.js';
import { exportedSchemas } from '../../src/definitions/schema/export.js';
import { policySchema } from '../../src/definitions/schema/policy.js';
import type { Algorithm } from '../../src/definitions/types.js';

/**
 * The schemas are typed `JSONSchemaType<Algorithm>` / `JSONSchemaType<Policy>`, so `tsc` (run by
 * `npm run check`) fails when a field exists on one side only or has another type. These
 * `@ts-expect-error` lines prove the check bites: if a wrong schema ever type-checked, tsc would
 * report the unused directive.
 */
interface Sample {
  gpus: number;
  cpu?: string;
}
// @ts-expect-error a field of the type that the schema lacks
const _missing: JSONSchemaType<Sample> = { type: 'object', required: ['gpus'], properties: {} };
// @ts-expect-error gpus is a number in the type but a string in the schema
const _wrongType: JSONSchemaType<Sample> = {
  type: 'object',
  required: ['gpus'],
  properties: { gpus: { type: 'string' }, cpu: { type: 'string', nullable: true } },
};
// @ts-expect-error a required field in the schema that the type lacks
const _extraRequired: JSONSchemaType<Sample> = {
  type: 'object',
  required: ['gpus', 'memory'],
  properties: { gpus: { type: 'integer' }, cpu: { type: 'string', nullable: true } },
};

/** `T` with every optional field made required, all the way down. */
type DeepRequired<T> = T extends (infer U)[]
  ? DeepRequired<U>[]
  : T extends object
    ? { [K in keyof T]-?: DeepRequired<T[K]> }
    : T;

/**
 * An Algorithm with every field set. Typed `DeepRequired<Algorithm>`, so tsc fails when it misses
 * a field of the type or has one the type lacks; the test below compares it with the schema.
 */
const FULL_ALGORITHM: DeepRequired<Algorithm> = {
  apiVersion: 'gpuops.dev/v1alpha1',
  kind: 'Algorithm',
  metadata: { name: 'a', namespace: 'n', labels: {}, annotations: {} },
  spec: {
    image: 'x',
    command: ['c'],
    args: ['a'],
    env: [{ name: 'N', value: 'v' }],
    resources: { gpus: 1, cpu: '1', memory: '1Gi' },
    gpu: { product: ['Tesla-T4'], vendor: 'nvidia' },
    benchmark: { args: ['b'], runs: 3, timeoutSeconds: 60, queueName: 'gpu-queue' },
    scaling: {
      minReplicas: 1,
      maxReplicas: 2,
      signal: 'serviceMetric',
      utilization: { min: 10, max: 90 },
      serviceMetric: { name: 'queue', unit: 'requests', min: 2, max: 10 },
      targets: 'fromBenchmark',
    },
    placement: { pool: 'auto' },
    modelCache: { claimName: 'm', mountPath: '/m', fill: { image: 'f', command: ['c'], args: ['a'] } },
    template: { metadata: { labels: {}, annotations: {} }, spec: {} },
  },
};

/** Dotted paths of every field of a value (objects without fields, lists of scalars are leaves). */
function valuePaths(v: unknown, path = ''): string[] {
  if (Array.isArray(v)) return typeof v[0] === 'object' ? valuePaths(v[0], `${path}[]`) : [path];
  if (v !== null && typeof v === 'object' && Object.keys(v).length > 0) {
    return Object.entries(v).flatMap(([k, x]) => valuePaths(x, path === '' ? k : `${path}.${k}`));
  }
  return [path];
}

type SchemaNode = { properties?: Record<string, SchemaNode>; required?: string[]; items?: SchemaNode };

/** Dotted paths of every field a schema describes. */
function schemaPaths(node: SchemaNode, path = ''): string[] {
  if (node.items) return node.items.properties ? schemaPaths(node.items, `${path}[]`) : [path];
  if (!node.properties) return [path];
  return Object.entries(node.properties).flatMap(([k, x]) =>
    schemaPaths(x, path === '' ? k : `${path}.${k}`),
  );
}

/** Objects of a schema whose `required` is not all of their `properties`. */
function notAllRequired(node: SchemaNode, path = ''): string[] {
  const props = Object.keys(node.properties ?? {});
  const bad = node.properties && props.some((p) => !(node.required ?? []).includes(p)) ? [path] : [];
  for (const [k, v] of Object.entries(node.properties ?? {})) bad.push(...notAllRequired(v, `${path}.${k}`));
  return bad;
}

/** Every `required` name of every object schema, checked against its `properties`. */
function requiredNotInProperties(node: SchemaNode, path = ''): string[] {
  const bad = (node.required ?? []).filter((r) => !(r in (node.properties ?? {}))).map((r) => `${path}.${r}`);
  for (const [k, v] of Object.entries(node.properties ?? {}))
    bad.push(...requiredNotInProperties(v, `${path}.${k}`));
  if (node.items) bad.push(...requiredNotInProperties(node.items, `${path}[]`));
  return bad;
}

describe('schemas', () => {
  it('compile in ajv strict mode', () => {
    expect(() => compileValidators()).not.toThrow();
  });

  it('require only fields they describe', () => {
    expect(requiredNotInProperties(algorithmSchema as SchemaNode)).toEqual([]);
    expect(requiredNotInProperties(policySchema as SchemaNode)).toEqual([]);
  });

  it('the Algorithm schema describes exactly the fields of the Algorithm type', () => {
    expect(schemaPaths(algorithmSchema as SchemaNode).sort()).toEqual(valuePaths(FULL_ALGORITHM).sort());
    expect(compileValidators().algorithm(FULL_ALGORITHM)).toBe(true);
  });

  it('the Policy schema requires every field it has, so tsc rejects a field the Policy type lacks', () => {
    // The optional fields, `allowedNamespaces` (default: the policy's namespace),
    // `placement.onDeletedSpec` (default propose-removal), `scaling.signal`/`allowedSignals`/
    // `serviceMetrics` (defaults from `scaling.metric`), `benchmark.queueName` (default: no queue)
    // and `scaleDown.peakWindowSeconds` (default 0: off), are typed optional too.
    expect(notAllRequired(policySchema as SchemaNode)).toEqual([
      '.spec',
      '.spec.placement',
      '.spec.benchmark',
      '.spec.scaling',
      '.spec.scaling.scaleDown',
    ]);
  });

  it('policies/schema/*.schema.json match the TypeScript schemas (regenerate: node --import tsx src/definitions/schema/export.ts)', async () => {
    for (const [rel, schema] of Object.entries(exportedSchemas())) {
      const onDisk = JSON.parse(await readFile(new URL(`../../${rel}`, import.meta.url), 'utf8')) as unknown;
      expect(onDisk, rel).toEqual(schema);
    }
  });

  it('reject null in optional fields (nullable is stripped at compile time)', () => {
    const { algorithm } = compileValidators();
    const base = { apiVersion: 'gpuops.dev/v1alpha1', kind: 'Algorithm', metadata: { name: 'a' } };
    expect(algorithm({ ...base, spec: { image: 'x', resources: { gpus: 1 } } })).toBe(true);
    expect(algorithm({ ...base, spec: { image: 'x', resources: { gpus: 1 }, command: null } })).toBe(false);
  });
});
