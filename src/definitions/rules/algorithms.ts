import { validators } from '../schema/compile.js';
import { compareSpecErrors } from './format.js';
import type { Algorithm, Policy, ResolvedAlgorithm, SpecError } from '../types.js';
import { documentProblems, envelopeProblem, locateProblem } from './document.js';
import { boundAt, stringAt, type Bound } from './cross-field.js';
import { kubernetesNameProblems } from './k8s-names.js';
import { listCapProblems } from './list-caps.js';
import { modelCacheProblems } from './model-cache.js';
import { namespaceProblems } from './namespaces.js';
import { boundDefaultNamespace } from './namespace-bindings.js';
import { podAnnotationProblems } from './pod-annotations.js';
import { specEnvProblems } from './pod-accelerators.js';
import { podTemplateProblems } from './pod-template.js';
import { resolveSignal, signalProblems } from './signals.js';
import { benchmarkTargetProblems } from './benchmark-targets.js';
import { specLimitProblems } from './spec-limits.js';
import type { FieldProblem } from './schema-errors.js';
import { ratioBandWarnings } from './spec-warnings.js';
import { parseDocuments, scalarSource, type ParsedDocument, type SpecFile } from './yaml-documents.js';

/** Result of reading the Algorithm files of a repo: the valid specs, and every problem found. */
export interface ParsedAlgorithms {
  algorithms: ResolvedAlgorithm[];
  errors: SpecError[];
  /** Per file: the `metadata.name` of every document that has a readable one, valid or not. */
  names: Map<string, string[]>;
  /** Values of the valid specs that are most likely meant otherwise (`spec-warnings.ts`), located. */
  warnings: SpecError[];
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
  const signal = resolveSignal(a.spec.scaling, policy);
  const service = signal.kind === 'serviceMetric' ? a.spec.scaling?.serviceMetric : undefined;
  return {
    name: a.metadata.name,
    namespace: a.metadata.namespace ?? boundDefaultNamespace(source.file, p.namespacesByPath) ?? p.namespace,
    spec: a.spec,
    scaling: {
      minReplicas: a.spec.scaling?.minReplicas ?? p.scaling.minReplicas,
      maxReplicas: a.spec.scaling?.maxReplicas ?? p.scaling.maxReplicas,
      // The band every rule reads: percent for a GPU signal, the metric's own unit for a service metric.
      utilization: service
        ? { min: service.min, max: service.max }
        : {
            min: a.spec.scaling?.utilization?.min ?? p.scaling.utilization.min,
            max: a.spec.scaling?.utilization?.max ?? p.scaling.utilization.max,
          },
    },
    ...(signal.kind === 'gpuUtil' ? {} : { signal }),
    benchmark: {
      args: a.spec.benchmark?.args,
      runs: a.spec.benchmark?.runs ?? p.benchmark.runs,
      timeoutSeconds: a.spec.benchmark?.timeoutSeconds ?? p.benchmark.timeoutSeconds,
      ...queue(a.spec.benchmark?.queueName ?? p.benchmark.queueName),
    },
    placement: a.spec.placement?.pool ?? 'auto',
    ...(a.metadata.annotations ? { annotations: a.metadata.annotations } : {}),
    source,
  };
}

/**
 * Rules across fields: `minReplicas ≤ maxReplicas` (equal is a fixed size, allowed) and
 * `utilization.min < max` (equal would both scale up and down on the same sample, so it is
 * rejected). A bound the spec leaves out comes from the policy. They run beside the schema (all
 * errors of a file in one round): a bound whose own value the schema rejects is left out of them
 * (see {@link boundAt}). The problem points at the field the spec sets, and says when the other
 * bound came from the policy.
 *
 * @param value  the Algorithm document as parsed
 * @param policy the merged policy, source of the bounds the spec leaves out
 * @param schema the schema problems already found in `value`
 */
export function crossFieldProblems(
  value: unknown,
  policy: Policy,
  schema: readonly FieldProblem[] = [],
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const p = policy.spec.scaling;
  const from = (b: Bound) => (b.own ? '' : ' (policy default)');
  const at = (...path: string[]) => ['spec', 'scaling', ...path];
  const minR = boundAt(value, at('minReplicas'), schema, p.minReplicas);
  const maxR = boundAt(value, at('maxReplicas'), schema, p.maxReplicas);
  if (minR && maxR && (minR.own || maxR.own) && minR.value > maxR.value) {
    problems.push({
      path: at(minR.own ? 'minReplicas' : 'maxReplicas'),
      at: 'value',
      message: `minReplicas ${minR.value}${from(minR)} is above maxReplicas ${maxR.value}${from(maxR)}`,
    });
  }
  const minU = boundAt(value, at('utilization', 'min'), schema, p.utilization.min);
  const maxU = boundAt(value, at('utilization', 'max'), schema, p.utilization.max);
  if (minU && maxU && (minU.own || maxU.own) && minU.value >= maxU.value) {
    problems.push({
      path: at('utilization', minU.own ? 'min' : 'max'),
      at: 'value',
      message: `utilization min ${minU.value}%${from(minU)} must be below max ${maxU.value}%${from(maxU)}`,
    });
  }
  return problems;
}

