/**
 * Every exported function, class, interface, type, enum and const of `src/` carries a doc comment
 * (`/** … *\/` right above it), where its shapes, units, errors and the source of its rule are
 * said. Generated files (`*.generated.ts`: their generator documents them) are not checked, nor
 * re-exports (the faces). Parsing only, no type check: about a second.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `name (line)` of each exported declaration of `text` with no doc comment right above it. */
function undocumented(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const functions = new Set<string>();
  for (const st of sf.statements) {
    const exported =
      ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    let names: string[];
    if (
      ts.isFunctionDeclaration(st) ||
      ts.isClassDeclaration(st) ||
      ts.isInterfaceDeclaration(st) ||
      ts.isTypeAliasDeclaration(st) ||
      ts.isEnumDeclaration(st)
    )
      names = [st.name?.text ?? 'default'];
    else if (ts.isVariableStatement(st))
      names = st.declarationList.declarations.map((d) => d.name.getText(sf));
    else continue;
    // An overloaded function's doc sits on its first signature; the others need none of their own.
    if (ts.isFunctionDeclaration(st) && functions.has(names[0]!)) continue;
    if (ts.isFunctionDeclaration(st)) functions.add(names[0]!);
    // A line comment may sit between the doc and the declaration (an `eslint-disable-next-line`).
    const comments = ts.getLeadingCommentRanges(text, st.getFullStart()) ?? [];
    if (comments.some((c) => text.startsWith('/**', c.pos))) continue;
    out.push(`${names.join(', ')} (line ${sf.getLineAndCharacterOfPosition(st.getStart(sf)).line + 1})`);
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)))
    .filter((f) => !/\.(test|generated|d)\.ts$/.test(f))
    .sort();
}

describe('doc comments on exports', () => {
  it('finds each kind of undocumented export, and only those', () => {
    const probe = [
      '/** Documented. */',
      'export function a(): void {}',
      'export function b(): void {}',
      '// A line comment is no doc comment.',
      'export const c = 1, d = 2;',
      '/** Documented. */',
      '// eslint-disable-next-line @typescript-eslint/no-empty-interface',
      'export interface E {}',
      'export type F = string;',
      '/* A block comment is none either. */',
      'export class G {}',
      'export enum H { X }',
      'const notExported = 1;',
      'export { notExported };',
      '/** The overload carries it. */',
      'export function o(x: string): string;',
      'export function o(x: number): number;',
      'export function o(x: unknown): unknown { return x; }',
      'export function p(x: string): string;',
      '/** Too late: the first signature has none. */',
      'export function p(x: unknown): unknown { return x; }',
    ].join('\n');
    expect(undocumented('probe.ts', probe)).toEqual([
      'b (line 3)',
      'c, d (line 5)',
      'F (line 9)',
      'G (line 11)',
      'H (line 12)',
      'p (line 19)',
    ]);
  });

  it('every export of src/ has one', () => {
    const missing = sourceFiles(path.join(ROOT, 'src')).flatMap((f) =>
      undocumented(f, readFileSync(path.join(ROOT, f), 'utf8')).map((d) => `${f}: ${d}`),
    );
    expect(missing).toEqual([]);
  });
});
