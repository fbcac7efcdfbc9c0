import { beforeEach, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeEach(async () => {
  defaults = await loadDefaultPolicy();
});

const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n';
const parse = (rollout: string) =>
  parsePolicy(defaults, [{ path: 'policies/rollout.yaml', text: `${HEAD}  rollout:\n${rollout}` }]);

describe('policy rollout', () => {
  it('ships RollingUpdate with maxSurge 1 and maxUnavailable 0: a rollout never drops below the replicas', () => {
    expect(defaults.spec.rollout).toEqual({ strategy: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0 });
  });

  it.each([
    [
      'maxUnavailable 1 beside the default surge',
      '    maxUnavailable: 1\n',
      { maxSurge: 1, maxUnavailable: 1 },
    ],
    [
      'no surge, one pod down (the old default)',
      '    maxSurge: 0\n    maxUnavailable: 1\n',
      { maxSurge: 0, maxUnavailable: 1 },
    ],
    [
      'Recreate with both 0 (no rolling update to refuse)',
      '    strategy: Recreate\n    maxSurge: 0\n',
      { strategy: 'Recreate' },
    ],
  ])('valid: %s', (_name, text, want) => {
    const out = parse(text);
    expect(out.errors).toEqual([]);
    expect(out.policy.spec.rollout).toMatchObject(want);
  });

  it.each([
    [
      'maxSurge 0 alone (maxUnavailable is 0 by default): located at maxSurge',
      '    maxSurge: 0\n',
      'policies/rollout.yaml:6:15: spec.rollout.maxSurge: maxSurge and maxUnavailable are both 0',
    ],
    [
      'both set to 0: located at maxUnavailable',
      '    maxSurge: 0\n    maxUnavailable: 0\n',
      'policies/rollout.yaml:7:21: spec.rollout.maxUnavailable: maxSurge and maxUnavailable are both 0',
    ],
    [
      'a percentage (whole pods only)',
      '    maxSurge: 25%\n',
      'policies/rollout.yaml:6:15: spec.rollout.maxSurge:',
    ],
    [
      'an unknown strategy',
      '    strategy: BlueGreen\n',
      'policies/rollout.yaml:6:15: spec.rollout.strategy:',
    ],
  ])('an error: %s', (_name, text, want) => {
    const out = parse(text);
    expect(out.errors.map(formatSpecError)).toEqual([expect.stringContaining(want)]);
    expect(out.policy.spec.rollout).toEqual(defaults.spec.rollout); // the bad file is not applied
  });
});
