/**
 * `spec.scaling.targets: fromBenchmark` (pure): gpuops may propose the band bounds a spec leaves
 * out from what its benchmark recorded of its signal (`benchmark/band-proposal.ts`). The policy
 * allows it (`scaling.fromBenchmark.allowed`), and only an algorithm that is benchmarked
 * (`placement.pool: auto`) has a benchmark to propose from.
 */
import type { Policy } from '../types.js';
import { stringAt } from './cross-field.js';
import type { FieldProblem } from './schema-errors.js';

/** The numbers of the rule, the policy's or else these: 15 % headroom, min at half of max. */
export const FROM_BENCHMARK_DEFAULTS = { allowed: false, headroom: 0.15, bandRatio: 0.5 } as const;

/** The policy's `scaling.fromBenchmark` (default.yaml sets it), else {@link FROM_BENCHMARK_DEFAULTS}. */
export function fromBenchmarkRule(policy: Policy): { allowed: boolean; headroom: number; bandRatio: number } {
  return policy.spec.scaling.fromBenchmark ?? FROM_BENCHMARK_DEFAULTS;
}

/**
 * The problems of `spec.scaling.targets` (a value the schema refused is left alone): `fromBenchmark`
 * when the policy does not allow it, or on an algorithm pinned to a pool (never benchmarked).
 */
export function benchmarkTargetProblems(
  value: unknown,
  policy: Policy,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const path = ['spec', 'scaling', 'targets'];
  if (stringAt(value, path, schema) !== 'fromBenchmark') return [];
  const problems: FieldProblem[] = [];
  if (!fromBenchmarkRule(policy).allowed) {
    problems.push({
      path,
      at: 'value',
      message:
        'targets fromBenchmark is not allowed by the policy (scaling.fromBenchmark.allowed is not true): set min and max in the spec',
    });
  }
  const pool = stringAt(value, ['spec', 'placement', 'pool'], schema);
  if (pool !== undefined && pool !== 'auto') {
    problems.push({
      path,
      at: 'value',
      message: `targets fromBenchmark needs placement.pool: auto: an algorithm pinned to ${pool} is never benchmarked`,
    });
  }
  return problems;
}
