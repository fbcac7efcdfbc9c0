/**
 * What each face re-exports and which imports go through it (`scripts/faces.ts`): every name a
 * product file of another folder uses, and every name anyone imports through the face already.
 * A pure file's value import stays past a face that loads an adapter (`test/lint/faces.ts`).
 */
import type ts from 'typescript';
import { isAdapterModule, isFace, isProductFile, isPureFile } from '../../test/lint/faces.js';
import type { Use } from './uses.js';

/** One re-export of a face. */
export interface FaceEntry {
  folder: string;
  name: string;
  /** The folder's file it comes from, repository-relative. */
  file: string;
  /** Re-exported with `export type` (no importer needs it at run time, or it is a type). */
  typeOnly: boolean;
}

interface Wanted {
  entry: FaceEntry;
  symbol: ts.Symbol;
}

function addUse(wanted: Map<string, Wanted>, use: Use, problems: string[]): void {
  for (const n of use.names) {
    const key = `${use.folder}\0${n.name}`;
    const typeOnly = !(n.value && n.runtime);
    const had = wanted.get(key);
    if (!had) {
      wanted.set(key, {
        entry: { folder: use.folder, name: n.name, file: n.file, typeOnly },
        symbol: n.symbol,
      });
      continue;
    }
    if (had.symbol !== n.symbol)
      problems.push(
        `src/${use.folder}: two things named '${n.name}' (${had.entry.file}, ${n.file}); rename one`,
      );
    if (n.file < had.entry.file) had.entry.file = n.file;
    had.entry.typeOnly &&= typeOnly;
  }
}

const loadsAdapter = (wanted: Map<string, Wanted>, folder: string): boolean =>
  [...wanted.values()].some(
    (w) => w.entry.folder === folder && !w.entry.typeOnly && isAdapterModule(w.entry.file),
  );

/**
 * The faces' entries (sorted by folder, file, name) and the uses to point at a face. A use of a
 * pure file that loads the target at run time waits until the other uses have shown whether the
 * face loads an adapter; if it does, the use keeps its import (`keptForPurity`).
 */
export function decideFaces(uses: Use[], problems: string[]): { entries: FaceEntry[]; rewrite: Use[] } {
  const wanted = new Map<string, Wanted>();
  const pure: Use[] = [];
  const rewrite: Use[] = [];
  for (const use of uses) {
    const product = isProductFile(use.file);
    if (product && !use.erased && isPureFile(use.file)) pure.push(use);
    else {
      addUse(wanted, use, problems);
      if (product) rewrite.push(use);
    }
  }
  const adapter = new Set([...new Set(uses.map((u) => u.folder))].filter((f) => loadsAdapter(wanted, f)));
  for (const use of pure) {
    if (!adapter.has(use.folder)) {
      addUse(wanted, use, problems);
      rewrite.push(use);
    } else if (isFace(use.target))
      problems.push(`${use.file} → ${use.target}: a pure file loads a face that loads an adapter`);
    else use.keptForPurity = true;
  }
  for (const f of new Set(pure.map((u) => u.folder)))
    if (!adapter.has(f) && loadsAdapter(wanted, f))
      problems.push(`src/${f}: its pure files' imports would make its face load an adapter module`);
  const entries = [...wanted.values()].map((w) => w.entry);
  entries.sort((a, b) => cmp(a.folder, b.folder) || cmp(a.file, b.file) || cmp(a.name, b.name));
  return { entries, rewrite };
}

/** Code-point order: the same on every machine (no locale). */
export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
