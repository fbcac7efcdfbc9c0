import { Ajv, type ValidateFunction } from 'ajv';
import { isDnsLabel, isLabelKey } from '../rules/dns-label.js';
import { isQuantity } from '../rules/quantity.js';
import type { Algorithm, Policy } from '../types.js';
import { algorithmSchema } from './algorithm.js';
import { policySchema } from './policy.js';

/**
 * Returns a copy of a schema without `nullable`: `JSONSchemaType` asks for `nullable: true` on
 * optional properties, but no gpuops field accepts `null` (an empty `key:` is an error).
 */
export function withoutNullable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutNullable);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k]) => k !== 'nullable')
      .map(([k, v]) => [k, withoutNullable(v)]),
  );
}

/** The compiled validators of the gpuops documents. */
export interface Validators {
  algorithm: ValidateFunction<Algorithm>;
  policy: ValidateFunction<Policy>;
}

/**
 * Compiles the Algorithm and Policy schemas with ajv in strict mode, collecting all errors
 * (`allErrors`) and keeping each error's schema (`verbose`, used for "did you mean" hints).
 * Throws when a schema is invalid (a programming error, caught by the tests).
 */
export function compileValidators(): Validators {
  const ajv = new Ajv({ strict: true, allErrors: true, verbose: true });
  ajv.addFormat('dns-1123-label', { type: 'string', validate: isDnsLabel });
  ajv.addFormat('k8s-quantity', { type: 'string', validate: isQuantity });
  ajv.addFormat('k8s-label-key', { type: 'string', validate: isLabelKey });
  return {
    algorithm: ajv.compile<Algorithm>(withoutNullable(algorithmSchema) as typeof algorithmSchema),
    policy: ajv.compile<Policy>(withoutNullable(policySchema) as typeof policySchema),
  };
}

let cached: Validators | undefined;

/** The validators, compiled once on first use (compiling takes tens of milliseconds). */
export function validators(): Validators {
  cached ??= compileValidators();
  return cached;
}
