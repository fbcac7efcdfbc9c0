/**
 * The imports `scripts/faces.ts` judges: every reference from a file of `src/`, `test/`, `bench/`
 * or `scripts/` to a file of another top-level folder of `src/` (import and export declarations,
 * `import('…').T` in a type position, `await import('…')`), with the names it uses and, through
 * the type checker, the file of that folder each name comes from.
 */
import path from 'node:path';
import ts from 'typescript';
import {
  isFace,
  isProductFile,
  moduleRefs,
  resolveSpecifier,
  topFolder,
  type ModuleRef,
} from '../../test/lint/faces.js';

/** One name an import uses, and where the folder gets it. */
export interface NameUse {
  /** The name the target module exports (`a` of `import { a as b }`). */
  name: string;
  /** The file of the folder a face re-exports it from: the deepest file of the folder in its re-export chain. */
  file: string;
  /** The exported thing, aliases followed (two names are one entry when this is one symbol). */
  symbol: ts.Symbol;
  /** Whether it has a value (a function, a constant, a class), so a face may re-export it as a value. */
  value: boolean;
  /** Whether this import needs it at run time (not `import type`, not `type a`, not a type position). */
  runtime: boolean;
}

/** A reference from `file` to `target`, a file of another top-level folder of `src/`. */
export interface Use {
  file: string;
  target: string;
  folder: string;
  /** The module specifier (a string literal) of the reference. */
  spec: ts.StringLiteral;
  decl: ts.ImportDeclaration | ts.ExportDeclaration | undefined;
  names: NameUse[];
  /** `import type`, `export type` or a type position: erased at compile time. */
  erased: boolean;
  /** Set by `decideFaces`: a pure file's value import past a face that loads an adapter, kept. */
  keptForPurity: boolean;
}

/**
 * Where the folder gets an export: follows the re-export chain from `sym` and keeps the last file
 * of `folder` (not its face) it passes, with the name that file exports it under. `typeOnly` when
 * a link of the chain after that file is `export type`/`import type` (the thing is then a type
 * there, whatever it is declared as).
 */
function exporterOf(checker: ts.TypeChecker, root: string, sym: ts.Symbol, folder: string) {
  let found: { file: string; name: string; typeOnly: boolean } | undefined;
  let last = '';
  for (let s: ts.Symbol | undefined = sym, i = 0; s && i < 64; i++) {
    const decl = s.declarations?.[0];
    if (!decl) break;
    const file = path.relative(root, decl.getSourceFile().fileName).split(path.sep).join('/');
    if (topFolder(file) !== folder) break;
    if (file !== last && !isFace(file)) found = { file, name: s.name, typeOnly: false };
    last = file;
    if (found && ts.isTypeOnlyImportOrExportDeclaration(decl)) found.typeOnly = true;
    s = s.flags & ts.SymbolFlags.Alias ? checker.getImmediateAliasedSymbol(s) : undefined;
  }
  return found;
}

/** The names `ref` uses from `target`, resolved; problems for names it cannot resolve. */
function resolveNames(program: ts.Program, root: string, ref: ModuleRef, target: string, problems: string[]) {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(path.join(root, target));
  const mod = sf && checker.getSymbolAtLocation(sf);
  const where = `${path.relative(root, ref.spec.getSourceFile().fileName)} → ${target}`;
  if (!mod) return (problems.push(`${where}: not a module of the program`), []);
  const folder = topFolder(target)!;
  const out: NameUse[] = [];
  for (const n of ref.names ?? []) {
    const sym = checker.tryGetMemberInModuleExports(n.name, mod);
    const at = sym && exporterOf(checker, root, sym, folder);
    if (!sym || n.name === 'default') problems.push(`${where}: cannot re-export '${n.name}'`);
    else {
      const thing = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      out.push({
        name: at?.name ?? n.name,
        file: at?.file ?? target,
        symbol: thing,
        value: (thing.flags & ts.SymbolFlags.Value) !== 0 && !at?.typeOnly,
        runtime: !ref.erased && !n.typeOnly,
      });
    }
  }
  return out;
}

/**
 * Every reference of the program's files (under `src/`, `test/`, `bench/`, `scripts/`) to a file
 * of another folder of `folders` that the faces concern: a product file's (any file of the
 * folder), and anyone's import of a face. Problems (an import it cannot rewrite) go to `problems`.
 */
export function collectUses(
  program: ts.Program,
  root: string,
  folders: ReadonlySet<string>,
  problems: string[],
) {
  const uses: Use[] = [];
  for (const sf of program.getSourceFiles()) {
    const file = path.relative(root, sf.fileName).split(path.sep).join('/');
    if (!/^(src|test|bench|scripts)\//.test(file) || sf.isDeclarationFile) continue;
    for (const ref of moduleRefs(sf)) {
      if (!ref.spec.text.startsWith('.')) continue;
      const target = resolveSpecifier(file, ref.spec.text);
      const folder = topFolder(target);
      if (!folder || !folders.has(folder) || topFolder(file) === folder) continue;
      if (!isProductFile(file) && !isFace(target)) continue;
      if (!isProductFile(file) && ref.names === undefined) {
        // A test's or bench's namespace import of a face: its names are read off the namespace;
        // the face keeps what the product uses, and the type check names anything else missing.
        process.stderr.write(`faces: ${file} → ${target}: a namespace import; not counted\n`);
        continue;
      }
      if (ref.names === undefined || (ref.decl && ref.names.length === 0)) {
        problems.push(
          `${file} → ${target}: name the imports (a namespace, side-effect or \`export *\` import)`,
        );
        continue;
      }
      const names = resolveNames(program, root, ref, target, problems);
      uses.push({
        file,
        target,
        folder,
        spec: ref.spec,
        decl: ref.decl,
        names,
        erased: ref.erased,
        keptForPurity: false,
      });
    }
  }
  return uses;
}
