/**
 * `pools.taint.enabled` needs `scaling.mode: patch`: in pull-request mode the Node files carry no
 * taints and nothing else sets the pool taint, so a policy document asking for it there is refused
 * with file, line and field (the document that sets the field), and left out; the others apply.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** A Policy document named after its file (two documents of one name: the later is refused). */
const file = (path: string, body: string) => ({
  path,
  text: `apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: ${path.replace(/^.*\/|\.yaml$/g, '')}}\nspec:\n${body}\n`,
});

describe('the pool taint in pull-request mode is refused (nothing would set it)', () => {
  it.each([
    [
      'the taint on, the default mode (pull-request)',
      '  pools:\n    taint: {enabled: true}',
      'spec.pools.taint.enabled',
      6,
    ],
    [
      'the taint on, pull-request said',
      '  scaling: {mode: pull-request}\n  pools:\n    taint: {enabled: true, effect: NoExecute}',
      'spec.pools.taint.enabled',
      7,
    ],
    [
      'the taint on and patch mode off in one document',
      '  pools:\n    taint: {enabled: true}\n  scaling:\n    mode: pull-request',
      'spec.pools.taint.enabled',
      6,
    ],
  ])('%s: refused', (_name, body, field, line) => {
    const { policy, errors } = parsePolicy(defaults, [file('policies/p.yaml', body)]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'policies/p.yaml', line, field });
    expect(errors[0]!.message).toContain('pools.taint.enabled needs scaling.mode: patch');
    expect(policy.spec.pools.taint.enabled).toBe(false);
  });

  it.each([
    ['the taint on in patch mode', '  scaling: {mode: patch}\n  pools:\n    taint: {enabled: true}', true],
    [
      'the taint off in pull-request mode',
      '  scaling: {mode: pull-request}\n  pools:\n    taint: {enabled: false}',
      false,
    ],
    ['pull-request mode, the taint left at its default (off)', '  scaling: {mode: pull-request}', false],
  ])('%s: accepted', (_name, body, enabled) => {
    const { policy, errors } = parsePolicy(defaults, [file('policies/p.yaml', body)]);
    expect(errors).toEqual([]);
    expect(policy.spec.pools.taint.enabled).toBe(enabled);
  });

  it('a later file that turns patch mode off is refused at scaling.mode; the earlier file still applies', () => {
    const { policy, errors } = parsePolicy(defaults, [
      file('policies/a.yaml', '  scaling: {mode: patch}\n  pools:\n    taint: {enabled: true}'),
      file('policies/b.yaml', '  scaling:\n    mode: pull-request\n    utilization: {max: 90}'),
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'policies/b.yaml', line: 6, field: 'spec.scaling.mode' });
    expect([policy.spec.scaling.mode, policy.spec.pools.taint.enabled]).toEqual(['patch', true]);
    expect(policy.spec.scaling.utilization.max).not.toBe(90);
  });
});