/** The error of an Algorithm file with no document (empty, or only comments). */
export const EMPTY_FILE =
  'no Algorithm in this file (it is empty or only comments): delete the file to remove an algorithm';

/**
 * Parses and validates Algorithm files (pure: the caller reads the disk). Every document of every
 * file counts; a bad document is reported and skipped, the others go on; a file with no document
 * at all is an error at 1:1 ({@link EMPTY_FILE}). Two documents with the
 * same `metadata.name` are an error on the later one (in path order) naming both places; the
 * first holds the name even when it has errors of its own, so every error of a round is reported
 * at once and fixing the first never silently swaps which copy runs.
 *
 * @param files  `algorithms/**.yaml` files, paths relative to the repo root
 * @param policy the merged policy, source of defaults
 * @returns the valid algorithms (defaults filled) in path and document order, every error, and
 *   the valid specs' warnings (`spec-warnings.ts`: a utilisation band written as a ratio)
 */
export function parseAlgorithms(files: readonly SpecFile[], policy: Policy): ParsedAlgorithms {
  const { algorithm: validate } = validators();
  const algorithms: ResolvedAlgorithm[] = [];
  const errors: SpecError[] = [];
  const seen = new Map<string, { file: string; line: number; column: number }>();
  const names = new Map<string, string[]>();
  const warnings: SpecError[] = [];
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const parsed = parseDocuments(file);
    errors.push(...parsed.errors);
    if (parsed.documents.length === 0 && parsed.errors.length === 0) {
      // kubectl refuses such a file ("no objects passed to apply"); here it would pass unnoticed.
      errors.push({ file: file.path, line: 1, column: 1, field: '', message: EMPTY_FILE });
    }
    names.set(file.path, parsed.names);
    for (const doc of parsed.documents) {
      const envelope = envelopeProblem(doc.value, 'Algorithm');
      if (envelope) {
        errors.push(locateProblem(doc, envelope));
        continue;
      }
      // A list past its cap is refused before anything else runs on the document (list-caps.ts).
      const oversized = listCapProblems(doc.value);
      if (oversized.length > 0) {
        errors.push(...oversized.map((p) => locateProblem(doc, p)));
        // It still holds its name, so a later copy is the duplicate (as for any invalid document).
        const held = stringAt(doc.value, ['metadata', 'name'], []);
        if (held !== undefined && !seen.has(held))
          seen.set(held, locateProblem(doc, { path: ['metadata', 'name'], at: 'value', message: '' }));
        continue;
      }
      quantitiesAsText(doc.value, doc);
      const schema = documentProblems(validate, doc.value, doc);
      const problems = [
        ...schema,
        ...crossFieldProblems(doc.value, policy, schema),
        ...signalProblems(doc.value, policy, schema),
        ...benchmarkTargetProblems(doc.value, policy, schema),
        ...specLimitProblems(doc.value, policy.spec.limits, schema),
        ...kubernetesNameProblems(doc.value),
        ...namespaceProblems(doc.value, policy.spec, schema, file.path),
        ...podAnnotationProblems(doc.value, policy.spec),
        ...podTemplateProblems(doc.value, policy, schema),
        ...specEnvProblems(doc.value),
        ...modelCacheProblems(doc.value, schema),
      ];
      // A usable name takes part in the duplicate rule even when the document has other errors,
      // so a duplicate is reported in the same round (and fixing the first copy moves nothing).
      const name = stringAt(doc.value, ['metadata', 'name'], schema);
      const nameAt = locateProblem(doc, { path: ['metadata', 'name'], at: 'value', message: '' });
      const first = name === undefined ? undefined : seen.get(name);
      if (first) {
        problems.push({
          path: ['metadata', 'name'],
          at: 'value',
          message: `duplicate algorithm name "${name}": already defined at ${first.file}:${first.line}:${first.column}; names must be unique in the repo`,
        });
      } else if (name !== undefined) seen.set(name, nameAt);
      if (problems.length > 0) {
        errors.push(...problems.map((p) => locateProblem(doc, p)));
        continue;
      }
      const a = doc.value as Algorithm;
      algorithms.push(resolveAlgorithm(a, policy, { file: file.path, line: doc.start.line }));
      // spec.scaling.utilization is percent whatever the signal (a service metric has its own band).
      const band = { ...policy.spec.scaling.utilization, ...a.spec.scaling?.utilization };
      const at = ['spec', 'scaling', 'utilization'];
      warnings.push(...ratioBandWarnings(doc.value, at, band).map((p) => locateProblem(doc, p)));
    }
  }
  return {
    algorithms,
    errors: errors.sort(compareSpecErrors),
    names,
    warnings: warnings.sort(compareSpecErrors),
  };
}

/** `{ queueName }`, or `{}` when no queue is named. */
function queue(queueName: string | undefined): { queueName?: string } {
  return queueName ? { queueName } : {};
}
