/**
 * Structure counts of `src/` (issue 27): functions over 80 lines, files over 400 lines, import
 * circles, imports that run back up the layers, and imports against the faces (`faces.ts`: each
 * folder's `index.ts`) with the circles they would make at load time. Read with the TypeScript
 * compiler's parser (no type check); test files (`*.test.ts`) and generated files
 * (`*.generated.ts`) are left out. `scripts/structure-counts.ts` prints them;
 * `test/lint/structure.test.ts` fails on a new circle, up-arrow or import against a face, naming
 * the files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { Faces, faceOf, moduleRefs, resolveSpecifier, topFolder, type FaceFault } from './faces.js';

/** Longest function (lines, first to last) and file the counts let through. */
export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 400;

/**
 * Layers of `src/`, lowest first: a file may import its own layer and the ones below, never one
 * above (an "up-arrow"). A folder not listed is reported as unknown.
 */
export const LAYERS: readonly (readonly string[])[] = [
  // Small helpers and the vocabulary; retry with backoff and `sleep` apart (an adapter: it waits),
  // and folders made on the disk (an adapter: it writes).
  ['util', 'retry', 'disk'],
  ['config', 'definitions'],
  ['cluster', 'metrics', 'store', 'sim'],
  ['manifests'],
  ['pools', 'placement', 'scaling', 'benchmark'],
  // Change sets and pull-request text (pure): what the plan proposes, in the words a reviewer reads.
  ['change-sets'],
  ['gitops-apply', 'plan', 'status', 'local-cluster'],
  // The clone of the GitOps repository: locks, reads, commits, pushes, the ledger of gpuops's commits.
  ['working-copy'],
  // Where pull requests go: GitHub, GitLab, Gitea and Forgejo over their APIs, or plain git.
  ['git-hosts'],
  // Change sets to pull requests (or patches and a commit): the working copy and a host together.
  ['write-back'],
  ['pass'],
  // The runtime that runs passes (loop, leader election, health, metrics): above the pass, so an
  // import from pass/ back into controller/ is an up-arrow.
  ['controller'],
  ['compose'],
  ['demo', 'replay'],
  ['cli'],
];

/**
 * The three parts the length counts keep apart: the product (what `gpuops` ships and runs against
 * a cluster: `src/` except the simulator), the simulator (`src/sim/`, the in-process Kubernetes
 * API server, controllers, forges and dcgm-exporter pages, plus `src/demo/cluster.ts`, which only
 * builds the demo's simulated cluster from them) and the bench (`bench/` and `scripts/`, run by
 * `npm run bench` / `npm run replay` and by hand, never shipped). The demo scenario, the replay and
 * their commands stay in the product: `gpuops demo` and `gpuops replay` are commands a user runs.
 */
export type Part = 'product' | 'simulator' | 'bench';

/** Folders and files outside `src/sim/` that belong to the simulator (see {@link Part}). */
const SIMULATOR_FILES = new Set(['src/demo/cluster.ts']);

/** Which {@link Part} a repository-relative path belongs to. */
export function partOf(file: string): Part {
  if (file.startsWith('bench/') || file.startsWith('scripts/')) return 'bench';
  if (file.startsWith('src/sim/') || SIMULATOR_FILES.has(file)) return 'simulator';
  return 'product';
}

/** A function (declaration, method, arrow, expression) and its length in lines. */
export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** An import from a lower layer's file to a higher layer's file. */
export interface UpArrow {
  from: string;
  to: string;
}

/** What {@link structureCounts} finds. Paths are relative to the repository root. */
export interface StructureCounts {
  /** Files of `src/` read (imports are judged in `src/` only). */
  files: number;
  /** Over {@link MAX_FUNCTION_LINES}, in `src/`, `bench/` and `scripts/` (see {@link partOf}). */
  longFunctions: LongFunction[];
  /** Over {@link MAX_FILE_LINES}, in `src/`, `bench/` and `scripts/`. */
  longFiles: { file: string; lines: number }[];
  /**
   * Import circles: each a strongly connected set of files (type-only imports count), sorted. An
   * import of another folder's face counts as imports of the files its names come from.
   */
  circles: string[][];
  upArrows: UpArrow[];
  /** Folders of `src/` that no row of {@link LAYERS} lists (their imports cannot be judged), sorted. */
  unlayered: string[];
  /** Imports that break a rule of the faces (`test/lint/faces.ts`): past a face, into the own face, …. */
  faceFaults: FaceArrow[];
  /** Folders of {@link LAYERS} with files but no face (`src/<folder>/index.ts`). */
  faceless: string[];
  /**
   * Circles of the modules as Node.js loads them: imports erased at compile time left out, a face
   * a module of its own. One a face makes (`a/x → b/index → b/y → a/index → a/x`) leaves a name
   * undefined while the circle loads.
   */
  loadCircles: string[][];
}

