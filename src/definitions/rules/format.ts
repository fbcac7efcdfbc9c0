import { escapeControl } from '../../util/index.js';
import type { SpecError } from '../types.js';

/**
 * One error as a line people and editors read: `file:line:column: field: message`, always one
 * line: control characters of the file, field and message (a YAML key with a newline or an ESC
 * sequence) are escaped ({@link escapeControl}). An error about a whole file or folder (line 0,
 * e.g. a folder that leaves the repo) has no position: `file: message`.
 */
export function formatSpecError(e: SpecError): string {
  if (e.line === 0) return escapeControl(`${e.file}: ${e.field === '' ? '' : `${e.field}: `}${e.message}`);
  const field = e.field === '' ? '(document)' : e.field;
  return escapeControl(`${e.file}:${e.line}:${e.column}: ${field}: ${e.message}`);
}

/** Orders errors by file, then line, then column (the order people fix them in). */
export function compareSpecErrors(a: SpecError, b: SpecError): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}
