/**
 * The faces of `src/`: each top-level folder of the layer table shows what it offers to the other
 * folders in `src/<folder>/index.ts`, a list of named re-exports (`export { a } from './x.js'`,
 * `export type { T } from './y.js'`) written by `scripts/faces.ts` from what the other folders
 * import. A file of `src/` imports another folder through its face only; its own folder's files
 * directly, never through its own face (that would make a circle at load time). Tests, the bench
 * and the scripts may import any file: a test reaches inside a folder to test a part of it.
 *
 * One exception keeps pure modules pure: a face that loads an adapter at run time (it re-exports,
 * as a value, a file of `ADAPTER_MODULES` in `eslint/purity.js`) is not imported, as a value, by a
 * pure file (`PURE_FILES`); the pure file imports the file it needs past the face. `import type` of a face
 * is erased at compile time and always allowed.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ADAPTER_MODULES, PURE_FILES } from '../../eslint/purity.js';

/** The face of a folder, relative to the repository root: `src/<folder>/index.ts`. */
export const faceOf = (folder: string): string => `src/${folder}/index.ts`;

/** The top-level folder of `src/` a repository-relative path is in (`src/a/b/c.ts` → `a`), or undefined. */
export function topFolder(file: string): string | undefined {
  const parts = file.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : undefined;
}

/** Whether `file` is a face: `src/<folder>/index.ts`, one level under `src/`. */
export const isFace = (file: string): boolean => /^src\/[^/]+\/index\.ts$/.test(file);

/** Whether a repository-relative path is a product file of `src/` (not a test, not generated, not a declaration). */
export const isProductFile = (file: string): boolean =>
  file.startsWith('src/') && file.endsWith('.ts') && !/\.(test|d)\.ts$/.test(file);

/** A glob of `eslint/purity.js` (`**` any folders, `*` within one name) as a regular expression. */
function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      re += '.*';
      i += 1;
    } else if (c === '*') re += '[^/]*';
    else re += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

const PURE = PURE_FILES.map(globToRegExp);

/** Whether a repository-relative path is a pure file (`PURE_FILES` of `eslint/purity.js`; tests are not). */
export const isPureFile = (file: string): boolean =>
  !file.endsWith('.test.ts') && PURE.some((re) => re.test(file));

const ADAPTERS = ADAPTER_MODULES.map((g) => ({
  not: g.startsWith('!'),
  re: globToRegExp(g.replace(/^!/, '')),
}));

/**
 * Whether a repository-relative path is an adapter module, one a pure file may not import
 * (`ADAPTER_MODULES` of `eslint/purity.js`, a later `!pattern` taking a file back out).
 */
export function isAdapterModule(file: string): boolean {
  let adapter = false;
  for (const a of ADAPTERS) if (a.re.test(file)) adapter = !a.not;
  return adapter;
}

/** One re-export of a face: the file it comes from and whether it is erased at compile time. */
export interface FaceExport {
  file: string;
  typeOnly: boolean;
}

/** What a face re-exports, by name; `export *` lines apart (their names are not listed). */
export interface Face {
  names: Map<string, FaceExport>;
  stars: FaceExport[];
}

/** Resolves a relative module specifier of `from` to a repository-relative `.ts` path. */
export function resolveSpecifier(from: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), spec)).replace(/\.js$/, '.ts');
}

/**
 * Reads the face of `folder` under `root` (undefined when there is none). Only `export … from`
 * lines re-export; a face that declares code of its own is read for its re-exports only.
 */
export function readFace(root: string, folder: string): Face | undefined {
  const file = faceOf(folder);
  if (!existsSync(path.join(root, file))) return undefined;
  const sf = ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
  const face: Face = { names: new Map(), stars: [] };
  for (const st of sf.statements) {
    if (!ts.isExportDeclaration(st) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier))
      continue;
    const target = resolveSpecifier(file, st.moduleSpecifier.text);
    if (!st.exportClause) face.stars.push({ file: target, typeOnly: st.isTypeOnly });
    else if (ts.isNamedExports(st.exportClause))
      for (const el of st.exportClause.elements)
        face.names.set(el.name.text, { file: target, typeOnly: st.isTypeOnly || el.isTypeOnly });
    else face.stars.push({ file: target, typeOnly: st.isTypeOnly });
  }
  return face;
}

/** The files a face loads at run time (its re-exports that are not erased). */
export function faceLoads(face: Face): string[] {
  const all = [...face.names.values(), ...face.stars].filter((e) => !e.typeOnly).map((e) => e.file);
  return [...new Set(all)].sort();
}

/** Whether a face loads an adapter module ({@link isAdapterModule}), so a pure file may not load it. */
export const faceLoadsAdapter = (face: Face): boolean => faceLoads(face).some(isAdapterModule);

/**
 * The files of a face that an import of `names` from it reaches: each name's file; a name the face
 * does not list reaches every `export *` file (or, with none, nothing: the type check reports it).
 * `names` undefined (a namespace import, `export *`) reaches every file the face names.
 */
