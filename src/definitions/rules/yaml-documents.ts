import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  visit,
  type Document,
  type Node as YamlNode,
} from 'yaml';
import type { SpecError } from '../types.js';
import { duplicateKeys } from './yaml-duplicates.js';
import { MAX_ALIAS_COUNT } from '../../util/index.js';

/** A file as read from a GitOps repo: `path` relative to the repo root, with `/` separators. */
export interface SpecFile {
  path: string;
  text: string;
}

/** One step of a field path: a mapping key or a sequence index. */
export type PathSegment = string | number;

/** A 1-based line and column. */
export interface Position {
  line: number;
  column: number;
}

/**
 * Cap on alias expansion when a document becomes a value (`util/yaml-value.ts`, shared with every
 * other reader of a file gpuops did not write): an alias bomb (a billion laughs) fails with a
 * located error instead of eating memory. Real specs use a handful of aliases.
 */
export { MAX_ALIAS_COUNT };

/** One non-empty YAML document that parsed without errors. */
export interface ParsedDocument {
  file: string;
  /** 0-based index of the document in its file. */
  index: number;
  /** The plain value of the document (mappings become objects). */
  value: unknown;
  /** Where the document's content starts. */
  start: Position;
  doc: Document.Parsed;
  lineCounter: LineCounter;
}

/**
 * Parsing options: YAML 1.2 core schema (`yes` is a string), `<<` merges. Duplicate keys are
 * rejected by `yaml-duplicates.ts` (linear), not by the library's `uniqueKeys` (quadratic in a
 * mapping's keys).
 */
const OPTIONS = {
  version: '1.2',
  schema: 'core',
  uniqueKeys: false,
  merge: true,
  prettyErrors: false,
} as const;

/** Field path as people read it: `spec.env[0].name`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const s of path) out += typeof s === 'number' ? `[${s}]` : out === '' ? s : `.${s}`;
  return out;
}

/** 1-based position of a character offset. */
export function positionOf(lineCounter: LineCounter, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/**
 * Splits a file into its YAML documents. CRLF and CR line ends read as LF. Empty documents (no
 * content, or only comments) are skipped. A document with syntax errors, duplicate keys or too
 * many aliases yields located errors and no value; the other documents of the file still count.
 * `names` lists the `metadata.name` of every document that has a readable one, documents with
 * errors included (a broken edit still says which algorithm it is).
 */
export function parseDocuments(file: SpecFile): {
  documents: ParsedDocument[];
  errors: SpecError[];
  names: string[];
} {
  const text = file.text.replace(/\r\n?/g, '\n');
  const lineCounter = new LineCounter();
  const documents: ParsedDocument[] = [];
  const errors: SpecError[] = [];
  const names: string[] = [];
  const docs = parseAllDocuments(text, { ...OPTIONS, lineCounter }) as Document.Parsed[];
  docs.forEach((doc, index) => {
    const duplicates = duplicateKeys(doc);
    if (doc.errors.length > 0 || duplicates.length > 0) {
      // What the document says it is, as far as it can be read (a duplicate key still names it).
      const name = metadataName(() => doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
      if (name !== undefined) names.push(name);
      for (const d of duplicates) {
        const path = [...d.path];
        const message = `duplicate key "${String(path.at(-1))}": a key may appear only once in a mapping`;
        while (typeof path[path.length - 1] === 'number') path.pop();
        errors.push({
          file: file.path,
          ...positionOf(lineCounter, d.offset),
          field: formatPath(path),
          message,
        });
      }
      for (const e of doc.errors) {
        const offset = syntaxOffset(text, e.pos[0]);
        const path = pathAtOffset(doc, offset);
        const message = `YAML syntax: ${e.message}`;
        while (typeof path[path.length - 1] === 'number') path.pop();
        errors.push({
          file: file.path,
          ...positionOf(lineCounter, offset),
          field: formatPath(path),
          message,
        });
      }
      return;
    }
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) return;
    const start = positionOf(lineCounter, doc.contents.range[0]);
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      const fault = aliasFault(doc);
      if (fault) {
        const path = pathAtOffset(doc, fault.offset);
        errors.push({
          file: file.path,
          ...positionOf(lineCounter, fault.offset),
          field: formatPath(path),
          message: fault.message,
        });
      } else {
        errors.push({
          file: file.path,
          ...start,
          field: '',
          message: `aliases expand to too many nodes (limit ${MAX_ALIAS_COUNT}): ${err instanceof Error ? err.message : String(err)}`,
        });
      }
      return;
    }
    const name = metadataName(() => value);
    if (name !== undefined) names.push(name);
    documents.push({ file: file.path, index, value, start, doc, lineCounter });
  });
  return { documents, errors, names };
}

