/**
 * Writes the face of every folder of the layer table (`src/<folder>/index.ts`, see
 * `test/lint/faces.ts`) and points the imports of `src/` at them.
 *
 * 1. Reads every import of `src/`, `test/`, `bench/` and `scripts/` into another top-level folder
 *    of `src/` with the TypeScript compiler (the type checker finds which file of the folder each
 *    name comes from, through re-exports).
 * 2. Writes each face: its header comment (kept from the face on disk, else {@link FACE_DOCS}),
 *    then the names the other folders use, as named re-exports grouped by file
 *    (`export { a, b } from './x.js';`, `export type { T } from './x.js';` for a name only ever
 *    used as a type). Tests, the bench and the scripts may import any file; a name they import
 *    through a face stays in it.
 * 3. Rewrites each import of a `src/` file past another folder's face to the face
 *    (`'../<folder>/index.js'`), merging the imports of one face into one declaration (one
 *    `import type` apart). Imports inside one top-level folder stay direct. A pure file
 *    (`eslint/purity.js`) keeps a value import past a face that loads an adapter.
 *
 * Running it twice changes nothing. Usage: `npx tsx scripts/faces.ts [--check] [--root DIR]`;
 * `--check` writes nothing, lists the files it would change and exits 1 when there is one.
 * @throws (exits 2) on an import it cannot rewrite (a namespace or default import, `export *`
 *   across folders), a name two files of one folder export for different things, a face without a
 *   header comment, or a face that holds code of its own.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import ts from 'typescript';
import { faceOf, isFace } from '../test/lint/faces.js';
import { LAYERS } from '../test/lint/structure.js';
import { collectUses, type Use } from './faces/uses.js';
import { decideFaces, type FaceEntry } from './faces/decide.js';
import { rewriteImports } from './faces/rewrite.js';
import { FACE_DOCS, renderFace } from './faces/render.js';

const rootAt = process.argv.indexOf('--root');
/** The repository (default this checkout; `--root DIR` for another tree, as the script's test does). */
const ROOT =
  rootAt > 0 ? path.resolve(process.argv[rootAt + 1]!) : fileURLToPath(new URL('..', import.meta.url));

/** The TypeScript program of the repository's sources (tsconfig.json's options, plus `scripts/`). */
function openProgram(root: string): ts.Program {
  const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const scripts = ts.sys.readDirectory(path.join(root, 'scripts'), ['.ts']);
  return ts.createProgram([...parsed.fileNames, ...scripts], { ...parsed.options, noEmit: true });
}

async function format(file: string, text: string): Promise<string> {
  const abs = path.join(ROOT, file);
  return prettier.format(text, { ...(await prettier.resolveConfig(abs)), filepath: abs });
}

/** The header comment a face keeps: the face's own on disk, else {@link FACE_DOCS}. */
function faceHeader(folder: string, problems: string[]): string {
  const file = path.join(ROOT, faceOf(folder));
  if (existsSync(file)) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
    const code = sf.statements.filter((s) => !ts.isExportDeclaration(s) || !s.moduleSpecifier);
    if (code.some((s) => !(ts.isExportDeclaration(s) && s.exportClause && !s.moduleSpecifier)))
      problems.push(`${faceOf(folder)}: a face holds re-exports only; move its code to a file of its own`);
    const ranges = ts.getLeadingCommentRanges(text, 0) ?? [];
    const doc = ranges.map((r) => text.slice(r.pos, r.end)).filter((c) => !c.startsWith('// Re-exports'));
    if (doc.length > 0) return doc.join('\n');
  }
  const doc = FACE_DOCS[folder];
  if (doc === undefined) problems.push(`${faceOf(folder)}: no header comment; add one to FACE_DOCS`);
  return doc ?? '';
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const folders = LAYERS.flat().filter((f) => existsSync(path.join(ROOT, 'src', f)));
  const program = openProgram(ROOT);
  const problems: string[] = [];
  const uses: Use[] = collectUses(program, ROOT, new Set(folders), problems);
  const { entries, rewrite } = decideFaces(uses, problems);
  const headers = new Map(folders.map((f) => [f, faceHeader(f, problems)]));
  if (problems.length > 0) {
    process.stderr.write(`faces: cannot go on:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  const out = new Map<string, string>();
  for (const folder of folders) {
    const own = entries.filter((e: FaceEntry) => e.folder === folder);
    out.set(faceOf(folder), await format(faceOf(folder), renderFace(headers.get(folder)!, own)));
  }
  for (const [file, text] of rewriteImports(program, ROOT, rewrite)) out.set(file, await format(file, text));
  const changed = [...out].filter(([file, text]) => {
    const abs = path.join(ROOT, file);
    return !existsSync(abs) || readFileSync(abs, 'utf8') !== text;
  });
  const rewritten = rewrite.filter((u) => !isFace(u.target)).length;
  process.stdout.write(
    `faces: ${folders.length} faces, ${entries.length} names, ${rewritten} imports past a face ` +
      `${check ? 'to rewrite' : 'rewritten'}, ${changed.length} files ${check ? 'to change' : 'changed'}` +
      ` (pure files keeping an import past a face that loads an adapter: ${
        uses.filter((u) => u.keptForPurity).length
      })\n`,
  );
  for (const [file, text] of changed) {
    if (check) process.stdout.write(`  ${file}\n`);
    else writeFileSync(path.join(ROOT, file), text);
  }
  if (check && changed.length > 0) process.exit(1);
}

await main();
