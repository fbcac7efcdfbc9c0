import { validators } from '../schema/compile.js';
import { compareSpecErrors, formatSpecError } from './format.js';
import type { Policy, SpecError } from '../types.js';
import { documentProblems, envelopeProblem, locateProblem } from './document.js';
import type { ParsedDocument } from './yaml-documents.js';
import { boundAt } from './cross-field.js';
import { labelKeyProblems } from './policy-keys.js';
import { podSecurityEntryProblems } from './policy-pod-security.js';
import { poolTaintModeProblems } from './policy-taint.js';
import { policyNamespaceProblems } from './namespaces.js';
import { rolloutProblems } from './policy-rollout.js';
import { policySignalProblems } from './signals.js';
import { standbyPolicyProblems } from './standby.js';
import { policyLimitProblems } from './spec-limits.js';
import type { FieldProblem } from './schema-errors.js';
import { emptyTestPoolWarnings, ratioBandWarnings } from './spec-warnings.js';
import { parseDocuments, type PathSegment, type SpecFile } from './yaml-documents.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Deep merge of a policy override onto a base, field by field: mappings merge key by key (own
 * keys only), everything else (scalars, lists, `null`) replaces. Neither input is changed.
 *
 * `mergePolicy(default, {spec: {scaling: {utilization: {max: 90}}}})` changes only `max`;
 * `{spec: {pullRequests: {labels: [a]}}}` replaces the whole label list.
 */
export function mergePolicy<T>(base: T, override: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(override)) return structuredClone(override) as T;
  // Own keys only, written as data properties: a `__proto__` or `constructor` key in a document is
  // a field like any other (the schema rejects it), never the object's prototype.
  const merged = Object.entries(override).map(([k, v]) => [
    k,
    Object.hasOwn(base, k) ? mergePolicy(base[k], v) : structuredClone(v),
  ]);
  return Object.fromEntries([...Object.entries(base), ...merged]) as T;
}

/** True when `value` has a field at `path`. */
function has(value: unknown, path: readonly PathSegment[]): boolean {
  let node = value;
  for (const seg of path) {
    if (!isPlainObject(node) || !(String(seg) in node)) return false;
    node = node[String(seg)];
  }
  return true;
}

/**
 * Rules across policy fields that a schema cannot say: `minReplicas ≤ maxReplicas` (equal allowed:
 * a fixed size), `utilization.min < utilization.max` (equal would both scale up and down). The
 * problem names the bound that `override` (the document being applied) sets, so it is located there.
 * They run beside the schema (all errors in one round); a bound the schema rejects is left out
 * (see {@link boundAt}).
 *
 * @param p        the merged policy so far, as parsed (it may not pass the schema)
 * @param override the document being applied, or `undefined` for the default policy
 * @param schema   the schema problems already found in `p`
 */
export function policyCrossProblems(
  p: unknown,
  override?: unknown,
  schema: readonly FieldProblem[] = [],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const pick = (a: PathSegment[], b: PathSegment[]) => (override === undefined || has(override, a) ? a : b);
  const at = (...path: string[]) => ['spec', 'scaling', ...path];
  const minR = boundAt(p, at('minReplicas'), schema);
  const maxR = boundAt(p, at('maxReplicas'), schema);
  if (minR && maxR && minR.value > maxR.value) {
    problems.push({
      path: pick(at('minReplicas'), at('maxReplicas')),
      at: 'value',
      message: `minReplicas ${minR.value} is above maxReplicas ${maxR.value}`,
    });
  }
  const minU = boundAt(p, at('utilization', 'min'), schema);
  const maxU = boundAt(p, at('utilization', 'max'), schema);
  if (minU && maxU && minU.value >= maxU.value) {
    problems.push({
      path: pick(at('utilization', 'min'), at('utilization', 'max')),
      at: 'value',
      message: `utilization min ${minU.value}% must be below max ${maxU.value}%`,
    });
  }
  return problems;
}

/** Schema and cross-field problems of a whole (merged) policy; `parsed` is the document applied last. */
function policyProblems(value: unknown, parsed: ParsedDocument): FieldProblem[] {
  const schema = documentProblems(validators().policy, value, parsed);
  return [
    ...schema,
    ...policyCrossProblems(value, parsed.value, schema),
    ...rolloutProblems(value, parsed.value, schema),
    ...policyLimitProblems(value, parsed.value, schema),
    ...labelKeyProblems(parsed.value),
    ...podSecurityEntryProblems(parsed.value),
    ...(schema.length === 0 ? poolTaintModeProblems(value, parsed.value) : []),
    ...policyNamespaceProblems(value, schema),
    ...standbyPolicyProblems(value, parsed.value, schema),
    // Located in the document that sets the field; a later document that does not is not blamed.
    ...(schema.length === 0 ? policySignalProblems((value as Policy).spec?.scaling) : []).filter((p) =>
      has(parsed.value, p.path.slice(0, 3)),
    ),
  ];
}

