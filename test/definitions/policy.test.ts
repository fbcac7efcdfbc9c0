import { readFile } from 'node:fs/promises';
import { isMap, isScalar, parseDocument, type Pair } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY_FILE, loadDefaultPolicy } from '../../src/definitions/load.js';
import { mergePolicy, parseDefaultPolicy, parsePolicy } from '../../src/definitions/rules/policy.js';
import type { Policy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeEach(async () => {
  defaults = await loadDefaultPolicy();
});

// One metadata.name per document: a second document of one name is refused (parsePolicy).
const HEAD = 'apiVersion: gpuops.dev/v1alpha1\nkind: Policy\nmetadata: {name: team}\nspec:\n';

describe('mergePolicy', () => {
  it('merges mappings field by field and replaces lists and scalars', () => {
    const base = { a: { b: 1, c: [1, 2], d: { e: 'x' } }, f: true };
    const merged = mergePolicy(base, { a: { c: [9], d: { g: 2 } }, f: false });
    expect(merged).toEqual({ a: { b: 1, c: [9], d: { e: 'x', g: 2 } }, f: false });
    expect(base).toEqual({ a: { b: 1, c: [1, 2], d: { e: 'x' } }, f: true });
  });
});

describe('parsePolicy', () => {
  it('applies repo overrides in file-name order, later files winning', () => {
    const out = parsePolicy(defaults, [
      { path: 'policies/20-late.yaml', text: `${HEAD}  scaling: {utilization: {max: 95}}\n` },
      {
        path: 'policies/10-early.yaml',
        text: `${HEAD.replace('team', 'team-early')}  scaling: {utilization: {max: 90}, minReplicas: 2}\n  pullRequests: {labels: [ml]}\n`,
      },
    ]);
    expect(out.errors).toEqual([]);
    expect(out.policy.spec.scaling.utilization).toEqual({ min: 30, max: 95 });
    expect(out.policy.spec.scaling.minReplicas).toBe(2);
    expect(out.policy.spec.pullRequests.labels).toEqual(['ml']);
    expect(out.policy.spec.placement.longTaskThresholdSeconds).toBe(600);
    expect(out.policy.metadata.name).toBe('team');
  });

  it('locates errors in the overriding file and still applies the good files', () => {
    const out = parsePolicy(defaults, [
      {
        path: 'policies/a.yaml',
        text: `${HEAD}  scaling:\n    engine: keda\n    minReplicas: 0\n  pools:\n    taint: {enabled: yes}\n`,
      },
      {
        path: 'policies/b.yaml',
        text: `${HEAD.replace('team', 'team-b')}  placement: {longTaskThresholdSecs: 60}\n`,
      },
      {
        path: 'policies/c.yaml',
        text: `${HEAD.replace('team', 'team-c')}  placement: {longTaskThresholdSeconds: 120}\n`,
      },
      {
        path: 'policies/d.yaml',
        text: `${HEAD.replace('team', 'team-d')}  scaling: {utilization: {min: 85}}\n`,
      },
    ]);
    expect(out.errors.map((e) => [e.file, e.line, e.column, e.field])).toEqual([
      ['policies/a.yaml', 6, 13, 'spec.scaling.engine'],
      ['policies/a.yaml', 7, 18, 'spec.scaling.minReplicas'],
      ['policies/a.yaml', 9, 22, 'spec.pools.taint.enabled'],
      ['policies/b.yaml', 5, 15, 'spec.placement.longTaskThresholdSecs'],
      ['policies/d.yaml', 5, 32, 'spec.scaling.utilization.min'],
    ]);
    expect(out.errors.map((e) => e.message)).toEqual([
      'must be one of gpuops, hpa, got the string "keda"',
      'must be ≥ 1, got 0',
      'unquoted yes is a string in YAML 1.2 but a boolean in YAML 1.1 (kubectl, Helm); write true or false',
      'unknown field "longTaskThresholdSecs"; did you mean "longTaskThresholdSeconds"?',
      'utilization min 85% must be below max 80%',
    ]);
    expect(out.policy.spec.placement.longTaskThresholdSeconds).toBe(120);
    expect(out.policy.spec.scaling.engine).toBe('gpuops');
    expect(out.policy.spec.scaling.utilization.min).toBe(30);
  });

  it('reports cross-field errors beside schema errors of the same document (issue 16 item 5)', () => {
    const out = parsePolicy(defaults, [
      {
        path: 'policies/a.yaml',
        text: `${HEAD}  scaling:\n    engine: keda\n    minReplicas: 9\n    maxReplicas: 3\n    utilization: {min: 60, max: 60}\n`,
      },
      // The neighbour across each boundary: equal replica bounds are a fixed size, and valid.
      {
        path: 'policies/b.yaml',
        text: `${HEAD.replace('team', 'team-b')}  scaling: {minReplicas: 4, maxReplicas: 4}\n`,
      },
    ]);
    expect(out.errors.map((e) => [e.file, e.line, e.column, e.field, e.message])).toEqual([
      ['policies/a.yaml', 6, 13, 'spec.scaling.engine', 'must be one of gpuops, hpa, got the string "keda"'],
      ['policies/a.yaml', 7, 18, 'spec.scaling.minReplicas', 'minReplicas 9 is above maxReplicas 3'],
      ['policies/a.yaml', 9, 24, 'spec.scaling.utilization.min', 'utilization min 60% must be below max 60%'],
    ]);
    expect(out.policy.spec.scaling.minReplicas).toBe(4);
  });

  it.each([
    ['-0.5', false],
    ['0', true],
    ['100', true],
    ['100.5', false],
  ])('scaling.targetUtilization %s is valid: %s (percent, 0..100; 0 is the band middle)', (value, valid) => {
    const out = parsePolicy(defaults, [
      { path: 'policies/t.yaml', text: `${HEAD}  scaling: {targetUtilization: ${value}}\n` },
    ]);
    expect(out.errors.map((e) => e.field)).toEqual(valid ? [] : ['spec.scaling.targetUtilization']);
    expect(out.policy.spec.scaling.targetUtilization).toBe(valid ? Number(value) : 0);
  });

  it('rejects an Algorithm in policies/ with one error on kind', () => {
    const out = parsePolicy(defaults, [
      {
        path: 'policies/x.yaml',
        text: 'apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: x}\n',
      },
    ]);
    expect(out.errors).toEqual([
      {
        file: 'policies/x.yaml',
        line: 2,
        column: 7,
        field: 'kind',
        message:
          'must be "Policy" in policies/, got the string "Algorithm"; Algorithm documents belong under algorithms/',
      },
    ]);
  });
});

describe('policies/default.yaml', () => {
  it('is one valid Policy', () => {
    expect(defaults.kind).toBe('Policy');
    expect(() => parseDefaultPolicy({ path: 'default.yaml', text: `${HEAD}  namespace: x\n` })).toThrow(
      /required field "pools" is missing/,
    );
  });

  it('documents every threshold with a comment above it', async () => {
    const doc = parseDocument(await readFile(DEFAULT_POLICY_FILE, 'utf8'));
    const undocumented: string[] = [];
    const walk = (node: unknown, path: string, inheritedComment: boolean): void => {
      if (!isMap(node)) return;
      (node.items as Pair[]).forEach((pair, i) => {
        const key = isScalar(pair.key) ? String(pair.key.value) : '?';
        // The yaml library keeps the comment above a mapping's first key on the mapping itself.
        const commented =
          Boolean((pair.key as { commentBefore?: string } | null)?.commentBefore) ||
          (i === 0 && Boolean(node.commentBefore));
        if (isMap(pair.value)) walk(pair.value, `${path}${key}.`, commented);
        else if (!commented && !inheritedComment) undocumented.push(`${path}${key}`);
      });
    };
    const spec = doc.get('spec', true);
    walk(spec, 'spec.', false);
    expect(undocumented).toEqual([]);
  });
});
