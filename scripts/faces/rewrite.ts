/**
 * Points imports at faces (`scripts/faces.ts`): each use's module specifier becomes the face of its
 * folder (`'../<folder>/index.js'`); the import declarations of one file from one face merge into
 * one (`import type` ones into one of their own), at the place of the first. Export declarations,
 * `import('…')` types and dynamic imports keep their place; only their specifier changes.
 */
import path from 'node:path';
import ts from 'typescript';
import { faceOf } from '../../test/lint/faces.js';
import type { Use } from './uses.js';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** The specifier of `folder`'s face as written in `file` (`../scaling/index.js`). */
export function faceSpecifier(file: string, folder: string): string {
  const rel = path.posix.relative(path.posix.dirname(file), faceOf(folder)).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The end of `node` and the line break after it when nothing but blanks follows it on its line. */
function endOfLine(text: string, end: number): number {
  const m = /^[ \t]*\r?\n/.exec(text.slice(end));
  return end + (m ? m[0].length : 0);
}

function mergeEdits(
  sf: ts.SourceFile,
  group: ts.ImportDeclaration[],
  spec: string,
  typeOnly: boolean,
): Edit[] {
  const sorted = [...group].sort((a, b) => a.getStart(sf) - b.getStart(sf));
  const els: string[] = [];
  for (const d of sorted) {
    const b = d.importClause?.namedBindings;
    if (b && ts.isNamedImports(b))
      for (const el of b.elements) if (!els.includes(el.getText(sf))) els.push(el.getText(sf));
  }
  const first = sorted[0]!;
  const merged = `import ${typeOnly ? 'type ' : ''}{ ${els.join(', ')} } from '${spec}';`;
  const edits: Edit[] = [{ start: first.getStart(sf), end: first.getEnd(), text: merged }];
  for (const d of sorted.slice(1)) {
    if ((ts.getLeadingCommentRanges(sf.text, d.getFullStart()) ?? []).length > 0)
      process.stderr.write(`faces: ${sf.fileName}: a comment above a merged import stays where it was\n`);
    edits.push({ start: d.getStart(sf), end: endOfLine(sf.text, d.getEnd()), text: '' });
  }
  return edits;
}

function fileEdits(sf: ts.SourceFile, file: string, uses: readonly Use[]): Edit[] {
  const edits: Edit[] = [];
  const groups = new Map<string, { decls: ts.ImportDeclaration[]; folder: string; typeOnly: boolean }>();
  for (const use of uses) {
    const spec = faceSpecifier(file, use.folder);
    if (use.decl && ts.isImportDeclaration(use.decl)) {
      const key = `${use.folder}\0${use.erased}`;
      const g = groups.get(key) ?? { decls: [], folder: use.folder, typeOnly: use.erased };
      g.decls.push(use.decl);
      groups.set(key, g);
    } else edits.push({ start: use.spec.getStart(sf), end: use.spec.getEnd(), text: `'${spec}'` });
  }
  for (const g of groups.values())
    edits.push(...mergeEdits(sf, g.decls, faceSpecifier(file, g.folder), g.typeOnly));
  return edits;
}

/** The new text of every file with a use to point at a face, by repository-relative path. */
export function rewriteImports(program: ts.Program, root: string, uses: readonly Use[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const file of [...new Set(uses.map((u) => u.file))].sort()) {
    const sf = program.getSourceFile(path.join(root, file))!;
    const edits = fileEdits(
      sf,
      file,
      uses.filter((u) => u.file === file),
    ).sort((a, b) => b.start - a.start);
    let text = sf.text;
    for (const e of edits) text = text.slice(0, e.start) + e.text + text.slice(e.end);
    out.set(file, text);
  }
  return out;
}
