/**
 * Issue 11 item 6: pools shrink. `returnIdleNodes` as a table: the boundary at
 * `pools.returnAfterSeconds` (1800 s by default) with a row on each side, and every rule that keeps
 * a node where it is.
 */
import { describe, expect, it } from 'vitest';
import type { NodeInfo } from '../../src/cluster/types.js';
import { emptySinceOf, returnIdleNodes, type ReturnIdleInput } from '../../src/pools/return-idle.js';
import type { PoolAssignment } from '../../src/pools/types.js';
import type { Pool } from '../../src/definitions/types.js';

const NOW = new Date('2026-12-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();

function node(name: string, pool: Pool, o: Partial<NodeInfo> = {}): NodeInfo {
  return {
    name,
    labels: { 'gpuops.dev/pool': pool },
    ready: true,
    cordoned: false,
    schedulable: true,
    gpuProduct: 'Tesla-T4',
    gpuCapacity: 1,
    gpuAllocatable: 1,
    migAllocatable: 0,
    allocatable: { cpuMillis: 96_000, memoryBytes: 1000 * 2 ** 30, pods: 110 },
    requested: { cpuMillis: 0, memoryBytes: 0, pods: 0 },
    gpuRequested: 0,
    foreignGpuRequested: 0,
    managedPods: 0,
    pool,
    taints: [],
    ...o,
  };
}

const keep = (n: NodeInfo): PoolAssignment => ({
  node: n.name,
  from: n.pool,
  to: n.pool,
  reason: 'KeepPool',
  message: `stays ${n.pool}`,
});

/** short-task: st-busy runs the one pod; st-moved was moved by gpuops 2 h ago and is empty. */
function input(o: Partial<ReturnIdleInput> & { emptyFor?: number } = {}): ReturnIdleInput {
  const nodes = [
    node('st-busy', 'short-task', { gpuRequested: 1, managedPods: 1 }),
    node('st-moved', 'short-task'),
  ];
  return {
    assignments: nodes.map(keep),
    nodes,
    moved: new Map([['st-moved', ago(7200)]]),
    emptySince: new Map([['st-moved', ago(o.emptyFor ?? 3600)]]),
    demandGpus: { 'short-task': 1 },
    scalingUp: new Set(),
    returnAfterSeconds: 1800,
    now: NOW,
    ...o,
  };
}

const moved = (i: ReturnIdleInput) => returnIdleNodes(i).find((a) => a.node === 'st-moved')!;

describe('returnIdleNodes', () => {
  it.each([
    [1799, 'short-task', 'KeepPool'],
    [1800, 'unused', 'ReturnedIdle'],
    [1801, 'unused', 'ReturnedIdle'],
  ])('empty for %i s with returnAfterSeconds 1800 → %s (%s)', (emptyFor, to, reason) => {
    const a = moved(input({ emptyFor }));
    expect([a.to, a.reason]).toEqual([to, reason]);
    if (reason === 'ReturnedIdle') {
      expect(a.emptySeconds).toBe(emptyFor);
      expect(a.message).toContain(`no GPU pod for ${emptyFor} s`);
    }
  });

  it('the empty time starts at the move when the node was empty before it (moved 1799 s ago: stays)', () => {
    const a = moved(input({ moved: new Map([['st-moved', ago(1799)]]), emptyFor: 7200 }));
    expect([a.to, a.reason]).toEqual(['short-task', 'KeepPool']);
    const b = moved(input({ moved: new Map([['st-moved', ago(1800)]]), emptyFor: 7200 }));
    expect([b.to, b.reason, b.emptySeconds]).toEqual(['unused', 'ReturnedIdle', 1800]);
  });

  it('a node a person labelled (no moved-by annotation) stays, however long it is empty', () => {
    expect(moved(input({ moved: new Map() })).reason).toBe('KeepPool');
  });

  it('a node that holds a GPU pod now stays, whatever the history says', () => {
    const i = input();
    const nodes = i.nodes.map((n) => (n.name === 'st-moved' ? { ...n, gpuRequested: 1 } : n));
    expect(moved({ ...i, nodes }).reason).toBe('KeepPool');
  });

  it('no known empty history: stays', () => {
    expect(moved(input({ emptySince: new Map() })).reason).toBe('KeepPool');
  });

  it('a scale-up decided for the pool in this pass counts on it: stays, and says so', () => {
    const a = moved(input({ scalingUp: new Set<Pool>(['short-task']) }));
    expect(a.to).toBe('short-task');
    expect(a.message).toContain('a scale-up in short-task counts on its GPUs');
    expect(moved(input({ scalingUp: new Set<Pool>(['long-task']) })).reason).toBe('ReturnedIdle');
  });

  it.each([
    [1, 'ReturnedIdle'], // 2 GPUs in the pool, 1 needed: one can go
    [2, 'KeepPool'], // both needed
  ])('keeps as many GPUs as the pool’s pods need (demand %i → %s)', (demand, reason) => {
    const a = moved(input({ demandGpus: { 'short-task': demand } }));
    expect(a.reason).toBe(reason);
    if (reason === 'KeepPool') expect(a.message).toContain(`need ${demand} GPU(s) and 1 would be left`);
  });

  it('two idle moved nodes and room for one to go: the longer-empty one returns', () => {
    const nodes = [node('st-a', 'short-task'), node('st-b', 'short-task')];
    const out = returnIdleNodes({
      assignments: nodes.map(keep),
      nodes,
      moved: new Map([
        ['st-a', ago(9000)],
        ['st-b', ago(9000)],
      ]),
      emptySince: new Map([
        ['st-a', ago(2000)],
        ['st-b', ago(5000)],
      ]),
      demandGpus: { 'short-task': 1 },
      scalingUp: new Set(),
      returnAfterSeconds: 1800,
      now: NOW,
    });
    expect(out.map((a) => [a.node, a.to, a.reason])).toEqual([
      ['st-a', 'short-task', 'KeepPool'],
      ['st-b', 'unused', 'ReturnedIdle'],
    ]);
  });

  it('the messages a person reads: returned, kept for a scale-up, kept for the demand', () => {
    const since = ago(3600);
    const empty = `no GPU pod for 3600 s (since ${since}; pools.returnAfterSeconds 1800)`;
    expect(moved(input()).message).toBe(
      `${empty}; gpuops moved it into short-task at ${ago(7200)}: back to unused`,
    );
    expect(moved(input({ scalingUp: new Set<Pool>(['short-task']) })).message).toBe(
      `stays short-task: ${empty}, but a scale-up in short-task counts on its GPUs`,
    );
    expect(moved(input({ demandGpus: { 'short-task': 2 } })).message).toBe(
      `stays short-task: ${empty}, but the pool's pods need 2 GPU(s) and 1 would be left`,
    );
  });

  it.each<[string, (i: ReturnIdleInput) => ReturnIdleInput]>([
    ['a malformed moved-at annotation', (i) => ({ ...i, moved: new Map([['st-moved', 'yesterday']]) })],
    ['a malformed empty-since time', (i) => ({ ...i, emptySince: new Map([['st-moved', 'soon']]) })],
    [
      'a gpuops pod without GPUs runs there now',
      (i) => ({ ...i, nodes: i.nodes.map((n) => (n.name === 'st-moved' ? { ...n, managedPods: 1 } : n)) }),
    ],
    [
      'the node is no longer in the snapshot',
      (i) => ({ ...i, nodes: i.nodes.filter((n) => n.name !== 'st-moved') }),
    ],
  ])('stays when %s', (_name, change) => {
    const a = moved(change(input()));
    expect([a.to, a.reason, a.message]).toEqual(['short-task', 'KeepPool', 'stays short-task']);
  });

  it('a node moved into the pool in this pass (an earlier move left its moved-at) is not returned', () => {
    const i = input();
    const assignments = i.assignments.map((a) =>
      a.node === 'st-moved' ? { ...a, from: 'unused' as const, reason: 'MovedForScaleUp' as const } : a,
    );
    const a = moved({ ...i, assignments });
    expect([a.from, a.to, a.reason]).toEqual(['unused', 'short-task', 'MovedForScaleUp']);
  });

  it.each([[['st-b', 'st-a']], [['st-a', 'st-b']]])(
    'two nodes empty equally long and room for one: the first by name returns (input %j)',
    (names) => {
      const nodes = names.map((n) => node(n, 'short-task'));
      const out = returnIdleNodes({
        assignments: nodes.map(keep),
        nodes,
        moved: new Map([
          ['st-a', ago(9000)],
          ['st-b', ago(9000)],
        ]),
        emptySince: new Map([
          ['st-a', ago(5000)],
          ['st-b', ago(5000)],
        ]),
        demandGpus: { 'short-task': 1 },
        scalingUp: new Set(),
        returnAfterSeconds: 1800,
        now: NOW,
      });
      expect(Object.fromEntries(out.map((a) => [a.node, [a.to, a.reason]]))).toEqual({
        'st-a': ['unused', 'ReturnedIdle'],
        'st-b': ['short-task', 'KeepPool'],
      });
    },
  );

  it('test and unused nodes, and nodes changing pool anyway, are left as they are', () => {
    const nodes = [node('t', 'test'), node('u', 'unused')];
    const i = input();
    const out = returnIdleNodes({
      ...i,
      nodes: [...i.nodes, ...nodes],
      assignments: [...i.assignments, ...nodes.map(keep)],
      moved: new Map([...i.moved, ['t', ago(9000)], ['u', ago(9000)]]),
      emptySince: new Map([...i.emptySince, ['t', ago(9000)], ['u', ago(9000)]]),
    });
    expect(out.filter((a) => a.node === 't' || a.node === 'u').map((a) => a.reason)).toEqual([
      'KeepPool',
      'KeepPool',
    ]);
  });
});

describe('emptySinceOf', () => {
  it('first snapshot after the last busy one; never busy → the oldest snapshot; busy now (GPU or gpuops pod) → none', () => {
    const nodes = [
      node('a', 'short-task'),
      node('b', 'short-task'),
      node('c', 'short-task', { managedPods: 1 }),
      node('d', 'short-task', { gpuRequested: 1, foreignGpuRequested: 1 }),
      node('e', 'short-task', { managedPods: 1 }),
    ];
    const got = emptySinceOf(nodes, {
      oldest: ago(3000),
      emptyAfterBusy: new Map<string, string | null>([
        ['a', ago(600)],
        ['c', null],
      ]),
    });
    // d holds a foreign GPU pod, e a gpuops pod: busy now, whatever the history says.
    expect(Object.fromEntries(got)).toEqual({ a: ago(600), b: ago(3000) });
    expect(emptySinceOf(nodes, { oldest: null, emptyAfterBusy: new Map() }).size).toBe(0);
  });

  it('never busy → when the node was first seen, when known (past snapshot retention)', () => {
    const nodes = [node('a', 'short-task'), node('b', 'short-task')];
    const got = emptySinceOf(nodes, {
      oldest: ago(1500),
      emptyAfterBusy: new Map<string, string | null>([['a', ago(2400)]]),
      firstSeen: new Map([
        ['a', ago(9000)],
        ['b', ago(7200)],
      ]),
    });
    expect(Object.fromEntries(got)).toEqual({ a: ago(2400), b: ago(7200) });
  });
});
