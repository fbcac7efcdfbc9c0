/**
 * Issue 29 item 1: annotations that reach pods pass the policy's `allowedPodAnnotations`. By
 * default kube2iam's `iam.amazonaws.com/role` and an AppArmor override are refused, at the key;
 * a team's own unprefixed tags, Prometheus scrape hints and the simulated cluster's run time pass.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { annotationAllowed, isAnnotationPattern } from '../../src/definitions/rules/pod-annotations.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** An Algorithm with `key: "v"` in `metadata.annotations` (line 5) or in the template's (line 10). */
const spec = (where: 'metadata' | 'template', key: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    '  name: a',
    ...(where === 'metadata' ? [`  annotations: {${key}: "v"}`] : []),
    'spec:',
    '  image: x:1',
    '  resources: {gpus: 1}',
    ...(where === 'template' ? ['  template:', '    metadata:', `      annotations: {${key}: "v"}`] : []),
    '',
  ].join('\n');

const errorsOf = (text: string, allowed?: string[]) => {
  const p = structuredClone(defaults);
  if (allowed) p.spec.allowedPodAnnotations = allowed;
  return parseAlgorithms([{ path: 'algorithms/a.yaml', text }], p).errors.map(formatSpecError);
};

describe('annotations that reach pods pass allowedPodAnnotations', () => {
  it.each([
    [
      'metadata',
      'iam.amazonaws.com/role',
      'algorithms/a.yaml:5:17: metadata.annotations.iam.amazonaws.com/role',
    ],
    [
      'template',
      'container.apparmor.security.beta.kubernetes.io/triton',
      'algorithms/a.yaml:10:21: spec.template.metadata.annotations.container.apparmor.security.beta.kubernetes.io/triton',
    ],
    ['template', 'seccomp.security.alpha.kubernetes.io/pod', 'spec.template.metadata.annotations.seccomp'],
    ['metadata', 'sidecar.istio.io/inject', 'metadata.annotations.sidecar.istio.io/inject'],
  ] as const)('%s %s is refused by default, at the key', (where, key, at) => {
    const errors = errorsOf(spec(where, key));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(at);
    expect(errors[0]).toContain(
      `annotation "${key}" is not in the policy's allowedPodAnnotations (*, prometheus.io/*, sim.gpuops.dev/*)`,
    );
  });

  it.each([
    ['metadata', 'cost-centre'],
    ['template', 'prometheus.io/scrape'],
    ['metadata', 'sim.gpuops.dev/run-seconds'],
  ] as const)('the neighbour %s %s passes by default', (where, key) => {
    expect(errorsOf(spec(where, key))).toEqual([]);
  });

  it('the platform decides: listing a key lets it through, and only it', () => {
    const allowed = ['iam.amazonaws.com/role'];
    expect(errorsOf(spec('metadata', 'iam.amazonaws.com/role'), allowed)).toEqual([]);
    expect(errorsOf(spec('metadata', 'cost-centre'), allowed)).toHaveLength(1);
    expect(errorsOf(spec('metadata', 'cost-centre'), [])[0]).toContain('(none)');
  });
});

describe('annotation patterns', () => {
  it.each([
    ['*', 'team', true],
    ['*', 'example.com/team', false],
    ['prometheus.io/*', 'prometheus.io/port', true],
    ['prometheus.io/*', 'prometheus.io', false],
    ['prometheus.io/*', 'xprometheus.io/port', false],
    ['*.example.com/*', 'ml.example.com/owner', true],
    ['*.example.com/*', 'example.com/owner', false],
    ['a.b/c', 'aXb/c', false],
  ])('%s matches %s: %s', (pattern, key, want) => {
    expect(annotationAllowed(pattern, key)).toBe(want);
  });

  it.each([
    ['*', true],
    ['prometheus.io/*', true],
    ['iam.amazonaws.com/role', true],
    ['a/b/c', false],
    ['Bad_Prefix/x', false],
  ])('%s is a pattern: %s', (p, want) => {
    expect(isAnnotationPattern(p)).toBe(want);
  });

  it('a malformed entry in a policy is a located error', () => {
    const text =
      'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: p}\nspec:\n  allowedPodAnnotations: ["a/b/c"]\n';
    const errors = parsePolicy(defaults, [{ path: 'policies/p.yaml', text }]).errors.map(formatSpecError);
    expect(errors).toEqual([expect.stringContaining('policies/p.yaml:5:27: spec.allowedPodAnnotations[0]:')]);
  });
});
