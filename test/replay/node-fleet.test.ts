import { describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { gpuopsInput } from '../../src/replay/model-input.js';
import {
  createNodes,
  holdGpu,
  nodeCapacities,
  pickNode,
  staticPoolNodes,
  type FleetNode,
} from '../../src/replay/node-fleet.js';
import { moveNodes, returnNodes } from '../../src/replay/node-moves.js';
import type { ScalingDecision } from '../../src/scaling/types.js';

const node = (name: string, pool: FleetNode['pool'], used: number, gpus = 8): FleetNode => ({
  name,
  pool,
  gpus,
  used,
  movedAt: pool === 'short-task' ? 0 : null,
  emptySince: used === 0 ? 0 : null,
});

describe('staticPoolNodes: ceil(replicas ÷ GPUs per node)', () => {
  it.each([
    [0, 8, 0],
    [1, 8, 1],
    [8, 8, 1],
    [9, 8, 2],
    [56, 8, 7],
    [57, 8, 8],
    [3, 1, 3],
  ])('%i replicas on %i-GPU nodes → %i node(s)', (replicas, per, want) => {
    expect(staticPoolNodes(replicas, per)).toBe(want);
  });
  it('refuses nodes of no GPU', () => {
    expect(() => staticPoolNodes(4, 0)).toThrow('--gpus-per-node: expected a whole number ≥ 1, got 0');
  });
});

describe('createNodes and nodeCapacities', () => {
  it('puts the first inPool nodes in short-task, moved in and empty since 0', () => {
    const ns = createNodes(3, 4, 1);
    expect(ns.map((n) => [n.name, n.pool, n.movedAt])).toEqual([
      ['node-000', 'short-task', 0],
      ['node-001', 'unused', null],
      ['node-002', 'unused', null],
    ]);
    ns[0]!.used = 3;
    expect(nodeCapacities(ns).map((c) => [c.node, c.pool, c.freeGpus, c.allocatableGpus])).toEqual([
      ['node-000', 'short-task', 1, 4],
      ['node-001', 'unused', 4, 4],
      ['node-002', 'unused', 4, 4],
    ]);
  });
  it('refuses more pool nodes than the fleet and a count that is no whole number', () => {
    expect(() => createNodes(2, 8, 3)).toThrow('3 node(s) in the pool, but the fleet has 2');
    expect(() => createNodes(1.5, 8, 0)).toThrow('--nodes: expected a whole number ≥ 0, got 1.5');
  });
});

describe('pickNode: kube-scheduler scoring of free GPUs in the pool', () => {
  const ns = [
    node('b', 'short-task', 2),
    node('a', 'short-task', 6),
    node('c', 'short-task', 2),
    node('u', 'unused', 0),
  ];
  it.each<['LeastAllocated' | 'MostAllocated', string | null, FleetNode[]]>([
    ['LeastAllocated', 'b', ns], // 6 free on b and c: tie by name; the unused node is never picked
    ['MostAllocated', 'a', ns], // 2 free: the fullest node that fits
    ['LeastAllocated', null, [node('f', 'short-task', 8), node('u', 'unused', 0)]], // a full pool
    ['MostAllocated', 'g', [node('f', 'short-task', 8), node('g', 'short-task', 7)]], // exactly one free GPU fits
  ])('%s → %s', (scoring, want, nodes) => {
    expect(pickNode(nodes, 'short-task', scoring)?.name ?? null).toBe(want);
  });
});

describe('holdGpu: GPUs held and the empty time', () => {
  it('is empty from the moment its last pod leaves, busy while one is bound', () => {
    const n = node('a', 'short-task', 0);
    holdGpu(n, 1, 30);
    expect([n.used, n.emptySince]).toEqual([1, null]);
    holdGpu(n, -1, 90);
    expect([n.used, n.emptySince]).toEqual([0, 90]);
    expect(() => holdGpu(n, -1, 95)).toThrow('a: -1 GPU(s) held of 8');
  });
});

const decision = (
  algorithm: string,
  action: ScalingDecision['action'],
  from: number,
  to: number,
  nodes: string[] = [],
): ScalingDecision => ({
  algorithm,
  action,
  replicas: { from, to },
  utilization: 50,
  nodes,
  reason: 'WithinRange',
  message: '',
});

describe('moveNodes: a relabel moves its unused nodes into short-task', () => {
  it('moves the named nodes at t and counts them; other decisions move nothing', () => {
    const ns = [node('p', 'short-task', 8), node('u1', 'unused', 0), node('u2', 'unused', 0)];
    const moved = moveNodes(
      ns,
      [decision('s0', 'scale-up', 1, 2), decision('s1', 'relabel', 8, 9, ['u2'])],
      120,
    );
    expect(moved).toEqual(['u2']);
    expect(ns.map((n) => [n.pool, n.movedAt, n.emptySince])).toEqual([
      ['short-task', 0, null],
      ['unused', null, 0],
      ['short-task', 120, 120],
    ]);
    expect(() => moveNodes(ns, [decision('s1', 'relabel', 9, 10, ['p'])], 150)).toThrow(
      's1: moves p, which is not an unused node',
    );
  });
});

describe('returnNodes: the real return rule (pools.returnAfterSeconds, demand, scale-ups)', async () => {
  const policy = await loadDefaultPolicy();
  const after = policy.spec.pools.returnAfterSeconds; // 1800 s in the shipped policy
  const algorithms = new Map([
    ['s0', gpuopsInput([], [], 0, 0, [], { min: 30, max: 80, maxReplicas: 8 }, 0, 's0').algorithm],
  ]);
  /** A pool of a busy node (8 GPUs held) and an idle one moved in at 0, empty since `emptySince`. */
  const pool = (emptySince: number) => {
    const busy = node('busy', 'short-task', 8);
    const idle = { ...node('idle', 'short-task', 0), emptySince };
    return [busy, idle, node('u', 'unused', 0)];
  };
  it.each<[string, number, ScalingDecision[], string[]]>([
    ['empty exactly returnAfterSeconds: returns', 1000 + after, [decision('s0', 'hold', 8, 8)], ['idle']],
    ['one second short: stays', 1000 + after - 1, [decision('s0', 'hold', 8, 8)], []],
    [
      'a scale-up of the pool in this pass counts on it: stays',
      1000 + after,
      [decision('s0', 'scale-up', 8, 9)],
      [],
    ],
    [
      'the pods need its GPUs (9 replicas, 8 left without it): stays',
      1000 + after,
      [decision('s0', 'hold', 9, 9)],
      [],
    ],
  ])('%s', (_, t, decisions, want) => {
    const ns = pool(1000);
    expect(returnNodes(ns, decisions, algorithms, policy, t)).toEqual(want);
    expect(ns.find((n) => n.name === 'idle')!.pool).toBe(want.length ? 'unused' : 'short-task');
  });
  it('never returns a busy node, nor one gpuops did not move in', () => {
    const ns = [node('busy', 'short-task', 1), { ...node('mine', 'short-task', 0), movedAt: null }];
    expect(returnNodes(ns, [decision('s0', 'hold', 1, 1)], algorithms, policy, 10 * after)).toEqual([]);
  });
});
