import type { ValidateFunction } from 'ajv';
import type { Algorithm, Policy } from '../types.js';
import { algorithm, policy } from './validators.generated.js';

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

/** The validators of the gpuops documents. */
export interface Validators {
  algorithm: ValidateFunction<Algorithm>;
  policy: ValidateFunction<Policy>;
}

const standalone: Validators = {
  algorithm: algorithm as unknown as ValidateFunction<Algorithm>,
  policy: policy as unknown as ValidateFunction<Policy>,
};

/**
 * The Algorithm and Policy validators: ajv in strict mode, all errors (`allErrors`), each error
 * with its schema (`verbose`, used for "did you mean" hints). They are the standalone code that
 * `npm run build` generates (`standalone.ts` → `validators.generated.ts`), so nothing is compiled
 * at start; `runtime-compile.ts` compiles the same schemas with ajv, and a test holds the two to
 * the same answers.
 */
export function validators(): Validators {
  return standalone;
}
