import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import { POLICY_LIMITS } from '../../src/definitions/schema/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n';
/** The errors of one override file `policies/p.yaml` with `body` under `spec:`. */
const errorsOf = (body: string) =>
  parsePolicy(defaults, [{ path: 'policies/p.yaml', text: `${HEAD}${body}\n` }]).errors;

describe('pool label and taint keys stay out of reserved prefixes (issue 29 item 5)', () => {
  it.each([
    ['kubernetes.io/hostname', 'Kubernetes reserves'],
    ['node-role.kubernetes.io/gpu', 'Kubernetes reserves'],
    ['node.kubernetes.io/pool', 'Kubernetes reserves'],
    ['k8s.io/pool', 'Kubernetes reserves'],
    ['feature.node.kubernetes.io/pool', 'Kubernetes reserves'],
    ['nvidia.com/gpu.product', 'another node controller owns'],
    ['karpenter.sh/nodepool', 'another node controller owns'],
  ])('%s is refused at the value, with file and line', (key, why) => {
    const errors = errorsOf(
      `  pools:\n    labelKey: ${key}\n    taint: {enabled: true, effect: NoExecute}\n  scaling: {mode: patch}`,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'policies/p.yaml', line: 6, field: 'spec.pools.labelKey' });
    expect(errors[0]!.message).toContain(why);
  });

  it.each([
    'gpuops.dev/pool',
    'example.com/gpu-pool',
    'pool',
    'mykubernetes.io/pool',
    'nvidia.com.example.org/x',
  ])('%s is accepted (the boundary is the prefix and its subdomains, not a substring)', (key) => {
    expect(errorsOf(`  pools:\n    labelKey: ${key}`)).toEqual([]);
  });
});

describe('every number in the policy is bounded (issue 29 item 5)', () => {
  it.each([
    // The caps of what a spec may ask (limits) go up with the defaults they bound.
    [
      'scaling.maxReplicas',
      '  scaling: {maxReplicas: %d}\n  limits: {replicas: 10000}',
      POLICY_LIMITS.replicas,
    ],
    [
      'scaling.minReplicas',
      '  scaling: {minReplicas: %d, maxReplicas: 10000}\n  limits: {replicas: 10000}',
      POLICY_LIMITS.replicas,
    ],
    ['scaling.step', '  scaling: {step: %d}', POLICY_LIMITS.replicas],
    ['scaling.windowSeconds', '  scaling: {windowSeconds: %d}', POLICY_LIMITS.seconds],
    [
      'scaling.scaleDown.cooldownSeconds',
      '  scaling: {scaleDown: {cooldownSeconds: %d}}',
      POLICY_LIMITS.seconds,
    ],
    ['pools.returnAfterSeconds', '  pools: {returnAfterSeconds: %d}', POLICY_LIMITS.seconds],
    ['pools.test.size', '  pools: {test: {size: %d}}', POLICY_LIMITS.replicas],
    [
      'benchmark.timeoutSeconds',
      '  benchmark: {timeoutSeconds: %d}\n  limits: {benchmarkTimeoutSeconds: 604800}',
      POLICY_LIMITS.runSeconds,
    ],
    [
      'benchmark.ttlSecondsAfterFinished',
      '  benchmark: {ttlSecondsAfterFinished: %d}',
      POLICY_LIMITS.seconds,
    ],
    ['benchmark.backoffLimit', '  benchmark: {backoffLimit: %d}', POLICY_LIMITS.backoffLimit],
    [
      'placement.longTaskThresholdSeconds',
      '  placement: {longTaskThresholdSeconds: %d}',
      POLICY_LIMITS.runSeconds,
    ],
    ['pullRequests.maxOpen', '  pullRequests: {maxOpen: %d}', POLICY_LIMITS.pullRequests],
  ])('%s: the limit passes, one above is an error naming the field', (field, body, limit) => {
    expect(errorsOf(body.replace('%d', String(limit)))).toEqual([]);
    const errors = errorsOf(body.replace('%d', String(limit + 1)));
    expect(errors.map((e) => e.field)).toEqual([`spec.${field}`]);
    expect(errors[0]!.line).toBe(5);
  });

  it('1e300 replicas and int64 overflow seconds are errors, not accepted numbers', () => {
    expect(errorsOf('  scaling: {maxReplicas: 1e300}').map((e) => e.field)).toEqual([
      'spec.scaling.maxReplicas',
    ]);
    expect(errorsOf('  benchmark: {timeoutSeconds: 9223372036854775808}').map((e) => e.field)).toEqual([
      'spec.benchmark.timeoutSeconds',
    ]);
  });
});
