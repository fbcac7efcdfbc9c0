/**
 * What an algorithm is scaled on (pure): the spec's `scaling.signal` against the policy's default
 * and allow-list, and a service metric against the templates the policy allows. A spec never
 * writes PromQL: it names a template of the policy (`scaling.serviceMetrics[].name`), so a team
 * cannot read another team's series through a query of its own.
 */
import type { Policy, ResolvedSignal, ServiceMetricPolicy, SignalKind } from '../types.js';
import { SIGNAL_KINDS } from '../types.js';
import { boundAt, stringAt } from './cross-field.js';
import type { FieldProblem } from './schema-errors.js';
import { DCGM } from '../../util/index.js';

/** The unit the GPU signals are read in. */
export const PERCENT = '%';

/** Placeholders a service metric template may hold; `$namespace` is required. */
const PLACEHOLDERS = ['$namespace', '$window'];

/** The policy's default signal: `scaling.signal`, else the one `scaling.metric` implies. */
export function defaultSignal(policy: Policy): SignalKind {
  const s = policy.spec.scaling;
  return s.signal ?? (s.metric === DCGM.GR_ENGINE_ACTIVE ? 'gpuEngineActive' : 'gpuUtil');
}

/** The signals a spec may choose: `scaling.allowedSignals`, else every GPU signal (+ serviceMetric when any is listed). */
export function allowedSignals(policy: Policy): readonly SignalKind[] {
  const s = policy.spec.scaling;
  if (s.allowedSignals) return s.allowedSignals;
  return SIGNAL_KINDS.filter((k) => k !== 'serviceMetric' || (s.serviceMetrics ?? []).length > 0);
}

/**
 * The resolved signal of a spec (valid: `signalProblems` found nothing): its kind, unit and, for a
 * service metric, the policy's template.
 */
export function resolveSignal(
  scaling: { signal?: SignalKind; serviceMetric?: { name: string } } | undefined,
  policy: Policy,
): ResolvedSignal {
  const kind = scaling?.signal ?? defaultSignal(policy);
  if (kind !== 'serviceMetric') return { kind, unit: PERCENT };
  const entry = (policy.spec.scaling.serviceMetrics ?? []).find(
    (m) => m.name === scaling?.serviceMetric?.name,
  );
  return entry ? { kind, unit: entry.unit, serviceMetric: entry } : { kind, unit: '' };
}

/**
 * The problems of an Algorithm's signal (beside the schema; a field the schema refused is left
 * alone): a signal the policy does not allow; `serviceMetric` without its `serviceMetric` block, or
 * the block without that signal; a name no template of the policy has; a `unit` other than the
 * template's (a band in requests against a metric in seconds); `min` not below `max`.
 */
export function signalProblems(
  value: unknown,
  policy: Policy,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const at = (...path: string[]) => ['spec', 'scaling', ...path];
  const problems: FieldProblem[] = [];
  const own = stringAt(value, at('signal'), schema) as SignalKind | undefined;
  const signal = own ?? defaultSignal(policy);
  const allowed = allowedSignals(policy);
  if (own !== undefined && !allowed.includes(own)) {
    problems.push({
      path: at('signal'),
      at: 'value',
      message: `signal ${own} is not allowed by the policy (scaling.allowedSignals: ${allowed.join(', ')})`,
    });
  }
  const name = stringAt(value, at('serviceMetric', 'name'), schema);
  const hasBlock = name !== undefined || valueAt(value, at('serviceMetric')) !== undefined;
  if (signal === 'serviceMetric' && !hasBlock) {
    problems.push({
      path: own ? at('signal') : ['spec'],
      at: own ? 'value' : 'key',
      message: 'signal serviceMetric needs spec.scaling.serviceMetric: {name, min, max}',
    });
  }
  if (signal !== 'serviceMetric' && hasBlock) {
    problems.push({
      path: at('serviceMetric'),
      at: 'key',
      message: `serviceMetric is read only with signal: serviceMetric (this algorithm scales on ${signal})`,
    });
  }
  if (name === undefined || signal !== 'serviceMetric') return problems;
  const templates = policy.spec.scaling.serviceMetrics ?? [];
  const entry = templates.find((m) => m.name === name);
  if (!entry) {
    problems.push({
      path: at('serviceMetric', 'name'),
      at: 'value',
      message: `service metric ${JSON.stringify(name)} is not one the policy allows (scaling.serviceMetrics: ${templates.map((m) => m.name).join(', ') || 'none'})`,
    });
    return problems;
  }
  const unit = stringAt(value, at('serviceMetric', 'unit'), schema);
  if (unit !== undefined && unit !== entry.unit) {
    problems.push({
      path: at('serviceMetric', 'unit'),
      at: 'value',
      message: `unit ${JSON.stringify(unit)} does not match service metric ${name}, which is in ${JSON.stringify(entry.unit)}`,
    });
  }
  const min = boundAt(value, at('serviceMetric', 'min'), schema);
  const max = boundAt(value, at('serviceMetric', 'max'), schema);
  if (min && max && min.value >= max.value) {
    problems.push({
      path: at('serviceMetric', 'min'),
      at: 'value',
      message: `serviceMetric min ${min.value} must be below max ${max.value} (${entry.unit})`,
    });
  }
  return problems;
}

/**
 * The problems of a policy's signals: each template holds `$namespace` (a query over every
 * namespace would let one team's pods read as another's) and no other `$` placeholder than
 * `$namespace` and `$window`; names are unique; the default signal is allowed.
 */
export function policySignalProblems(p: Policy['spec']['scaling'] | undefined): FieldProblem[] {
  if (!p) return [];
  const at = (...path: (string | number)[]) => ['spec', 'scaling', ...path];
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  (p.serviceMetrics ?? []).forEach((m: ServiceMetricPolicy, i) => {
    if (typeof m?.query !== 'string' || typeof m.name !== 'string') return;
    if (seen.has(m.name)) {
      problems.push({
        path: at('serviceMetrics', i, 'name'),
        at: 'value',
        message: `service metric ${m.name} is listed twice`,
      });
    }
    seen.add(m.name);
    const unknown = (m.query.match(/\$[a-zA-Z_]+/g) ?? []).filter((v) => !PLACEHOLDERS.includes(v));
    if (!m.query.includes('$namespace') || unknown.length > 0) {
      problems.push({
        path: at('serviceMetrics', i, 'query'),
        at: 'value',
        message: unknown.length
          ? `query of ${m.name}: unknown placeholder ${unknown.join(', ')} (known: ${PLACEHOLDERS.join(', ')})`
          : `query of ${m.name} must select the algorithm's namespace with $namespace (e.g. {namespace="$namespace"})`,
      });
    }
  });
  const allowed = p.allowedSignals;
  const fallback = p.signal ?? (p.metric === DCGM.GR_ENGINE_ACTIVE ? 'gpuEngineActive' : 'gpuUtil');
  if (allowed && !allowed.includes(fallback)) {
    problems.push({
      path: at(p.signal ? 'signal' : 'allowedSignals'),
      at: 'value',
      message: `the default signal ${fallback} is not in allowedSignals (${allowed.join(', ')})`,
    });
  }
  if (p.signal === 'serviceMetric') {
    problems.push({
      path: at('signal'),
      at: 'value',
      message: 'serviceMetric cannot be the default signal: each spec names its metric and band',
    });
  }
  return problems;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const seg of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}
