/**
 * The value of one parsed YAML document, or why it has none. `yaml`'s `Document.toJS()` throws for
 * faults its parser does not list in `doc.errors`: an alias whose anchor is not set before it
 * (`x: *a`) and aliases that expand past `maxAliasCount` (a "billion laughs"). A file a person
 * edited by hand can hold either, so every reader of a file gpuops did not write itself goes through
 * here and gets the fault as a message instead of an exception that stops the pass.
 */
import type { Document } from 'yaml';

/** How many alias expansions a document may make before it is refused (yaml's own default). */
export const MAX_ALIAS_COUNT = 100;

/** A document's value, or the first fault that keeps it from having one. */
export type DocumentValue = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * `doc`'s value as plain data, or its first parse error, or the fault `toJS` throws (an unresolved
 * alias, too many alias expansions), as a message without a location (the caller adds the file
 * and line it knows).
 */
export function documentValue(doc: Document.Parsed): DocumentValue {
  if (doc.errors.length > 0) return { ok: false, error: doc.errors[0]!.message };
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
