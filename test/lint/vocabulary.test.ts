/**
 * One vocabulary: no file of `src/` but `src/util/vocabulary.ts` spells a vendor's name or
 * gpuops's own label keys (`test/lint/vocabulary.ts`); each finding names its file and line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { strayNames } from './vocabulary.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the vocabulary of src/', () => {
  it('spells every vendor name and gpuops label key in src/util/vocabulary.ts only', () => {
    expect(strayNames(ROOT).map((s) => `${s.file}:${s.line} ${s.text}`)).toEqual([]);
  });
});

describe('the rule catches what it forbids (a probe tree)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-vocabulary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write(
    'src/pools/a.ts',
    [
      "export const r = 'nvidia.com/gpu';",
      'export const p = `amd.com/gpu.product-name`;',
      "export const m = 'DCGM_FI_DEV_GPU_UTIL';",
      "export const l = 'gpuops.dev/pool';",
      "export const k = { 'app.kubernetes.io/managed-by': 'gpuops' };",
      "export const b = 'beta.amd.com/gpu.family';",
      // Not names: a sentence, the API version, a URL, a comment.
      "export const s = 'no node carries nvidia.com/gpu.product=x';",
      "export const v = 'gpuops.dev/v1alpha1';",
      "export const u = 'https://gpuops.dev/schemas';",
      '// nvidia.com/gpu',
      '',
    ].join('\n'),
  );
  write('src/util/vocabulary.ts', "export const r = 'nvidia.com/gpu';\n");
  write('src/sim/fleet.ts', "export const r = 'nvidia.com/gpu';\n");
  write('src/pools/a.test.ts', "export const r = 'nvidia.com/gpu';\n");

  it('reports each whole-name literal outside the vocabulary and the outside world, with its line', () => {
    expect(strayNames(dir).map((s) => `${s.file}:${s.line} ${s.text}`)).toEqual([
      'src/pools/a.ts:1 nvidia.com/gpu',
      'src/pools/a.ts:2 amd.com/gpu.product-name',
      'src/pools/a.ts:3 DCGM_FI_DEV_GPU_UTIL',
      'src/pools/a.ts:4 gpuops.dev/pool',
      'src/pools/a.ts:5 app.kubernetes.io/managed-by',
      'src/pools/a.ts:6 beta.amd.com/gpu.family',
    ]);
  });
});
