/**
 * `validate` on `spec.scaling.targets`: `fromBenchmark` located at its value when the policy does
 * not allow it or the algorithm is pinned to a pool (never benchmarked), and its neighbours that
 * pass; the policy's `scaling.fromBenchmark` numbers held to their ranges.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
let allowing: Policy;

const policyText = (block: string) => `apiVersion: gpuops.dev/v1alpha1
kind: Policy
metadata: {name: targets}
spec:
  scaling:
    fromBenchmark: ${block}
`;

beforeAll(async () => {
  defaults = await loadDefaultPolicy();
  const parsed = parsePolicy(defaults, [
    { path: 'policies/targets.yaml', text: policyText('{allowed: true}') },
  ]);
  expect(parsed.errors).toEqual([]);
  allowing = parsed.policy;
});

const spec = (lines: string) => `apiVersion: gpuops.dev/v1alpha1
kind: Algorithm
metadata: {name: llm}
spec:
  image: registry.example.com/llm:1
  resources: {gpus: 1}
${lines}
`;
const errorsOf = (lines: string, p: Policy) =>
  parseAlgorithms([{ path: 'algorithms/llm.yaml', text: spec(lines) }], p).errors.map(
    (e) => `${e.line}:${e.column} ${e.field}: ${e.message}`,
  );

describe('spec.scaling.targets', () => {
  it('fromBenchmark passes where the policy allows it, on an auto algorithm', () => {
    expect(errorsOf('  scaling: {targets: fromBenchmark}', allowing)).toEqual([]);
    expect(errorsOf('  scaling: {targets: fromBenchmark}\n  placement: {pool: auto}', allowing)).toEqual([]);
    expect(errorsOf('  scaling: {targets: spec}', defaults)).toEqual([]);
  });

  it('fromBenchmark under the default policy (not allowed) is refused at its value', () => {
    expect(errorsOf('  scaling:\n    targets: fromBenchmark', defaults)).toEqual([
      '8:14 spec.scaling.targets: targets fromBenchmark is not allowed by the policy (scaling.fromBenchmark.allowed is not true): set min and max in the spec',
    ]);
  });

  it('fromBenchmark on an algorithm pinned to a pool is refused: it is never benchmarked', () => {
    expect(
      errorsOf('  scaling:\n    targets: fromBenchmark\n  placement: {pool: long-task}', allowing),
    ).toEqual([
      '8:14 spec.scaling.targets: targets fromBenchmark needs placement.pool: auto: an algorithm pinned to long-task is never benchmarked',
    ]);
  });

  it('an unknown value is the schema’s error, at the field', () => {
    const errors = errorsOf('  scaling:\n    targets: benchmark', allowing);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^8:14 spec\.scaling\.targets: .*(spec|fromBenchmark)/);
  });
});

describe('policy scaling.fromBenchmark', () => {
  it.each([
    ['{allowed: true, headroom: 0.95}', 'headroom'],
    ['{allowed: true, bandRatio: 1}', 'bandRatio'],
    ['{allowed: true, bandRatio: 0}', 'bandRatio'],
    ['{allowed: yes-please}', 'allowed'],
  ])('%s is refused at %s', (block, field) => {
    const parsed = parsePolicy(defaults, [{ path: 'policies/targets.yaml', text: policyText(block) }]);
    expect(parsed.errors.map((e) => e.field)).toEqual([`spec.scaling.fromBenchmark.${field}`]);
  });
});