export function filesReached(face: Face, names: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  const every = () => [...face.names.values(), ...face.stars].forEach((e) => out.add(e.file));
  if (names === undefined) every();
  else
    for (const n of names) {
      const e = face.names.get(n);
      if (e) out.add(e.file);
      else face.stars.forEach((s) => out.add(s.file));
    }
  return [...out].sort();
}

/** A reference to another module: its specifier, the names it uses, and whether it is erased at compile time. */
export interface ModuleRef {
  spec: ts.StringLiteral;
  decl: ts.ImportDeclaration | ts.ExportDeclaration | undefined;
  /** Undefined: every name (a namespace import, `export *`, an unbound `import()`). */
  names: { name: string; typeOnly: boolean }[] | undefined;
  erased: boolean;
  /** `import('…')` called at run time: loaded later, not when the module loads. */
  dynamic: boolean;
}

const named = (els: readonly (ts.ImportSpecifier | ts.ExportSpecifier)[]) =>
  els.map((el) => ({ name: (el.propertyName ?? el.name).text, typeOnly: el.isTypeOnly }));

function declRef(node: ts.ImportDeclaration | ts.ExportDeclaration): ModuleRef | undefined {
  if (!node.moduleSpecifier || !ts.isStringLiteral(node.moduleSpecifier)) return undefined;
  const spec = node.moduleSpecifier;
  if (ts.isExportDeclaration(node)) {
    const c = node.exportClause;
    return {
      spec,
      decl: node,
      names: c && ts.isNamedExports(c) ? named(c.elements) : undefined,
      erased: node.isTypeOnly,
      dynamic: false,
    };
  }
  const clause = node.importClause;
  if (!clause) return { spec, decl: node, names: [], erased: false, dynamic: false };
  const b = clause.namedBindings;
  const names =
    clause.name || (b && ts.isNamespaceImport(b))
      ? undefined
      : b && ts.isNamedImports(b)
        ? named(b.elements)
        : [];
  return { spec, decl: node, names, erased: clause.isTypeOnly, dynamic: false };
}

/** Every module reference of `sf`: import and export declarations, `import('…').T` types, `import('…')` calls. */
export function moduleRefs(sf: ts.SourceFile): ModuleRef[] {
  const out: ModuleRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const r = declRef(node);
      if (r) out.push(r);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const lit = node.argument.literal;
      let q = node.qualifier;
      while (q && ts.isQualifiedName(q)) q = q.left;
      if (ts.isStringLiteral(lit))
        out.push({
          spec: lit,
          decl: undefined,
          names: q ? [{ name: q.text, typeOnly: true }] : undefined,
          erased: true,
          dynamic: false,
        });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      const bound = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
      const pattern = bound && ts.isVariableDeclaration(bound) ? bound.name : undefined;
      const names =
        pattern && ts.isObjectBindingPattern(pattern)
          ? pattern.elements.map((e) => ({ name: (e.propertyName ?? e.name).getText(), typeOnly: false }))
          : undefined;
      if (arg && ts.isStringLiteral(arg))
        out.push({ spec: arg, decl: undefined, names, erased: false, dynamic: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** What {@link judgeImport} finds wrong with an import of a `src/` file, if anything. */
export type FaceFault =
  /** Into another folder, past its face. */
  | 'past-face'
  /** Into its own folder's face (a circle at load time: the face loads the file back). */
  | 'own-face'
  /** A pure file loading a face that loads an adapter (import the pure file past the face). */
  | 'pure-through-face';

/** Faces read once per root and folder (undefined: the folder has none). */
export class Faces {
  private readonly read = new Map<string, Face | undefined>();
  constructor(private readonly root: string) {}

  face(folder: string): Face | undefined {
    if (!this.read.has(folder)) this.read.set(folder, readFace(this.root, folder));
    return this.read.get(folder);
  }

  /**
   * The files an import from `file` of `target` reaches, for the circle and layer counts: through
   * another folder's face, the files of the names it uses ({@link filesReached}); else the target.
   */
  reached(file: string, target: string, ref: ModuleRef): string[] {
    const folder = topFolder(target);
    const face = folder && isFace(target) && topFolder(file) !== folder ? this.face(folder) : undefined;
    const names = ref.names?.map((n) => n.name);
    return face ? filesReached(face, names) : [target];
  }

  /** The rule (see the module comment) an import from `file` (a `src/` file) of `target` breaks. */
  judge(file: string, target: string, ref: ModuleRef): FaceFault | undefined {
    const from = topFolder(file);
    const to = topFolder(target);
    if (!from || !to) return undefined;
    if (from === to) return isFace(target) && file !== target ? 'own-face' : undefined;
    const face = this.face(to);
    const loadsAdapter = face !== undefined && faceLoadsAdapter(face);
    const pureLoad = isPureFile(file) && !ref.erased;
    if (isFace(target)) return pureLoad && loadsAdapter ? 'pure-through-face' : undefined;
    return pureLoad && loadsAdapter ? undefined : 'past-face';
  }
}
