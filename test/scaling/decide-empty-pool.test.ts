/**
 * The gap the demo exposed: right after placement an algorithm's pool is empty, its first replica
 * is Pending Unschedulable and shows no utilisation. Without a rule for it the algorithm waited
 * forever (`NoData`); now unused nodes move in for the Pending replicas.
 */
import { describe, expect, it } from 'vitest';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import { algorithm, node, pod, policy, policyNoWindows } from './support.js';

const NOW = new Date('2025-06-01T12:00:00Z');

const pending = (name: string) =>
  pod(name, { nodeName: null, phase: 'Pending', ready: false, unschedulable: true });

function emptyPool(patch: Partial<ScalingInput> = {}): ScalingInput {
  return {
    algorithm: algorithm({ gpus: 4 }),
    pool: 'short-task',
    replicas: 1,
    pods: [pending('resnet50-infer-7d9f-0')],
    samples: [],
    poolNodes: [],
    unusedNodes: [node('a-unused-t4', 'unused', 2, 'Tesla-T4'), node('b-unused-a100', 'unused', 8)],
    recent: [],
    ...patch,
  };
}

describe('decide: replicas Pending in an empty pool', () => {
  it('PendingInEmptyPoolMovesAnUnusedNodeWithRoom', () => {
    const d = decideOne(emptyPool(), policyNoWindows(), NOW);
    expect(d).toMatchObject({
      action: 'relabel',
      reason: 'RelabelUnusedNode',
      replicas: { from: 1, to: 1 },
      nodes: ['b-unused-a100'],
      utilization: null,
    });
    expect(d.message).toContain('1 pod(s) Pending');
  });

  it('PendingWithRoomInThePoolWaitsForTheScheduler', () => {
    const d = decideOne(emptyPool({ poolNodes: [node('st-1', 'short-task', 4)] }), policyNoWindows(), NOW);
    expect(d).toMatchObject({ action: 'hold', reason: 'NoData' });
  });

  it('NotYetCreatedPodsAreNoEvidence', () => {
    const d = decideOne(emptyPool({ pods: [] }), policyNoWindows(), NOW);
    expect(d).toMatchObject({ action: 'hold', reason: 'NoData' });
  });

  it('PendingRespectsTheScaleUpCooldown', () => {
    const recent = [
      {
        kind: 'scaling' as const,
        subject: 'resnet50-infer',
        action: 'relabel',
        reason: 'RelabelUnusedNode',
        message: '',
        replicasFrom: 1,
        replicasTo: 1,
        utilization: null,
        at: new Date(NOW.getTime() - 10_000).toISOString(),
      },
    ];
    const d = decideOne(emptyPool({ recent }), policy({ scaleUp: { cooldownSeconds: 120 } }), NOW);
    expect(d).toMatchObject({ action: 'hold', reason: 'CooldownActive' });
  });

  it('PendingWithNoUnusedNodeWithRoomIsNoCapacity', () => {
    const d = decideOne(
      emptyPool({ unusedNodes: [node('a-unused-t4', 'unused', 2, 'Tesla-T4')] }),
      policyNoWindows(),
      NOW,
    );
    expect(d).toMatchObject({ action: 'hold', reason: 'NoCapacity' });
  });
});
