import type { ValidateFunction } from 'ajv';
import { API_VERSION, type SpecError } from '../types.js';
import { schemaProblems, show, type FieldProblem } from './schema-errors.js';
import { ambiguousBooleans, formatPath, locate, type ParsedDocument, type PathSegment } from './yaml-documents.js';

/** Where each kind of document lives in a GitOps repo, for "wrong folder" messages. */
const FOLDER: Record<string, string> = { Algorithm: 'algorithms/', Policy: 'policies/' };

/** Turns a problem into a located error in `parsed`'s file. */
export function locateProblem(parsed: ParsedDocument, p: FieldProblem): SpecError {
  return { file: parsed.file, ...locate(parsed, p.path, p.at), field: formatPath(p.path), message: p.message };
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
    return { path: ['apiVersion'], at: 'key', message: `required field "apiVersion" is missing (${API_VERSION})` };
  }
  if (doc['apiVersion'] !== API_VERSION) {
    return { path: ['apiVersion'], at: 'value', message: `must be "${API_VERSION}", got ${show(doc['apiVersion'])}` };
  }
  if (doc['kind'] === undefined) {
    return { path: ['kind'], at: 'key', message: `required field "kind" is missing (${kind})` };
  }
  if (doc['kind'] !== kind) {
    const elsewhere = typeof doc['kind'] === 'string' ? FOLDER[doc['kind']] : undefined;
    const hint = elsewhere ? `; ${String(doc['kind'])} documents belong under ${elsewhere}` : '';
    return { path: ['kind'], at: 'value', message: `must be "${kind}" in ${FOLDER[kind]}, got ${show(doc['kind'])}${hint}` };
  }
  return undefined;
}

/**
 * Unquoted YAML 1.1 booleans (`yes`, `no`, `on`, `off`, `y`, `n`) as problems, each with the fix.
 * Their paths are returned too, so schema errors on the same values are not reported twice.
 */
export function ambiguityProblems(parsed: ParsedDocument): { problems: FieldProblem[]; paths: PathSegment[][] } {
  const found = ambiguousBooleans(parsed);
  return {
    paths: found.map((f) => f.path),
    problems: found.map((f) => ({
      path: f.path,
      at: 'value' as const,
      message:
        `unquoted ${f.text} is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); ` +
        `write "${f.text}" in quotes for a string, or true/false for a boolean`,
    })),
  };
}

/**
 * Runs a compiled schema over `value` and returns its problems, minus those on `skip` paths.
 * `value` is what gets validated (it may differ from the document: a policy override merged
 * onto the defaults).
 */
export function validateProblems(
  validate: ValidateFunction,
  value: unknown,
  skip: readonly PathSegment[][],
): FieldProblem[] {
  if (validate(value)) return [];
  return schemaProblems(validate.errors ?? [], value, skip);
}
