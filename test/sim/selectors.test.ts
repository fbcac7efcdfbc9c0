/** Label and field selector parsing and matching, row by row. */
import { describe, expect, it } from 'vitest';
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from '../../src/sim/selectors.js';
import type { KubeObject } from '../../src/sim/types.js';

const labels = { 'gpuops.dev/pool': 'test', 'nvidia.com/gpu.product': 'Tesla-T4', tier: 'gpu' };

describe('label selectors', () => {
  it.each([
    ['empty selects everything', '', true],
    ['equality', 'gpuops.dev/pool=test', true],
    ['double equals', 'gpuops.dev/pool==test', true],
    ['equality on another value', 'gpuops.dev/pool=unused', false],
    ['inequality with another value', 'gpuops.dev/pool!=unused', true],
    ['inequality on an absent key matches', 'absent!=x', true],
    ['in', 'gpuops.dev/pool in (test, unused)', true],
    ['in without the value', 'gpuops.dev/pool in (long-task)', false],
    ['notin', 'gpuops.dev/pool notin (long-task,short-task)', true],
    ['notin on an absent key matches', 'absent notin (x)', true],
    ['exists', 'tier', true],
    ['exists on an absent key', 'absent', false],
    ['does not exist', '!absent', true],
    ['does not exist on a present key', '!tier', false],
    ['all terms must hold', 'tier=gpu,gpuops.dev/pool in (unused)', false],
    ['terms with set commas', 'gpuops.dev/pool in (unused,test),tier', true],
  ])('%s', (_name, selector, expected) => {
    expect(matchLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('rejects bad syntax with 400', () => {
    expect(() => parseLabelSelector('a in b')).toThrow(/invalid label selector/);
  });
});

describe('field selectors', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'ns' },
    spec: {},
    status: { phase: 'Pending' },
  } as KubeObject;
  it.each([
    ['name', 'metadata.name=p', true],
    ['namespace inequality', 'metadata.namespace!=ns', false],
    ['unbound pod has an empty node name', 'spec.nodeName=', true],
    ['phase', 'status.phase=Pending', true],
    ['both', 'status.phase!=Running,metadata.name==p', true],
  ])('%s', (_name, selector, expected) => {
    expect(matchFields(parseFieldSelector('pods', selector), pod)).toBe(expected);
  });

  it('reads a node without spec.unschedulable as "false"', () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: {} } as KubeObject;
    expect(matchFields(parseFieldSelector('nodes', 'spec.unschedulable=false'), node)).toBe(true);
  });

  it('rejects a field the resource does not support', () => {
    expect(() => parseFieldSelector('nodes', 'status.phase=Running')).toThrow(
      /field label not supported: status.phase/,
    );
  });
});
