/** The demo's count- and change-dependent wording: relabel lines, plural agreement, left-out once. */
import { describe, expect, it } from 'vitest';
import { decisionLine, leftOutLines, replicas } from '../../src/demo/lines.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

function decision(over: Partial<ScalingDecision>): ScalingDecision {
  return {
    algorithm: 'resnet50-infer',
    action: 'relabel',
    replicas: { from: 1, to: 1 },
    utilization: null,
    nodes: ['gpu-t4-03'],
    reason: 'RelabelUnusedNode',
    message: '',
    ...over,
  };
}

describe('replicas', () => {
  it.each([
    [0, '0 replicas'],
    [1, '1 replica'],
    [2, '2 replicas'],
  ])('%d → %s', (n, text) => expect(replicas(n)).toBe(text));
});

describe('decisionLine', () => {
  it('a relabel that keeps the count names the node, the pool it leaves and the pool it joins', () => {
    const line = decisionLine(decision({}), 'short-task');
    expect(line).toBe(
      'scaling resnet50-infer: relabel: move gpu-t4-03 from unused into short-task, 1 replica (unchanged) (RelabelUnusedNode, utilisation no data)',
    );
    expect(line).not.toContain('1 → 1');
  });
  it('a relabel that grows says the change with plural agreement', () => {
    const d = decision({ replicas: { from: 1, to: 2 }, nodes: ['gpu-t4-01'], utilization: 90 });
    expect(decisionLine(d, 'short-task')).toBe(
      'scaling resnet50-infer: relabel: move gpu-t4-01 from unused into short-task, 1 → 2 replicas (RelabelUnusedNode, utilisation 90 %)',
    );
  });
  it.each([
    [
      { action: 'scale-up', replicas: { from: 2, to: 3 }, reason: 'AboveMax', utilization: 100 },
      'scale-up 2 → 3 (AboveMax, utilisation 100 %)',
    ],
    [
      { action: 'hold', replicas: { from: 4, to: 4 }, reason: 'WithinRange', utilization: 50 },
      'hold at 4 (WithinRange, utilisation 50 %)',
    ],
  ] as const)('%o keeps its short form', (over, text) => {
    expect(decisionLine(decision({ ...over, nodes: [] }), 'short-task')).toBe(
      `scaling resnet50-infer: ${text}`,
    );
  });
});

describe('leftOutLines', () => {
  const a = { node: 'gpu-t4-04', reason: 'NotReady', message: 'the Ready condition is not True' };
  const b = { node: 'gpu-h100-02', reason: 'Cordoned', message: 'cordoned' };
  it('prints the list the first time, nothing when it is unchanged, all of it when it changes', () => {
    const first = leftOutLines([a, b], '');
    expect(first.lines).toEqual([
      'left out: gpu-t4-04 (NotReady: the Ready condition is not True)',
      'left out: gpu-h100-02 (Cordoned: cordoned)',
    ]);
    expect(leftOutLines([a, b], first.key).lines).toEqual([]);
    expect(leftOutLines([a], first.key).lines).toEqual([
      'left out: gpu-t4-04 (NotReady: the Ready condition is not True)',
    ]);
  });
});
