import type { SpecError } from '../types.js';

/** One error as a line people and editors read: `file:line:column: field: message`. */
export function formatSpecError(e: SpecError): string {
  return `${e.file}:${e.line}:${e.column}: ${e.field === '' ? '(document)' : e.field}: ${e.message}`;
}

/** Orders errors by file, then line, then column (the order people fix them in). */
export function compareSpecErrors(a: SpecError, b: SpecError): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}
