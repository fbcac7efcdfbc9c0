/**
 * Issue 11 item 6 through the one planner: a scale-up moves an unused node into short-task (its
 * manifest says gpuops moved it, and when); once the load is gone and the node has held no GPU pod
 * for `pools.returnAfterSeconds`, the pools change set returns it to unused with `ReturnedIdle`. A
 * node a person put in the pool stays.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import type { NodeInfo, PodInfo, Snapshot } from '../../src/cluster/types.js';
import { planDesiredState, type DesiredStateInput } from '../../src/plan/desired-state.js';
import type { UtilizationReading } from '../../src/metrics/types.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { RESNET } from '../scaling/one-deployment.js';
import { nodeInfo } from '../support/node-info.js';

const policy = parse(readFileSync(new URL('../../policies/default.yaml', import.meta.url), 'utf8')) as Policy;
policy.spec.pools.test.size = 0;
const T0 = new Date('2026-12-01T10:00:00Z');
const later = (s: number) => new Date(T0.getTime() + s * 1000);

/** A 1-GPU T4 node in `pool` whose GPU is held by `pods` managed pods. */
const node = (name: string, pool: NodeInfo['pool'], pods = 0): NodeInfo =>
  nodeInfo(name, {
    labels: pool ? { 'gpuops.dev/pool': pool } : {},
    pool,
    gpuProduct: 'Tesla-T4',
    gpuCapacity: 1,
    gpuAllocatable: 1,
    gpuRequested: pods,
    managedPods: pods,
  });

function pod(i: number, nodeName: string): PodInfo {
  return {
    namespace: 'algorithms',
    name: `resnet50-infer-7d9f-${i}`,
    uid: `u${i}`,
    labels: {},
    nodeName,
    phase: 'Running',
    ready: true,
    terminating: false,
    gpuRequest: 1,
    managed: true,
    algorithm: 'resnet50-infer',
    owner: { kind: 'ReplicaSet', name: 'resnet50-infer-7d9f' },
    unschedulable: false,
    createdAt: T0.toISOString(),
    requests: { cpuMillis: 0, memoryBytes: 0 },
    startedAt: null,
  };
}

/** resnet50-infer of `one-deployment.ts`, up to 8 replicas, 3 benchmark runs. */
const resnet: ResolvedAlgorithm = {
  ...RESNET,
  scaling: { ...RESNET.scaling, maxReplicas: 8 },
  benchmark: { ...RESNET.benchmark, runs: 3 },
};

const reading = (pods: string[], percent: number, now: Date): UtilizationReading => ({
  ok: true,
  errors: [],
  series: pods.map((p, i) => ({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    labels: { gpu: '0', UUID: `GPU-${i}`, Hostname: 'st-person', namespace: 'algorithms', pod: p },
    value: percent,
    timestamp: now.getTime() - 5_000,
  })),
});

function input(
  snapshot: Snapshot,
  base: Map<string, string>,
  now: Date,
  over: Partial<DesiredStateInput> = {},
) {
  return {
    cluster: 'prod',
    repo: { policy, errors: [], algorithms: [resnet] },
    snapshot: { ...snapshot, takenAt: now.toISOString() },
    base,
    benchmarks: new Map(),
    reading: { ok: false, reason: 'Empty', message: '-' },
    recent: [],
    templates: loadWorkloadTemplates(),
    now,
    ...over,
  } satisfies DesiredStateInput;
}

function merge(base: Map<string, string>, plan: ReturnType<typeof planDesiredState>, kinds: string[]) {
  const out = new Map(base);
  for (const cs of plan.changeSets.filter((c) => kinds.includes(c.kind)))
    for (const f of cs.files) {
      if (f.content === null) out.delete(f.path);
      else out.set(f.path, f.content);
    }
  return out;
}

