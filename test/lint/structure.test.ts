/**
 * The structure rules of issue 27, checked on every run of the suite (`test/lint/structure.ts`
 * counts; `node --import tsx scripts/structure-counts.ts` prints the same): no adapter is
 * constructed outside the composition root `src/compose/`, no import circle, no import that
 * runs back up the layers (none is allowed: the four of issue 27 moved their pure piece down),
 * no folder outside the layers, and the faces (`test/lint/faces.ts`): every folder has one, no
 * import past one or into its own, no circle at load time through them. Each failure names the files.
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

  it('gives every folder of the layers a face, src/<folder>/index.ts (npx tsx scripts/faces.ts writes them)', () => {
    expect(counts.faceless).toEqual([]);
  });

  it('imports another folder through its face only, never its own face (npx tsx scripts/faces.ts rewrites them)', () => {
    const faults = counts.faceFaults.map((a) => `${a.from} → ${a.to} (${a.fault})`);
    expect(faults).toEqual([]);
  });

  it('loads no circle of modules through the faces (a shared piece moves down a layer)', () => {
    expect(counts.loadCircles.map((c) => c.join(' → '))).toEqual([]);
  });
});

describe('the faces rule (probe trees)', () => {
  const probe = (files: Record<string, string>) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-faces-'));
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      return structureCounts(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const faults = (c: ReturnType<typeof structureCounts>) =>
    c.faceFaults.map((a) => `${a.from} → ${a.to} ${a.fault}`);
  // util's face loads one plain file; cluster's loads a pure file and an adapter (kube-client).
  const UTIL = {
    'src/util/index.ts': "export { u } from './u.js';\n",
    'src/util/u.ts': 'export const u = 1;\n',
  };
  const CLUSTER = {
    'src/cluster/index.ts':
      "export { parseQuantity } from './quantity.js';\nexport { client } from './kube-client.js';\n" +
      "export type { Snapshot } from './types.js';\n",
    'src/cluster/quantity.ts': 'export const parseQuantity = 1;\n',
    'src/cluster/kube-client.ts': 'export const client = 1;\n',
    'src/cluster/types.ts': 'export type Snapshot = 1;\n',
  };

  it.each([
    [
      'through the face',
      { ...UTIL, 'src/status/s.ts': "import { u } from '../util/index.js';\nexport const s = u;\n" },
      [],
    ],
    [
      'past the face',
      { ...UTIL, 'src/status/s.ts': "import { u } from '../util/u.js';\nexport const s = u;\n" },
      ['src/status/s.ts → src/util/u.ts past-face'],
    ],
    [
      'past the face, in a type position',
      { ...UTIL, 'src/status/s.ts': "export type S = import('../util/u.js').U;\n" },
      ['src/status/s.ts → src/util/u.ts past-face'],
    ],
    [
      'into its own face',
      { ...UTIL, 'src/util/v.ts': "import { u } from './index.js';\nexport const v = u;\n" },
      ['src/util/v.ts → src/util/index.ts own-face'],
    ],
    [
      'a nested file into its own folder, directly',
      { ...UTIL, 'src/util/deep/v.ts': "import { u } from '../u.js';\nexport const v = u;\n" },
      [],
    ],
    [
      'a pure file past a face that loads no adapter',
      { ...UTIL, 'src/pools/p.ts': "import { u } from '../util/u.js';\nexport const p = u;\n" },
      ['src/pools/p.ts → src/util/u.ts past-face'],
    ],
    [
      'a pure file past a face that loads an adapter (allowed), a type through it (allowed)',
      {
        ...CLUSTER,
        'src/pools/p.ts':
          "import { parseQuantity } from '../cluster/quantity.js';\nimport type { Snapshot } from '../cluster/index.js';\n" +
          'export const p: Snapshot = parseQuantity;\n',
      },
      [],
    ],
    [
      'a pure file loading a face that loads an adapter',
      {
        ...CLUSTER,
        'src/pools/p.ts':
          "import { parseQuantity } from '../cluster/index.js';\nexport const p = parseQuantity;\n",
      },
      ['src/pools/p.ts → src/cluster/index.ts pure-through-face'],
    ],
    [
      'a file that is not pure, past a face that loads an adapter',
      {
        ...CLUSTER,
        'src/status/s.ts':
          "import { parseQuantity } from '../cluster/quantity.js';\nexport const s = parseQuantity;\n",
      },
      ['src/status/s.ts → src/cluster/quantity.ts past-face'],
    ],
  ])('%s', (_name, files: Record<string, string>, expected: string[]) => {
    expect(faults(probe(files))).toEqual(expected);
  });

  it('names the folders of the layers without a face', () => {
    const c = probe({ ...UTIL, 'src/config/c.ts': 'export const c = 1;\n' });
    expect(c.faceless).toEqual(['config']);
  });

  // Two folders of one row that import each other's faces: scaling/b uses placement's x, and
  // placement/y uses scaling's a or b.
  const TWO_FACES = (yImports: string) => ({
    'src/scaling/index.ts': "export { a } from './a.js';\nexport { b } from './b.js';\n",
    'src/scaling/a.ts': 'export const a = 1;\n',
    'src/scaling/b.ts': "import { x } from '../placement/index.js';\nexport const b = x;\n",
    'src/placement/index.ts': "export { x } from './x.js';\nexport { y } from './y.js';\n",
    'src/placement/x.ts': 'export const x = 1;\n',
    'src/placement/y.ts': `${yImports}\nexport const y = 2;\n`,
  });

  it('counts an import of a face as imports of the files its names come from, for the circles', () => {
    const c = probe(TWO_FACES("import { b } from '../scaling/index.js';\nexport const yb = b;"));
    expect(c.circles).toEqual([]);
    const real = probe({
      ...TWO_FACES("import { b } from '../scaling/index.js';\nexport const yb = b;"),
      'src/placement/x.ts': "import { a } from '../scaling/index.js';\nexport const x = a;\n",
      'src/scaling/a.ts': "import { y } from '../placement/index.js';\nexport const a = y;\n",
    });
    expect(real.circles).toEqual([
      ['src/placement/x.ts', 'src/placement/y.ts', 'src/scaling/a.ts', 'src/scaling/b.ts'],
    ]);
  });

  it('finds the circle two faces make at load time, and none when one side imports types only', () => {
    const loads = probe(TWO_FACES("import { a } from '../scaling/index.js';\nexport const ya = a;"));
    expect(loads.circles).toEqual([]);
    expect(loads.loadCircles).toEqual([
      ['src/placement/index.ts', 'src/placement/y.ts', 'src/scaling/b.ts', 'src/scaling/index.ts'],
    ]);
    const types = probe(
      TWO_FACES("import type { a } from '../scaling/index.js';\nexport type Ya = typeof a;"),
    );
    expect(types.loadCircles).toEqual([]);
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
        'files=2 functions>80=2 files>400=1 circles=0 up-arrows=0 past-face=0 load-circles=0',
        'product: functions>80=1 files>400=0',
        'simulator: functions>80=1 files>400=1',
        'bench: functions>80=2 files>400=0',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
