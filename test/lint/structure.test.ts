/**
 * The structure rules of issue 27, checked on every run of the suite (`test/lint/structure.ts`
 * counts; `node --import tsx scripts/structure-counts.ts` prints the same): no adapter is
 * constructed outside the composition root `src/compose/`, no import circle, no import that
 * runs back up the layers (none is allowed: the four of issue 27 moved their pure piece down),
 * no folder outside the layers. Each failure names the files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterConstructions, formatCounts, partOf, structureCounts } from './structure.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Adapters the benches still build themselves (bench/reconcile-pass.ts, the watch lane's child process; to move to src/compose/). */
const KNOWN_BENCH_CONSTRUCTIONS = [
  'bench/reconcile-pass.ts openStore',
  'bench/reconcile-pass.ts GitPullRequestHost',
  'bench/reconcile-pass.ts WorkingCopy',
];

describe('the structure of src/', () => {
  const counts = structureCounts(ROOT);

  it('constructs every adapter in src/compose/ only', () => {
    const found = adapterConstructions(ROOT, ['src']).map((a) => `${a.file}:${a.line} ${a.adapter}`);
    expect(found).toEqual([]);
  });

  it('the benches build no adapter beyond the ones listed', () => {
    const found = adapterConstructions(ROOT, ['bench']).map((a) => `${a.file} ${a.adapter}`);
    expect(found.filter((f) => !KNOWN_BENCH_CONSTRUCTIONS.includes(f))).toEqual([]);
  });

  it('has no import circle (type-only imports count: shared types go to a types file both sides import)', () => {
    const circles = counts.circles.map((c) => c.join(' ↔ '));
    expect(circles).toEqual([]);
  });

  it('has no import back up the layers (a shared piece moves down to the lower layer)', () => {
    const arrows = counts.upArrows.map((a) => `${a.from} → ${a.to}`);
    expect(arrows).toEqual([]);
  });

  it('puts every folder of src/ in a layer (LAYERS in structure.ts), so its imports are judged', () => {
    expect(counts.unlayered).toEqual([]);
  });
});

describe('the rules catch what they forbid (a probe tree)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-structure-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  write('src/pools/a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
  write('src/pools/b.ts', "import type { A } from './a.js';\nexport type B = A | 1;\n");
  write('src/store/c.ts', "import type { A } from '../pools/a.js';\nexport type C = A;\n");
  write('src/store/g.ts', "export type G = import('../pools/a.js').A;\n");
  write('src/newfolder/h.ts', "import type { C } from '../store/c.js';\nexport type H = C;\n");
  write('src/pools/i.ts', "import type { H } from '../newfolder/h.js';\nexport type I = H;\n");
  write(
    'src/cli/d.ts',
    "import { openStore } from '../store/index.js';\nimport { WorkingCopy } from '../working-copy/working-copy.js';\n" +
      "export const s = openStore('sqlite::memory:');\nexport const w = WorkingCopy.open({});\n",
  );
  write(
    'src/compose/e.ts',
    "import { openStore } from '../store/index.js';\nexport const s = openStore('x');\n",
  );
  // Names of Object.prototype are names like any other (a lookup table must not find them).
  write(
    'src/cli/j.ts',
    'export function valueOf(): number {\n  return 1;\n}\nexport const v = valueOf() + Number(toString());\n' +
      'export const k = new constructor();\n',
  );
  write(
    'src/cli/f.test.ts',
    "import { openStore } from '../store/index.js';\nexport const s = openStore('x');\n",
  );

  it('reports the circle, the up-arrows (type-position imports too), the folder in no layer and the constructions outside src/compose/ with their files', () => {
    const c = structureCounts(dir);
    expect(c.circles).toEqual([['src/pools/a.ts', 'src/pools/b.ts']]);
    expect(c.upArrows).toEqual([
      { from: 'src/store/c.ts', to: 'src/pools/a.ts' },
      { from: 'src/store/g.ts', to: 'src/pools/a.ts' },
    ]);
    expect(c.unlayered).toEqual(['newfolder']);
    expect(adapterConstructions(dir, ['src'])).toEqual([
      { file: 'src/cli/d.ts', line: 3, adapter: 'openStore' },
      { file: 'src/cli/d.ts', line: 4, adapter: 'WorkingCopy' },
    ]);
  });
});

describe('the length counts keep the product, the simulator and the bench apart', () => {
  it.each([
    ['src/status/model.ts', 'product'],
    ['src/demo/scenario.ts', 'product'],
    ['src/replay/sim-engine.ts', 'product'],
    ['src/sim/fleet.ts', 'simulator'],
    ['src/sim/controllers/kubelet.ts', 'simulator'],
    ['src/demo/cluster.ts', 'simulator'],
    ['src/simulate.ts', 'product'],
    ['bench/reconcile.bench.ts', 'bench'],
    ['scripts/structure-counts.ts', 'bench'],
  ])('%s is %s', (file, part) => {
    expect(partOf(file)).toBe(part);
  });

  it('counts a long function and a long file in each part, and src/ only in the totals', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-parts-'));
    try {
      const long = `export function f(): number {\n${'  void 0;\n'.repeat(81)}  return 1;\n}\n`;
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      };
      write('src/status/a.ts', long);
      write('src/sim/b.ts', long + '\n'.repeat(400));
      write('bench/c.ts', long);
      write('scripts/d.ts', long);
      const head = formatCounts(structureCounts(dir)).split('\n').slice(0, 4);
      expect(head).toEqual([
        'files=2 functions>80=2 files>400=1 circles=0 up-arrows=0',
        'product: functions>80=1 files>400=0',
        'simulator: functions>80=1 files>400=1',
        'bench: functions>80=2 files>400=0',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