describe('pools shrink (ReturnedIdle) through planDesiredState', () => {
  // st-person: put in short-task by a person (no manifest of gpuops); u-1: unused.
  const nodes = [node('st-person', 'short-task', 1), node('u-1', 'unused')];
  const hot: Snapshot = { takenAt: '', nodes, pods: [pod(0, 'st-person')] };
  const dep = 'clusters/prod/algorithms/resnet50-infer/deployment.yaml';
  let base: Map<string, string>;
  let up: ReturnType<typeof planDesiredState>;
  let movedFile: ReturnType<typeof parse>;
  // Computed in each test (beforeEach), not while collecting: mutation testing then sees which
  // test covers the code it runs.
  beforeEach(() => {
    base = merge(new Map(), planDesiredState(input(hot, new Map(), T0)), ['pools']);
    base = merge(base, planDesiredState(input(hot, base, T0)), ['placement']);
    up = planDesiredState(input(hot, base, T0, { reading: reading([pod(0, '').name], 95, T0) }));
    base = merge(base, up, ['scale']);
    movedFile = parse(base.get('clusters/prod/nodes/u-1.yaml')!);
    // The load is gone: the scale-down to 1 replica merged, its pod runs on st-person, u-1 empty since the move.
    base.set(dep, base.get(dep)!.replace('replicas: 2', 'replicas: 1'));
  });

  it('the scale-up moves u-1 and its manifest says gpuops moved it, and when', () => {
    expect(up.output.scaling[0]).toMatchObject({ action: 'relabel', nodes: ['u-1'] });
    expect(movedFile.metadata.labels['gpuops.dev/pool']).toBe('short-task');
    expect(movedFile.metadata.annotations).toMatchObject({
      'gpuops.dev/moved-by': 'gpuops',
      'gpuops.dev/moved-at': T0.toISOString(),
    });
  });

  const calm: Snapshot = {
    takenAt: '',
    nodes: [node('st-person', 'short-task', 1), node('u-1', 'short-task')],
    pods: [pod(0, 'st-person')],
  };
  const at = (s: number, over: Partial<DesiredStateInput> = {}) =>
    planDesiredState(
      input(calm, base, later(s), { emptySince: new Map([['u-1', T0.toISOString()]]), ...over }),
    );

  it('a pass with nothing to change keeps the moved-by annotation (no pools change set)', () => {
    expect(at(600).output.files).toEqual([]);
  });

  it.each([
    [1799, 'short-task', 'KeepPool'],
    [1800, 'unused', 'ReturnedIdle'],
    [1801, 'unused', 'ReturnedIdle'],
  ])('%i s after the move, empty throughout → u-1 %s (%s)', (s, to, reason) => {
    const plan = at(s);
    expect(plan.output.pools.find((p) => p.node === 'u-1')).toMatchObject({ from: 'short-task', to, reason });
    expect(plan.output.pools.find((p) => p.node === 'st-person')).toMatchObject({
      to: 'short-task',
      reason: 'KeepPool',
    });
    const pools = plan.changeSets.find((c) => c.kind === 'pools');
    if (reason === 'KeepPool') return expect(pools).toBeUndefined();
    const file = parse(pools!.files.find((f) => f.path === 'clusters/prod/nodes/u-1.yaml')!.content!);
    expect(file.metadata.labels['gpuops.dev/pool']).toBe('unused');
    expect(file.metadata.annotations['gpuops.dev/moved-by']).toBeUndefined();
    expect(pools!.body).toContain('ReturnedIdle');
  });

  it('without the stored history (plan offline, no database) nothing returns', () => {
    expect(at(7200, { emptySince: undefined }).output.pools.find((p) => p.node === 'u-1')?.reason).toBe(
      'KeepPool',
    );
  });

  it('while the load is high again, a scale-up counts on it: it stays', () => {
    const plan = at(7200, { reading: reading([pod(0, '').name], 95, later(7200)) });
    expect(plan.output.pools.find((p) => p.node === 'u-1')).toMatchObject({ to: 'short-task' });
  });
});