/**
 * The first alias fault of a document whose `toJS` threw, at the alias or the `<<` key: an alias
 * whose anchor is not set before it in the same document (an anchor holds only up to the next
 * `---`; yaml throws "Unresolved alias", or for a merge "Merge sources must be maps"), or a `<<`
 * that merges something other than a mapping, an alias of one or a list of them (YAML's merge
 * key type, https://yaml.org/type/merge.html). Undefined when neither is found (too many alias
 * expansions: the caller says so at the document's start).
 */
function aliasFault(doc: Document.Parsed): { offset: number; message: string } | undefined {
  const anchors = new Map<string, unknown>();
  let fault: { offset: number; message: string } | undefined;
  const unanchored = (node: unknown): boolean => isAlias(node) && !anchors.has(node.source);
  const mergeable = (node: unknown): boolean =>
    isMap(node) ||
    (isAlias(node) && isMap(anchors.get(node.source))) ||
    (isSeq(node) && node.items.every(mergeable));
  visit(doc, {
    Pair(_, pair) {
      const key = pair.key as YamlNode | null;
      if (!isScalar(key) || typeof key.value !== 'symbol' || unanchored(pair.value)) return undefined;
      if (mergeable(pair.value)) return undefined;
      const value = pair.value as YamlNode | null;
      const got = isAlias(value)
        ? `the alias *${value.source} of a non-mapping`
        : isSeq(value)
          ? 'a list with an item that is not one'
          : 'a scalar';
      fault = {
        offset: key.range![0],
        message: `"<<" merges a mapping, an alias of one or a list of them; got ${got}`,
      };
      return visit.BREAK;
    },
    Node(_, node) {
      if (unanchored(node)) {
        const name = (node as { source: string }).source;
        fault = {
          offset: node.range![0],
          message: `alias *${name} has no anchor &${name} before it in this document (an anchor holds only within its own YAML document, up to the next "---")`,
        };
        return visit.BREAK;
      }
      if (!isAlias(node) && node.anchor) anchors.set(node.anchor, node);
      return undefined;
    },
  });
  return fault;
}

/** `metadata.name` of a document's value when it is a string; undefined when unreadable. */
function metadataName(value: () => unknown): string | undefined {
  try {
    // No metadata (or no value at all) throws here and reads as no name.
    const name = (value() as { metadata: { name: unknown } }).metadata.name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where to show a YAML error: the parser often notices an unclosed `[` or `"` only at the next
 * document marker or at the end of the file; the mistake is on the last line with content before.
 */
function syntaxOffset(text: string, offset: number): number {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  // In a line's indentation of spaces (the parser reports a misaligned item, BAD_INDENT, at its
  // line's start): the item itself, where a person sees the misalignment. A tab stays where it is.
  const lead = /^ */.exec(text.slice(offset))![0].length;
  if (lead > 0 && /^ *$/.test(text.slice(lineStart, offset)) && !/^\n?$/.test(text[offset + lead] ?? ''))
    return offset + lead;
  const atMarker = offset === lineStart && /^(?:---|\.\.\.)\s/.test(text.slice(offset, offset + 4));
  if (!atMarker && offset < text.trimEnd().length) return offset;
  // The content before the offset: at a marker, the lines above it; at the end of a file without
  // a final newline, the last line itself.
  const before = text.slice(0, offset).trimEnd();
  const lastLine = before.lastIndexOf('\n') + 1;
  const indent = before.slice(lastLine).length - before.slice(lastLine).trimStart().length;
  return lastLine + indent;
}

/** The path of the deepest node whose source range holds `offset` (for syntax errors). */
function pathAtOffset(doc: Document.Parsed, offset: number): PathSegment[] {
  const path: PathSegment[] = [];
  let node: unknown = doc.contents;
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        const k = p.key as YamlNode | null;
        const v = p.value as YamlNode | null;
        const from = k?.range?.[0] ?? v?.range?.[0];
        const to = v?.range?.[2] ?? k?.range?.[2];
        // range[2] is the end of the node (with its trailing comment and line end), exclusive.
        return from !== undefined && to !== undefined && offset >= from && offset < to;
      });
      if (!pair) return path;
      // A merge key's value is a symbol: show it as written (`<<`).
      path.push(
        isScalar(pair.key) ? (typeof pair.key.value === 'symbol' ? '<<' : String(pair.key.value)) : '?',
      );
      // An offset in the key finds nothing in the value, which comes after it.
      node = pair.value;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((it) => {
        const r = (it as YamlNode | null)?.range;
        return r !== undefined && r !== null && offset >= r[0] && offset < r[2];
      });
      if (i < 0) return path;
      path.push(i);
      node = node.items[i];
    } else {
      return path;
    }
  }
}

