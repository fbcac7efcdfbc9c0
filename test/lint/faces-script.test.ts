/**
 * `scripts/faces.ts` on a probe tree: it writes each face from what the other folders import
 * (keeping a face's own header), points the imports of `src/` at the faces, leaves a pure file's
 * value import past a face that loads an adapter, leaves tests alone, and a second run finds
 * nothing to change.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

const TREE: Record<string, string> = {
  'package.json': '{ "type": "module" }\n',
  '.prettierrc.json': readFileSync(path.join(ROOT, '.prettierrc.json'), 'utf8'),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      types: [],
    },
    include: ['src', 'test'],
  }),
  'src/cluster/types.ts': 'export const u = 1;\nexport type U = number;\nexport const unused = 2;\n',
  // An adapter by `eslint/purity.js` (`**/cluster/jobs*`): cluster's face then loads one.
  'src/cluster/jobs.ts': 'export const jobs = 1;\n',
  'src/status/index.ts': "/** The probe's status folder. */\nexport * from './s.js';\n",
  'src/status/s.ts':
    "import { u } from '../cluster/types.js';\nimport type { U } from '../cluster/types.js';\n" +
    "import { jobs } from '../cluster/jobs.js';\nexport const s: U = u + jobs;\n",
  // Pure files (`src/pools/**`): a value import stays past cluster's face, a type goes through it.
  'src/pools/p.ts': "import { u } from '../cluster/types.js';\nexport const p = u;\n",
  'src/pools/q.ts': "import type { U } from '../cluster/types.js';\nexport type Q = U;\n",
  'test/t.test.ts': "import { unused } from '../src/cluster/types.js';\nexport const t = unused;\n",
};

function faces(dir: string, ...args: string[]) {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'scripts/faces.ts'), '--root', dir, ...args],
    // tsx keeps its compile cache in TMPDIR: inside the probe tree, removed with it.
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TMPDIR: path.join(dir, '.tmp') } },
  );
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('scripts/faces.ts on a probe tree', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-faces-script-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, '.tmp'));
  for (const [file, text] of Object.entries(TREE)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  const first = faces(dir);

  it('writes the faces: what the other folders use, grouped by file, a header kept or given', () => {
    expect(first.status, first.out).toBe(0);
    const cluster = read('src/cluster/index.ts').split('\n');
    expect(cluster.slice(cluster.findIndex((l) => l.startsWith('// Re-exports')))).toEqual([
      '// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).',
      "export { jobs } from './jobs.js';",
      "export { u } from './types.js';",
      "export type { U } from './types.js';",
      '',
    ]);
    expect(read('src/cluster/index.ts')).toMatch(/^\/\*\*\n \* The Kubernetes side/);
    expect(read('src/status/index.ts').split('\n').slice(0, 1)).toEqual([
      "/** The probe's status folder. */",
    ]);
    expect(read('src/status/index.ts')).toMatch(/\nexport \{\};\n$/);
    expect(read('src/pools/index.ts')).toMatch(/\nexport \{\};\n$/);
  });

  it('points the imports of src/ at the faces, merged, type-only ones apart', () => {
    expect(read('src/status/s.ts').split('\n').slice(0, 2)).toEqual([
      "import { u, jobs } from '../cluster/index.js';",
      "import type { U } from '../cluster/index.js';",
    ]);
    expect(read('src/pools/q.ts')).toBe(
      TREE['src/pools/q.ts']!.replace('cluster/types.js', 'cluster/index.js'),
    );
  });

  it("keeps a pure file's value import past a face that loads an adapter, and the tests' imports", () => {
    expect(read('src/pools/p.ts')).toBe(TREE['src/pools/p.ts']);
    expect(read('test/t.test.ts')).toBe(TREE['test/t.test.ts']);
  });

  it('changes nothing on a second run', () => {
    const again = faces(dir, '--check');
    expect(again.out).toContain('0 files to change');
    expect(again.status).toBe(0);
  });
});
