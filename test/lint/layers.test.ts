import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layering rule of `eslint.config.js`: nothing under `src/controller/`, `src/pass/` or
 * `src/plan/` imports from `src/cli/`
 * (issue 15: settings moved to `config/`, adapters are composed in `compose/compose.ts` and passed in).
 */
async function restricted(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: process.cwd() });
  const [result] = await eslint.lintText(`${code}\n`, { filePath: file });
  return result!.messages
    .filter((m) => m.ruleId !== null && /restricted/.test(m.ruleId))
    .map((m) => m.message);
}

describe('controller/, pass/ and plan/ never import cli/', () => {
  it.each([
    ["import type { Settings } from '../cli/settings.js';", 'src/pass/reconcile.ts'],
    ["import { compose } from '../cli/compose.js';", 'src/controller/run-controller.ts'],
    ["import { run } from '../cli/commands/run.js';", 'src/controller/loop.ts'],
    ["import type { Settings } from '../cli/settings.js';", 'src/plan/desired-state.ts'],
  ])('reports %s in %s', async (code, file) => {
    expect((await restricted(code, file)).length).toBeGreaterThan(0);
  });

  it.each([
    ["import type { Settings } from '../config/settings.js';", 'src/pass/reconcile.ts'],
    ["import type { Settings } from '../config/settings.js';", 'src/compose/compose.ts'],
    ["import { reconcileOnce } from '../pass/reconcile.js';", 'src/compose/compose.ts'],
  ])('allows %s in %s', async (code, file) => {
    expect(await restricted(code, file)).toEqual([]);
  });
});