/**
 * Finds the node of a field path in a document, following aliases. Returns the value node and,
 * for a mapping entry, the key node. When the path leads somewhere the source does not show (a
 * merged `<<` key, a missing field), returns the deepest node found and `exact: false`.
 */
export function findNode(
  doc: Document.Parsed,
  path: readonly PathSegment[],
): { value: YamlNode | null; key: YamlNode | null; exact: boolean } {
  let value = doc.contents as YamlNode | null;
  let key: YamlNode | null = null;
  for (const seg of path) {
    let current: unknown = value;
    if (isAlias(current)) current = current.resolve(doc);
    if (isMap(current) && typeof seg === 'string') {
      const pair = current.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) return { value, key, exact: false };
      key = pair.key as YamlNode;
      value = (pair.value as YamlNode | null) ?? key;
    } else if (isSeq(current) && typeof seg === 'number' && seg < current.items.length) {
      key = null;
      value = current.items[seg] as YamlNode;
    } else {
      return { value, key, exact: false };
    }
  }
  return { value, key, exact: true };
}

/**
 * Position of a field in a parsed document: the value (`at: 'value'`) or the key (`at: 'key'`),
 * falling back to the nearest enclosing field present in the source.
 */
export function locate(parsed: ParsedDocument, path: readonly PathSegment[], at: 'key' | 'value'): Position {
  const { value, key } = findNode(parsed.doc, path);
  const node = at === 'key' && key !== null ? key : (value ?? key);
  const offset = node?.range?.[0];
  return offset === undefined ? parsed.start : positionOf(parsed.lineCounter, offset);
}

/** Plain scalars that YAML 1.1 readers (kubectl, many tools) take for booleans; YAML 1.2 for strings. */
const YAML11_BOOLEAN = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

/**
 * Unquoted `yes`, `no`, `on`, `off` (and `y`, `n`) in value position: a string to this YAML 1.2
 * reader, a boolean to YAML 1.1 readers. gpuops asks the author to say which.
 */
export function ambiguousBooleans(
  parsed: ParsedDocument,
): { path: PathSegment[]; text: string; at: Position }[] {
  const found: { path: PathSegment[]; text: string; at: Position }[] = [];
  const walk = (node: unknown, path: PathSegment[]): void => {
    if (isMap(node)) {
      for (const p of node.items) {
        if (isScalar(p.key)) walk(p.value, [...path, String(p.key.value)]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((it, i) => walk(it, [...path, i]));
    } else if (isScalar(node) && node.type === 'PLAIN' && typeof node.value === 'string') {
      if (YAML11_BOOLEAN.test(node.value) && node.range) {
        found.push({ path, text: node.value, at: positionOf(parsed.lineCounter, node.range[0]) });
      }
    }
  };
  walk(parsed.doc.contents, []);
  return found;
}

/** The source text of a plain scalar at `path` (`1e3` stays `1e3`, not `1000`), if there is one. */
export function scalarSource(parsed: ParsedDocument, path: readonly PathSegment[]): string | undefined {
  const { value, exact } = findNode(parsed.doc, path);
  if (!exact || !isScalar(value)) return undefined;
  return value.source;
}
