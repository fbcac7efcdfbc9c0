/** Pull request text a reviewer reads once: titles that name every moved node, left-out nodes, escaped cells. */
import { describe, expect, it } from 'vitest';
import { prTitle, renderPrBody } from '../../src/gitops/pr-body.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const pool = (
  node: string,
  from: PoolAssignment['from'],
  to: PoolAssignment['to'],
  reason: PoolAssignment['reason'],
  message: string,
): PoolAssignment => ({ node, from, to, reason, message });

function relabel(over: Partial<ScalingDecision>): ScalingDecision {
  return {
    algorithm: 'bert-train',
    action: 'relabel',
    replicas: { from: 2, to: 2 },
    utilization: 91,
    nodes: ['gpu-h100-01'],
    reason: 'RelabelUnusedNode',
    message: 'a replica is Pending and long-task has no free GPU: move gpu-h100-01 from unused',
    ...over,
  };
}
const scaleInput = (d: ScalingDecision, pools: PoolAssignment[]) => ({
  cluster: 'prod',
  kind: 'scale' as const,
  subject: 'bert-train',
  scaling: [{ decision: d, pods: [], min: 30, max: 80, minReplicas: 1, maxReplicas: 8 }],
  pools,
});

describe('prTitle', () => {
  it.each([
    [
      'one move, replicas unchanged: the Pending replica can start',
      scaleInput(relabel({}), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'for bert-train'),
      ]),
      'gpuops(prod): move gpu-h100-01 into long-task so the Pending replica of bert-train can start',
    ],
    [
      'two moves and a scale-up: every node named',
      scaleInput(relabel({ nodes: ['gpu-h100-03', 'gpu-h100-01'], replicas: { from: 2, to: 4 } }), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'x'),
        pool('gpu-h100-03', 'unused', 'long-task', 'MovedForScaleUp', 'x'),
      ]),
      'gpuops(prod): move gpu-h100-01 and gpu-h100-03 into long-task and scale bert-train from 2 to 4 replicas',
    ],
    [
      'a plain scale-up names no node',
      scaleInput(relabel({ action: 'scale-up', nodes: [], replicas: { from: 1, to: 2 } }), []),
      'gpuops(prod): scale bert-train from 1 to 2 replicas',
    ],
  ])('%s', (_, input, title) => {
    expect(prTitle(input)).toBe(title);
  });

  it('the pools title names every node it moves, grouped by pool', () => {
    expect(
      prTitle({
        cluster: 'prod',
        kind: 'pools',
        subject: 'pools',
        pools: [
          pool('gpu-b', null, 'unused', 'Unused', 'idle'),
          pool('gpu-a', null, 'test', 'TestPool', 'becomes test: 1 of 1 test nodes'),
          pool('gpu-c', null, 'unused', 'Unused', 'idle'),
          pool('gpu-d', 'test', 'test', 'KeepPool', 'kept'),
        ],
      }),
    ).toBe('gpuops(prod): move gpu-a into test, gpu-b and gpu-c into unused');
  });
});

describe('renderPrBody', () => {
  const body = renderPrBody({
    cluster: 'prod',
    kind: 'pools',
    subject: 'pools',
    files: [{ path: 'clusters/prod/nodes/gpu-a.yaml', change: 'create' }],
    desiredHash: 'b'.repeat(64),
    pools: [
      pool('gpu-a', null, 'test', 'TestPool', 'becomes test: 1 of 1 test nodes'),
      pool('gpu-mig', null, null, 'MIGOnly', 'GPUs are partitioned by MIG | mixed strategy'),
      pool('gpu-t4', null, null, 'Cordoned', 'cordoned (spec.unschedulable)'),
      pool('cpu-1', null, null, 'NoGPU', 'no nvidia.com/gpu capacity: not a GPU node'),
    ],
  });

  it('lists the GPU nodes left out of every pool with their reason, pipes escaped; CPU nodes not', () => {
    expect(body).toContain('GPU nodes left out of every pool (2):');
    expect(body).toContain('| gpu-mig | MIGOnly | GPUs are partitioned by MIG \\| mixed strategy |');
    expect(body).toContain('| gpu-t4 | Cordoned | cordoned (spec.unschedulable) |');
    expect(body).not.toContain('cpu-1');
  });

  it('says why this node became the test node, once', () => {
    expect(body).toContain('`gpu-a` becomes the test node: test nodes are taken, in name order');
    const sentences = body
      .replace(/<!--.*-->/g, '')
      .split(/(?<=[.:])\s+|\n/)
      .map((x) => x.trim())
      .filter((x) => x.length > 20 && !x.startsWith('|'));
    expect(sentences.length).toBe(new Set(sentences).size);
  });

  it('a relabel whose message names the node does not say it again', () => {
    const b = renderPrBody({
      ...scaleInput(relabel({}), [
        pool('gpu-h100-01', 'unused', 'long-task', 'MovedForScaleUp', 'for bert-train'),
      ]),
      files: [],
      desiredHash: 'c'.repeat(64),
    });
    expect(b.match(/gpu-h100-01/g)!.length).toBeLessThanOrEqual(3); // title, message, pools table
    expect(b).not.toContain('Unused nodes moved into the pool');
  });
});
