import type { ValidateFunction } from 'ajv';
import { API_VERSION, type SpecError } from '../types.js';
import { schemaProblems, show, type FieldProblem } from './schema-errors.js';
import {
  ambiguousBooleans,
  formatPath,
  locate,
  type ParsedDocument,
  type PathSegment,
} from './yaml-documents.js';

/** Where each kind of document lives in a GitOps repo, for "wrong folder" messages. */
const FOLDER: Record<string, string> = { Algorithm: 'algorithms/', Policy: 'policies/' };

/** Turns a problem into a located error in `parsed`'s file. */
export function locateProblem(parsed: ParsedDocument, p: FieldProblem): SpecError {
  return {
    file: parsed.file,
    ...locate(parsed, p.path, p.at),
    field: formatPath(p.path),
    message: p.message,
  };
}

/**
 * The envelope every gpuops document shares: a mapping with `apiVersion: gpuops.dev/v1alpha1` and
 * the `kind` its folder holds. A document that fails this is reported once (not field by field:
 * a Kubernetes Deployment dropped into `algorithms/` is one mistake) and checked no further.
 */
export function envelopeProblem(value: unknown, kind: 'Algorithm' | 'Policy'): FieldProblem | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      path: [],
      at: 'value',
      message: `a document must be a mapping with apiVersion, kind, metadata and spec, got ${show(value)}`,
    };
  }
  const doc = value as Record<string, unknown>;
  if (doc['apiVersion'] === undefined) {
    return {
      path: ['apiVersion'],
      at: 'key',
      message: `required field "apiVersion" is missing (${API_VERSION})`,
    };
  }
  if (doc['apiVersion'] !== API_VERSION) {
    return {
      path: ['apiVersion'],
      at: 'value',
      message: `must be "${API_VERSION}", got ${show(doc['apiVersion'])}`,
    };
  }
  if (doc['kind'] === undefined) {
    return { path: ['kind'], at: 'key', message: `required field "kind" is missing (${kind})` };
  }
  if (doc['kind'] !== kind) {
    // An own key only: `kind: constructor` is no folder's kind, whatever Object.prototype holds.
    const elsewhere =
      typeof doc['kind'] === 'string' && Object.hasOwn(FOLDER, doc['kind']) ? FOLDER[doc['kind']] : undefined;
    const hint = elsewhere ? `; ${String(doc['kind'])} documents belong under ${elsewhere}` : '';
    return {
      path: ['kind'],
      at: 'value',
      message: `must be "${kind}" in ${FOLDER[kind]}, got ${show(doc['kind'])}${hint}`,
    };
  }
  return undefined;
}

/** True when `a` and `b` name the same field. */
function samePath(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** True when `path` is `prefix` or lies below it. */
function within(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => path[i] === seg);
}

/**
 * Validates a document's value with a compiled schema and adds the YAML 1.1 boolean check: an
 * unquoted `yes`, `no`, `on`, `off`, `y` or `n` is a string to this YAML 1.2 reader and a boolean to
 * YAML 1.1 readers (kubectl, Helm), so where a string or a boolean is expected gpuops asks the
 * author to say which. Where a number is expected, or the field is unknown, the schema's own
 * problem is the clearer one and wins.
 *
 * @param value what the schema checks; for a policy override, the merge so far plus `parsed`
 */
export function documentProblems(
  validate: ValidateFunction,
  value: unknown,
  parsed: ParsedDocument,
): FieldProblem[] {
  validate(value); // sets validate.errors: null when the value is valid
  const schema = schemaProblems(validate.errors ?? [], value);
  const unknown = schema.filter((p) => p.keyword === 'additionalProperties').map((p) => p.path);
  const replaced: PathSegment[][] = [];
  const ambiguity: FieldProblem[] = [];
  for (const f of ambiguousBooleans(parsed)) {
    if (unknown.some((u) => within(f.path, u))) continue;
    const here = schema.find((p) => samePath(p.path, f.path));
    // Where a boolean is due the ambiguity replaces the type problem; any other problem wins.
    if (here && here.expected !== 'boolean') continue;
    replaced.push(f.path);
    const fix = here
      ? `write true or false`
      : `write "${f.text}" in quotes for a string, or true/false for a boolean`;
    ambiguity.push({
      path: f.path,
      at: 'value',
      message: `unquoted ${f.text} is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); ${fix}`,
    });
  }
  const kept = schema.filter((p) => !replaced.some((r) => samePath(p.path, r)));
  return [...kept, ...ambiguity];
}