/** An import that breaks a rule of the faces, and which. */
export interface FaceArrow extends UpArrow {
  fault: FaceFault;
}

const layerOf = (file: string): number => {
  const folder = file.split('/')[1] ?? '';
  const i = LAYERS.findIndex((l) => l.includes(folder));
  return i;
};

function sourceFiles(root: string, top = 'src'): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    if (!existsSync(path.join(root, rel))) return;
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (/\.ts$/.test(e.name) && !/\.(test|generated|d)\.ts$/.test(e.name)) out.push(p);
    }
  };
  walk(top);
  return out.sort();
}

function functionName(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (named.name && ts.isPrivateIdentifier(named.name)) return named.name.text;
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return '(anonymous)';
}

/** Counts the structure of `root/src` (see the module comment). */
export function structureCounts(root: string): StructureCounts {
  const files = sourceFiles(root);
  const known = new Set(files);
  const longFunctions: LongFunction[] = [];
  const longFiles: { file: string; lines: number }[] = [];
  const edges = new Map<string, Set<string>>();
  const loadEdges = new Map<string, Set<string>>();
  const faces = new Faces(root);
  const faceFaults: FaceArrow[] = [];
  for (const file of [...files, ...sourceFiles(root, 'bench'), ...sourceFiles(root, 'scripts')]) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) longFiles.push({ file, lines });
    const targets = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (
        ts.isFunctionDeclaration(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isArrowFunction(node) ||
        ts.isFunctionExpression(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessor(node)
      ) {
        const start = lineOf(node.getStart(sf));
        const n = lineOf(node.getEnd()) - start + 1;
        if (n > MAX_FUNCTION_LINES)
          longFunctions.push({ file, name: functionName(node), line: start, lines: n });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    if (!known.has(file)) continue;
    const loads = new Set<string>();
    for (const ref of moduleRefs(sf)) {
      if (!ref.spec.text.startsWith('.')) continue;
      const target = resolveSpecifier(file, ref.spec.text);
      if (!known.has(target)) continue;
      faces.reached(file, target, ref).forEach((t) => targets.add(t));
      if (!ref.erased && !ref.dynamic) loads.add(target);
      const fault = faces.judge(file, target, ref);
      if (fault) faceFaults.push({ from: file, to: target, fault });
    }
    edges.set(file, targets);
    loadEdges.set(file, loads);
  }
  const upArrows: UpArrow[] = [];
  for (const [from, targets] of edges)
    for (const to of targets)
      if (layerOf(from) >= 0 && layerOf(to) > layerOf(from)) upArrows.push({ from, to });
  const unlayered = [...new Set(files.filter((f) => layerOf(f) < 0).map((f) => f.split('/')[1]!))].sort();
  return {
    files: files.length,
    longFunctions: longFunctions.sort((a, b) => b.lines - a.lines),
    longFiles: longFiles.sort((a, b) => b.lines - a.lines),
    circles: stronglyConnected(edges),
    upArrows,
    unlayered,
    faceFaults,
    faceless: LAYERS.flat().filter((f) => files.some((x) => topFolder(x) === f) && !known.has(faceOf(f))),
    loadCircles: stronglyConnected(loadEdges),
  };
}

/** Strongly connected sets of more than one file (Tarjan), each sorted, sorted by first file. */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const set: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        set.push(w);
      } while (w !== v);
      if (set.length > 1) out.push(set.sort());
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** Long functions and long files of one {@link Part}. */
export function partCounts(c: StructureCounts, part: Part): { functions: number; files: number } {
  return {
    functions: c.longFunctions.filter((f) => partOf(f.file) === part).length,
    files: c.longFiles.filter((f) => partOf(f.file) === part).length,
  };
}

/**
 * The counts as the report prints them: one line of totals for `src/` (product and simulator),
 * one line per {@link Part}, then each finding.
 */
