import { Ajv, type Options } from 'ajv';
import type { Algorithm, Policy } from '../types.js';
import { algorithmSchema } from './algorithm.js';
import { policySchema } from './policy.js';
import { withoutNullable, type Validators } from './compile.js';
import { formats } from './formats.js';

/** The keys the two schemas are registered under in {@link schemaAjv}. */
export const SCHEMA_KEYS = { algorithm: 'algorithm', policy: 'policy' } as const;

/**
 * An ajv instance in strict mode, collecting all errors (`allErrors`) and keeping each error's
 * schema (`verbose`, used for "did you mean" hints), with the gpuops formats and both schemas
 * added under {@link SCHEMA_KEYS}. `code` is passed on (the standalone generator sets
 * `source: true`). Loading and compiling with ajv costs tens of milliseconds at start, so the CLI
 * and the controller use the standalone validators (`compile.ts`); this is their source of truth.
 */
export function schemaAjv(code?: Options['code']): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true, verbose: true, ...(code ? { code } : {}) });
  for (const [name, format] of Object.entries(formats)) ajv.addFormat(name, format);
  ajv.addSchema(withoutNullable(algorithmSchema) as object, SCHEMA_KEYS.algorithm);
  ajv.addSchema(withoutNullable(policySchema) as object, SCHEMA_KEYS.policy);
  return ajv;
}

/**
 * Compiles the Algorithm and Policy schemas with ajv now (see {@link schemaAjv}). Throws when a
 * schema is invalid (a programming error, caught by the tests).
 */
export function compileValidators(): Validators {
  const ajv = schemaAjv();
  return {
    algorithm: ajv.getSchema<Algorithm>(SCHEMA_KEYS.algorithm)!,
    policy: ajv.getSchema<Policy>(SCHEMA_KEYS.policy)!,
  };
}
