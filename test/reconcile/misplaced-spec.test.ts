/**
 * A gpuops spec committed where gpuops does not read it (a Policy in `policies/team/`, an Algorithm
 * under `clusters/`) is a warning of the controller too, not only of `validate` and `plan`: in the
 * pass's plan `warnings` (printed by `reconcile --once`) every pass, and in the log once per file
 * content (the `run` loop passes every few seconds).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { formatPassResult } from '../../src/cli/commands/reconcile.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const POLICY = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec: {}\n';
const FILES = {
  'README.md': '# gitops\n',
  'algorithms/good.yaml': algorithmFile('good', { pool: 'short-task' }),
  'policies/team/limits.yaml': POLICY,
  'clusters/other/flux.yaml':
    'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: x}\n',
};
const NODES = [gpuNode('gpu-s', 4, 'short-task')];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ files: FILES, nodes: NODES });
});
afterAll(async () => {
  await h.close();
});

const logged = () =>
  h.logs.filter(
    (l) => l.level === 40 && typeof l.msg === 'string' && l.msg.startsWith('gpuops spec ignored'),
  );

describe('a misplaced spec in the working copy', () => {
  let first: PassResult;

  it('is a warning of the pass, printed by reconcile --once, and logged once', async () => {
    first = await h.pass();
    const warning = (first.plan.warnings ?? []).filter((w) =>
      w.startsWith('policies/team/limits.yaml:2:7: kind:'),
    );
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/at the top of policies\/ only/);
    expect(formatPassResult(first, false)).toContain(`warning: ${warning[0]}`);
    expect(logged().map((l) => [l.file, l.line])).toEqual([['policies/team/limits.yaml', 2]]);
    // The Kustomization is not gpuops's: no warning.
    expect((first.plan.warnings ?? []).some((w) => w.includes('flux.yaml'))).toBe(false);
  });

  it('is not logged again by the next pass over the same content, but stays in its warnings', async () => {
    const second = await h.pass();
    expect((second.plan.warnings ?? []).some((w) => w.startsWith('policies/team/limits.yaml:2:7'))).toBe(
      true,
    );
    expect(logged()).toHaveLength(1);
  });

  it('a new misplaced file, or a changed one, is logged once more', async () => {
    h.push({
      'clusters/other/bert.yaml': algorithmFile('bert', { pool: 'short-task' }),
      'policies/team/limits.yaml': POLICY.replace('name: team', 'name: team2'),
    });
    const third = await h.pass();
    expect(
      (third.plan.warnings ?? []).filter((w) => w.includes('not read:')).map((w) => w.split(':')[0]),
    ).toEqual(['clusters/other/bert.yaml', 'policies/team/limits.yaml']);
    expect(logged().map((l) => l.file)).toEqual([
      'policies/team/limits.yaml',
      'clusters/other/bert.yaml',
      'policies/team/limits.yaml',
    ]);
    await h.pass();
    expect(logged()).toHaveLength(3);
  });
});