export function formatCounts(c: StructureCounts): string {
  const inSrc = (f: { file: string }) => partOf(f.file) !== 'bench';
  const part = (p: Part) => {
    const n = partCounts(c, p);
    return `${p}: functions>${MAX_FUNCTION_LINES}=${n.functions} files>${MAX_FILE_LINES}=${n.files}`;
  };
  const lines = [
    `files=${c.files} functions>${MAX_FUNCTION_LINES}=${c.longFunctions.filter(inSrc).length} files>${MAX_FILE_LINES}=${c.longFiles.filter(inSrc).length} circles=${c.circles.length} up-arrows=${c.upArrows.length} past-face=${c.faceFaults.filter((a) => a.fault === 'past-face').length} load-circles=${c.loadCircles.length}`,
    part('product'),
    part('simulator'),
    part('bench'),
    '',
    `functions over ${MAX_FUNCTION_LINES} lines:`,
    ...c.longFunctions.map((f) => `  ${f.lines}\t${partOf(f.file)}\t${f.file}:${f.line} ${f.name}`),
    `files over ${MAX_FILE_LINES} lines:`,
    ...c.longFiles.map((f) => `  ${f.lines}\t${partOf(f.file)}\t${f.file}`),
    'import circles:',
    ...c.circles.map((s) => `  ${s.join(' ↔ ')}`),
    'up-arrows (a lower layer importing a higher one):',
    ...c.upArrows.map((a) => `  ${a.from} → ${a.to}`),
    ...(c.unlayered.length > 0 ? ['folders in no layer:', ...c.unlayered.map((f) => `  src/${f}`)] : []),
    'imports against the faces (past a face, into the own face, a pure file loading an adapter through one):',
    ...c.faceFaults.map((a) => `  ${a.from} → ${a.to} (${a.fault})`),
    ...(c.faceless.length > 0
      ? ['folders without a face (index.ts):', ...c.faceless.map((f) => `  src/${f}`)]
      : []),
    'circles at load time (through faces):',
    ...c.loadCircles.map((s) => `  ${s.join(' → ')}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Calls that construct an adapter (a database, a Kubernetes client, a working copy, a PR host, a
 * metrics source). Only `src/compose/` makes them; an adapter's own module may make itself
 * (`WorkingCopy.open` calls `new WorkingCopy`, `openStore` picks the store class).
 */
export const ADAPTER_CONSTRUCTORS: Readonly<Record<string, readonly string[]>> = {
  openStore: ['src/store/open-store.ts'],
  SqliteStore: ['src/store/open-store.ts'],
  PostgresStore: ['src/store/open-store.ts'],
  createKubeClient: [],
  createKubeJobApi: [],
  createClusterPatcher: [],
  kubeLeaseApi: [],
  loadKubeConfig: [],
  createClusterCache: [],
  WorkingCopy: ['src/working-copy/working-copy.ts'],
  GitHubHost: [],
  GitLabHost: [],
  GiteaHost: [],
  GitPullRequestHost: [],
  PrometheusSource: [],
  DcgmScrapeSource: [],
  MetricsFileSource: [],
};

/** An adapter constructed outside the composition root: file, line, and what was constructed. */
export interface AdapterConstruction {
  file: string;
  line: number;
  adapter: string;
}

/**
 * Every construction of an adapter (see {@link ADAPTER_CONSTRUCTORS}) in the source files under
 * `folders` (default `src`, `bench`) outside `src/compose/`: `new X(…)`, `X.open(…)` and calls of
 * the factory functions. Test files are left out (tests build adapters against the real thing).
 */
export function adapterConstructions(
  root: string,
  folders: readonly string[] = ['src', 'bench'],
): AdapterConstruction[] {
  const out: AdapterConstruction[] = [];
  for (const folder of folders) {
    const files: string[] = [];
    const walk = (rel: string) => {
      for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
        const p = `${rel}/${e.name}`;
        if (e.isDirectory()) walk(p);
        else if (/\.ts$/.test(e.name) && !/\.(test|generated|d)\.ts$/.test(e.name)) files.push(p);
      }
    };
    walk(folder);
    for (const file of files.sort()) {
      if (file.startsWith('src/compose/')) continue;
      const sf = ts.createSourceFile(
        file,
        readFileSync(path.join(root, file), 'utf8'),
        ts.ScriptTarget.Latest,
        true,
      );
      const visit = (node: ts.Node): void => {
        let name: string | undefined;
        if (ts.isNewExpression(node) && ts.isIdentifier(node.expression)) name = node.expression.text;
        if (ts.isCallExpression(node)) {
          const callee = node.expression;
          if (ts.isIdentifier(callee)) name = callee.text;
          else if (
            ts.isPropertyAccessExpression(callee) &&
            callee.name.text === 'open' &&
            ts.isIdentifier(callee.expression)
          )
            name = callee.expression.text;
        }
        const allowed =
          name !== undefined && Object.hasOwn(ADAPTER_CONSTRUCTORS, name)
            ? ADAPTER_CONSTRUCTORS[name]
            : undefined;
        if (name !== undefined && allowed && !allowed.includes(file))
          out.push({
            file,
            line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1,
            adapter: name,
          });
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return out;
}
