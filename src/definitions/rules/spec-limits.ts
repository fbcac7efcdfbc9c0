/**
 * The caps a policy puts on what one spec may ask for (`spec.limits`): the policy's replica and
 * benchmark numbers are only defaults, so without a cap a spec could set `minReplicas: 500` (500
 * replicas held whatever the load, each with its GPUs) or 100 benchmark runs of 30 days on the
 * shared test nodes. Pure.
 *
 * | spec field | cap |
 * |---|---|
 * | `spec.scaling.minReplicas`, `spec.scaling.maxReplicas` | `limits.replicas` |
 * | `spec.resources.gpus` | `limits.gpusPerPod` |
 * | `spec.benchmark.runs` | `limits.benchmarkRuns` |
 * | `spec.benchmark.timeoutSeconds` | `limits.benchmarkTimeoutSeconds` |
 *
 * A value at the cap is allowed. The policy's own defaults for the same fields must lie within
 * the caps too ({@link policyLimitProblems}), else a spec that sets nothing would get more than
 * any spec may ask for.
 */
import type { SpecLimits } from '../types.js';
import { boundAt } from './cross-field.js';
import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/** Each capped Algorithm field, the cap that bounds it, and the policy default of the same field. */
const CAPPED: { spec: PathSegment[]; cap: keyof SpecLimits; policy: PathSegment[]; unit: string }[] = [
  {
    spec: ['spec', 'scaling', 'minReplicas'],
    cap: 'replicas',
    policy: ['spec', 'scaling', 'minReplicas'],
    unit: 'replicas',
  },
  {
    spec: ['spec', 'scaling', 'maxReplicas'],
    cap: 'replicas',
    policy: ['spec', 'scaling', 'maxReplicas'],
    unit: 'replicas',
  },
  { spec: ['spec', 'resources', 'gpus'], cap: 'gpusPerPod', policy: [], unit: 'GPUs' },
  {
    spec: ['spec', 'benchmark', 'runs'],
    cap: 'benchmarkRuns',
    policy: ['spec', 'benchmark', 'runs'],
    unit: 'runs',
  },
  {
    spec: ['spec', 'benchmark', 'timeoutSeconds'],
    cap: 'benchmarkTimeoutSeconds',
    policy: ['spec', 'benchmark', 'timeoutSeconds'],
    unit: 's',
  },
];

/**
 * Every field of an Algorithm document above its cap, located at the value. A field the schema
 * already refuses (not a whole number, below 1) is left to the schema.
 * @param value  the Algorithm document as parsed
 * @param limits the merged policy's `spec.limits`
 * @param schema the schema problems already found in `value`
 */
export function specLimitProblems(
  value: unknown,
  limits: SpecLimits,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const c of CAPPED) {
    const v = boundAt(value, c.spec, schema);
    if (!v || v.value <= limits[c.cap]) continue;
    out.push({
      path: c.spec,
      at: 'value',
      message: `${v.value} ${c.unit} is above the policy's limits.${c.cap} (${limits[c.cap]} ${c.unit}); the platform team raises the cap`,
    });
  }
  return out;
}

/**
 * The policy's own defaults above its caps, on the merged policy `p` (possibly invalid), located at
 * the default when `override` (the document being applied) sets it, else at the cap.
 * @param schema the schema problems already found in `p`
 */
export function policyLimitProblems(
  p: unknown,
  override: unknown,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const c of CAPPED) {
    if (c.policy.length === 0) continue;
    const capPath = ['spec', 'limits', c.cap];
    const value = boundAt(p, c.policy, schema);
    const cap = boundAt(p, capPath, schema);
    if (!value || !cap || value.value <= cap.value) continue;
    out.push({
      path: boundAt(override, c.policy, []) ? c.policy : capPath,
      at: 'value',
      message: `${c.policy.slice(1).join('.')} ${value.value} is above limits.${c.cap} ${cap.value}: a spec that sets nothing would get more than any spec may ask for`,
    });
  }
  return out;
}
