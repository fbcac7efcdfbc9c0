/**
 * A `podSecurity` entry the schema takes but the rule reading it never matches is refused at the
 * entry: otherwise the platform team believes it granted what it did not, and the spec asking for
 * it is refused beside a policy that seems to allow it. Each row goes through `parsePolicy`, and
 * the neighbours that do grant something through `parseAlgorithms` (what `validate` and every pass
 * run).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n  podSecurity:\n';
/** The override `policies/p.yaml` with `field: [entry]` under `spec.podSecurity` (line 6). */
const policyWith = (field: string, entry: string) =>
  parsePolicy(defaults, [{ path: 'policies/p.yaml', text: `${HEAD}    ${field}: ['${entry}']\n` }]);

/** An Algorithm whose pod asks for `ask` (under `spec.template.spec`), checked against `policy`. */
const specErrors = (policy: Policy, ask: string) =>
  parseAlgorithms(
    [
      {
        path: 'algorithms/a.yaml',
        text: `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: a}\nspec:\n  image: r.example.com/a:1\n  resources: {gpus: 1}\n  template:\n    spec:\n${ask}\n`,
      },
    ],
    policy,
  ).errors.map((e) => e.message);

describe('podSecurity entries that could never allow anything', () => {
  it.each([
    ['extendedResources', '*', 'matches no extended resource'],
    ['extendedResources', 'nvidia*', 'matches no extended resource'],
    ['extendedResources', 'mig-1g.10gb', 'matches no extended resource'],
    ['sysctls', 'kernel.msg*', 'sysctls are allowed by name'],
    ['sysctls', '*', 'sysctls are allowed by name'],
    ['volumeTypes', 'hostPath', 'set podSecurity.hostPath: true'],
  ])('%s: [%s] is refused at the entry', (field, entry, why) => {
    const { errors, policy } = policyWith(field, entry);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      file: 'policies/p.yaml',
      line: 6,
      field: `spec.podSecurity.${field}[0]`,
    });
    expect(errors[0]!.message).toContain(why);
    // The document is left out: the defaults stay in force.
    expect(policy.spec.podSecurity).toEqual(defaults.spec.podSecurity);
  });

  const MIG = '      containers:\n        - resources: {limits: {nvidia.com/mig-1g.10gb: 1}}';
  const SYSCTL = '      securityContext: {sysctls: [{name: kernel.msgmax, value: "65536"}]}';
  it.each([
    ['extendedResources', 'nvidia.com/*', MIG],
    ['extendedResources', 'nvidia.com/mig-1g.10gb', MIG],
    ['sysctls', 'kernel.msgmax', SYSCTL],
  ])('%s: [%s] is taken and allows what it names', (field, entry, ask) => {
    const { errors, policy } = policyWith(field, entry);
    expect(errors).toEqual([]);
    expect(specErrors(defaults, ask)).toEqual([
      expect.stringContaining(`podSecurity.${field} does not allow it`),
    ]);
    expect(specErrors(policy, ask)).toEqual([]);
  });

  it('volumeTypes: [nfs] is taken (the neighbour of hostPath)', () => {
    expect(policyWith('volumeTypes', 'nfs').errors).toEqual([]);
  });
});
