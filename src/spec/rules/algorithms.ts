import { validators } from '../schema/compile.js';
import { compareSpecErrors } from './format.js';
import type { Algorithm, Policy, ResolvedAlgorithm, SpecError } from '../types.js';
import { documentProblems, envelopeProblem, locateProblem } from './document.js';
import type { FieldProblem } from './schema-errors.js';
import { parseDocuments, scalarSource, type ParsedDocument, type SpecFile } from './yaml-documents.js';

/** Result of reading the Algorithm files of a repo: the valid specs, and every problem found. */
export interface ParsedAlgorithms {
  algorithms: ResolvedAlgorithm[];
  errors: SpecError[];
  /** Per file: the `metadata.name` of every document that has a readable one, valid or not. */
  names: Map<string, string[]>;
}

/**
 * `resources.cpu: 4` or `memory: 1e3` unquoted are YAML numbers; Kubernetes takes quantities as
 * int-or-string, so gpuops keeps the text as written (`1e3` stays `1e3`, not `1000`).
 */
function quantitiesAsText(value: unknown, parsed: ParsedDocument): void {
  const resources = (value as { spec?: { resources?: Record<string, unknown> } }).spec?.resources;
  if (resources === null || typeof resources !== 'object') return;
  for (const key of ['cpu', 'memory']) {
    if (typeof resources[key] === 'number') {
      resources[key] = scalarSource(parsed, ['spec', 'resources', key]) ?? String(resources[key]);
    }
  }
}

/** Fills every default of an algorithm from the policy. */
export function resolveAlgorithm(
  a: Algorithm,
  policy: Policy,
  source: ResolvedAlgorithm['source'],
): ResolvedAlgorithm {
  const p = policy.spec;
  return {
    name: a.metadata.name,
    namespace: a.metadata.namespace ?? p.namespace,
    spec: a.spec,
    scaling: {
      minReplicas: a.spec.scaling?.minReplicas ?? p.scaling.minReplicas,
      maxReplicas: a.spec.scaling?.maxReplicas ?? p.scaling.maxReplicas,
      utilization: {
        min: a.spec.scaling?.utilization?.min ?? p.scaling.utilization.min,
        max: a.spec.scaling?.utilization?.max ?? p.scaling.utilization.max,
      },
    },
    benchmark: {
      args: a.spec.benchmark?.args,
      runs: a.spec.benchmark?.runs ?? p.benchmark.runs,
      timeoutSeconds: a.spec.benchmark?.timeoutSeconds ?? p.benchmark.timeoutSeconds,
    },
    placement: a.spec.placement?.pool ?? 'auto',
    source,
  };
}

/**
 * Rules across fields, checked once defaults are filled: `minReplicas ≤ maxReplicas` and
 * `utilization.min < max` (else every sample would both scale up and down). The problem points at
 * the field the spec sets, and says when the other bound came from the policy.
 */
export function crossFieldProblems(a: Algorithm, r: ResolvedAlgorithm): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const s = a.spec.scaling;
  if (r.scaling.minReplicas > r.scaling.maxReplicas) {
    const own = s?.minReplicas !== undefined;
    const from = (set: boolean) => (set ? '' : ' (policy default)');
    problems.push({
      path: ['spec', 'scaling', own ? 'minReplicas' : 'maxReplicas'],
      at: 'value',
      message: `minReplicas ${r.scaling.minReplicas}${from(own)} is above maxReplicas ${r.scaling.maxReplicas}${from(s?.maxReplicas !== undefined)}`,
    });
  }
  const u = s?.utilization;
  if (r.scaling.utilization.min >= r.scaling.utilization.max) {
    const own = u?.min !== undefined;
    const from = (set: boolean) => (set ? '' : ' (policy default)');
    problems.push({
      path: ['spec', 'scaling', 'utilization', own ? 'min' : 'max'],
      at: 'value',
      message: `utilization min ${r.scaling.utilization.min}%${from(own)} must be below max ${r.scaling.utilization.max}%${from(u?.max !== undefined)}`,
    });
  }
  return problems;
}

/**
 * Parses and validates Algorithm files (pure: the caller reads the disk). Every document of every
 * file counts; a bad document is reported and skipped, the others go on. Two documents with the
 * same `metadata.name` are an error on the later one (in path order) naming both places; the
 * first is kept.
 *
 * @param files  `algorithms/**.yaml` files, paths relative to the repo root
 * @param policy the merged policy, source of defaults
 * @returns the valid algorithms (defaults filled) in path and document order, and every error
 */
export function parseAlgorithms(files: readonly SpecFile[], policy: Policy): ParsedAlgorithms {
  const { algorithm: validate } = validators();
  const algorithms: ResolvedAlgorithm[] = [];
  const errors: SpecError[] = [];
  const seen = new Map<string, { file: string; line: number; column: number }>();
  const names = new Map<string, string[]>();
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const parsed = parseDocuments(file);
    errors.push(...parsed.errors);
    names.set(file.path, parsed.names);
    for (const doc of parsed.documents) {
      const envelope = envelopeProblem(doc.value, 'Algorithm');
      if (envelope) {
        errors.push(locateProblem(doc, envelope));
        continue;
      }
      quantitiesAsText(doc.value, doc);
      const problems = documentProblems(validate, doc.value, doc);
      if (problems.length > 0) {
        errors.push(...problems.map((p) => locateProblem(doc, p)));
        continue;
      }
      const a = doc.value as Algorithm;
      const resolved = resolveAlgorithm(a, policy, { file: file.path, line: doc.start.line });
      const cross = crossFieldProblems(a, resolved);
      if (cross.length > 0) {
        errors.push(...cross.map((p) => locateProblem(doc, p)));
        continue;
      }
      const nameAt = locateProblem(doc, { path: ['metadata', 'name'], at: 'value', message: '' });
      const first = seen.get(a.metadata.name);
      if (first) {
        errors.push({
          ...nameAt,
          message: `duplicate algorithm name "${a.metadata.name}": already defined at ${first.file}:${first.line}:${first.column}; names must be unique in the repo`,
        });
        continue;
      }
      seen.set(a.metadata.name, nameAt);
      algorithms.push(resolved);
    }
  }
  return { algorithms, errors: errors.sort(compareSpecErrors), names };
}
