/**
 * Writes the Algorithm and Policy JSON Schemas to `policies/schema/*.schema.json`, for editors
 * (yaml-language-server: `# yaml-language-server: $schema=…`) and other tools. The TypeScript
 * schemas in this folder are the source; a test fails when the files are stale. Regenerate with
 * `node --import tsx src/definitions/schema/export.ts` (formats them with Prettier, as `npm run check` wants).
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { algorithmSchema } from './algorithm.js';
import { withoutNullable } from './compile.js';
import { policySchema } from './policy.js';

/** The exported schemas: path relative to the package root → JSON Schema (draft-07). */
export function exportedSchemas(): Record<string, object> {
  const json = (schema: object) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    ...(withoutNullable(schema) as object),
  });
  return {
    'policies/schema/algorithm.schema.json': json(algorithmSchema),
    'policies/schema/policy.schema.json': json(policySchema),
  };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const prettier = await import('prettier');
  const root = new URL('../../../', import.meta.url);
  for (const [rel, schema] of Object.entries(exportedSchemas())) {
    const file = new URL(rel, root);
    const options = await prettier.resolveConfig(fileURLToPath(file));
    await writeFile(file, await prettier.format(JSON.stringify(schema), { ...options, parser: 'json' }));
  }
}
