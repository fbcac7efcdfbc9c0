/**
 * The policy's replica and benchmark numbers were only defaults: a spec set `minReplicas: 500` or
 * 100 benchmark runs of 30 days. `spec.limits` caps what a spec may ask; each capped field has a
 * row at the cap (allowed) and one above it (an error at the field, file:line:column), and the
 * policy's own defaults must stay within its caps.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** An Algorithm with `line` as line 6 (under `spec:`). */
const spec = (line: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: a}',
    'spec:',
    '  image: "x:1"',
    line,
    ...(line.includes('resources') ? [] : ['  resources: {gpus: 1}']),
    '',
  ].join('\n');

const errorsOf = (text: string, p = defaults) =>
  parseAlgorithms([{ path: 'algorithms/a.yaml', text }], p).errors.map(formatSpecError);

describe('limits: what one spec may ask for', () => {
  it('the shipped caps: 100 replicas, 8 GPUs a pod, 10 benchmark runs of at most 6 hours', () => {
    expect(defaults.spec.limits).toEqual({
      replicas: 100,
      gpusPerPod: 8,
      benchmarkRuns: 10,
      benchmarkTimeoutSeconds: 21_600,
    });
  });

  it.each([
    [
      '  scaling: {minReplicas: %d, maxReplicas: 100}',
      100,
      'spec.scaling.minReplicas',
      26,
      'replicas',
      'replicas',
    ],
    ['  scaling: {maxReplicas: %d}', 100, 'spec.scaling.maxReplicas', 26, 'replicas', 'replicas'],
    ['  resources: {gpus: %d}', 8, 'spec.resources.gpus', 21, 'gpusPerPod', 'GPUs'],
    ['  benchmark: {runs: %d}', 10, 'spec.benchmark.runs', 21, 'benchmarkRuns', 'runs'],
    [
      '  benchmark: {timeoutSeconds: %d}',
      21_600,
      'spec.benchmark.timeoutSeconds',
      31,
      'benchmarkTimeoutSeconds',
      's',
    ],
  ])('%s: the cap passes, one above is an error at the field', (line, cap, field, column, knob, unit) => {
    expect(errorsOf(spec(line.replace('%d', String(cap))))).toEqual([]);
    // (minReplicas 101 is also above maxReplicas 100: that rule's own error comes beside.)
    expect(errorsOf(spec(line.replace('%d', String(cap + 1))))).toContain(
      `algorithms/a.yaml:6:${column}: ${field}: ${cap + 1} ${unit} is above the policy's limits.${knob} (${cap} ${unit}); the platform team raises the cap`,
    );
  });

  it("the issue's inputs: minReplicas 500, and 100 runs of 30 days, are refused", () => {
    expect(errorsOf(spec('  scaling: {minReplicas: 500, maxReplicas: 500}'))).toHaveLength(2);
    expect(errorsOf(spec('  benchmark: {runs: 100, timeoutSeconds: 2592000}'))).toHaveLength(2);
  });

  it('a policy that raises a cap lets the spec through', () => {
    const p = structuredClone(defaults);
    p.spec.limits.replicas = 500;
    expect(errorsOf(spec('  scaling: {minReplicas: 500, maxReplicas: 500}'), p)).toEqual([]);
  });
});

describe("limits: the policy's defaults stay within its caps", () => {
  const policyErrors = (body: string) =>
    parsePolicy(defaults, [
      {
        path: 'policies/p.yaml',
        text: `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec:\n${body}\n`,
      },
    ]).errors.map(formatSpecError);

  it.each([
    [
      '  scaling: {maxReplicas: 101}',
      'policies/p.yaml:5:26: spec.scaling.maxReplicas: scaling.maxReplicas 101 is above limits.replicas 100',
    ],
    [
      '  limits: {replicas: 7}',
      'policies/p.yaml:5:22: spec.limits.replicas: scaling.maxReplicas 8 is above limits.replicas 7',
    ],
    [
      '  benchmark: {runs: 11}',
      'policies/p.yaml:5:21: spec.benchmark.runs: benchmark.runs 11 is above limits.benchmarkRuns 10',
    ],
    [
      '  limits: {benchmarkTimeoutSeconds: 1799}',
      'policies/p.yaml:5:37: spec.limits.benchmarkTimeoutSeconds: benchmark.timeoutSeconds 1800 is above limits.benchmarkTimeoutSeconds 1799',
    ],
  ])('%s is an error', (body, message) => {
    expect(policyErrors(body)).toEqual([
      expect.stringMatching(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)),
    ]);
  });

  it.each([
    '  scaling: {maxReplicas: 100}',
    '  limits: {replicas: 8}',
    '  limits: {benchmarkTimeoutSeconds: 1800}',
  ])('%s (at the cap) is valid', (body) => {
    expect(policyErrors(body)).toEqual([]);
  });
});