/**
 * Parses the shipped default policy. Throws when it is not a valid Policy: that is a bug in
 * gpuops, not in a user's repo.
 */
export function parseDefaultPolicy(file: SpecFile): Policy {
  const parsed = parseDocuments(file);
  const doc = parsed.documents[0];
  const problems = doc ? [envelopeProblem(doc.value, 'Policy'), ...policyProblems(doc.value, doc)] : [];
  const errors = [
    ...parsed.errors,
    ...(doc ? problems.flatMap((p) => (p ? [locateProblem(doc, p)] : [])) : []),
  ];
  if (!doc || parsed.documents.length > 1 || errors.length > 0) {
    const lines = errors.map(formatSpecError);
    throw new Error(`the default policy ${file.path} is not one valid Policy document\n${lines.join('\n')}`);
  }
  return doc.value as Policy;
}

/** The merged policy, the override files it was merged from, and the problems of the files. */
export interface ParsedPolicy {
  policy: Policy;
  errors: SpecError[];
  /**
   * The override files (repo-relative, in the order they apply) with a document merged into
   * `policy`; a file whose every document was refused is not here. Empty: the shipped default.
   */
  applied: string[];
  /** Values valid but most likely meant otherwise (`spec-warnings.ts`), located in the applied documents. */
  warnings: SpecError[];
}

/**
 * Merges a repo's `policies/*.yaml` onto the default policy (pure: the caller reads the disk).
 * Files apply in path order and documents in file order, later ones winning field by field (see
 * {@link mergePolicy}). Each document is checked by validating the merge so far plus it, so every
 * error is located in the document that introduced it; a document with errors is reported and
 * left out, and the others still apply. Two documents with one `metadata.name` are an error on the
 * later one (path order), naming the first's place, and the later is not applied: a copy of a
 * policy left under a new file name would otherwise quietly win field by field. An applied
 * document's values that are valid but most likely meant otherwise are `warnings`
 * (`spec-warnings.ts`: a ratio-like utilisation band, an empty test pool).
 *
 * @param defaults the parsed shipped `policies/default.yaml`
 * @param files    the repo's policy files, paths relative to the repo root
 */
export function parsePolicy(defaults: Policy, files: readonly SpecFile[]): ParsedPolicy {
  let policy = defaults;
  const errors: SpecError[] = [];
  const warnings: SpecError[] = [];
  const applied: string[] = [];
  const names = new Map<string, SpecError>();
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const parsed = parseDocuments(file);
    errors.push(...parsed.errors);
    for (const doc of parsed.documents) {
      const envelope = envelopeProblem(doc.value, 'Policy');
      if (envelope) {
        errors.push(locateProblem(doc, envelope));
        continue;
      }
      const duplicate = duplicateName(doc, names);
      const candidate = mergePolicy(policy, doc.value);
      const problems = [...policyProblems(candidate, doc), ...(duplicate ? [duplicate] : [])];
      if (problems.length > 0) {
        errors.push(...problems.map((p) => locateProblem(doc, p)));
        continue;
      }
      policy = candidate;
      const band = candidate.spec.scaling.utilization;
      warnings.push(
        ...[
          ...ratioBandWarnings(doc.value, ['spec', 'scaling', 'utilization'], band),
          ...emptyTestPoolWarnings(doc.value, candidate),
        ].map((p) => locateProblem(doc, p)),
      );
      if (applied.at(-1) !== file.path) applied.push(file.path);
    }
  }
  return {
    policy,
    errors: errors.sort(compareSpecErrors),
    applied,
    warnings: warnings.sort(compareSpecErrors),
  };
}

/**
 * The problem of a policy document whose `metadata.name` an earlier document holds (`names`: name
 * → where), or undefined; a first use of a name is recorded, even by a document refused for other
 * reasons (so fixing it never swaps which copy counts).
 */
function duplicateName(doc: ParsedDocument, names: Map<string, SpecError>): FieldProblem | undefined {
  const meta = (doc.value as { metadata?: unknown }).metadata;
  const name = isPlainObject(meta) ? meta['name'] : undefined;
  if (typeof name !== 'string' || name === '') return undefined;
  const first = names.get(name);
  if (!first) {
    names.set(name, locateProblem(doc, { path: ['metadata', 'name'], at: 'value', message: '' }));
    return undefined;
  }
  return {
    path: ['metadata', 'name'],
    at: 'value',
    message: `duplicate policy name "${name}": already defined at ${first.file}:${first.line}:${first.column}; this document is not applied (merge it into that one, or give it its own name)`,
  };
}
