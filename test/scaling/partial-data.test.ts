/**
 * A partial answer (the metrics store's `warnings`) as a table over the whole decision: no
 * scale-down (band and headroom sizing), no node moved in, no node returned; a scale-up onto free
 * GPUs of the pool and a hold in band still happen, each naming the warning. Each row has its
 * neighbour: the same input on a whole answer.
 */
import { describe, expect, it } from 'vitest';
import { returnIdleNodes } from '../../src/pools/return-idle.js';
import { decideOne } from '../../src/scaling/decide-one.js';
import type { ScalingInput } from '../../src/scaling/types.js';
import type { Policy } from '../../src/definitions/types.js';
import { baseInput, node, policyNoWindows, RULE_NOW } from './support.js';

const WARNED = 'the metrics store answered in part ("store eu-1 is down")';
const partial = (i: ScalingInput): ScalingInput => ({ ...i, partialData: WARNED });
const fullPool = (i: ScalingInput): ScalingInput => ({ ...i, poolNodes: [node('lt-1', 'long-task', 0)] });
const headroom = policyNoWindows({ sizing: 'headroom', headroomFactor: 0 });

describe('decisions on a partial answer', () => {
  it.each<[string, ScalingInput, Policy, string]>([
    ['BelowMinOnAWholeAnswerScalesDown', baseInput([10, 10, 10]), policyNoWindows(), 'scale-down BelowMin 2'],
    [
      'BelowMinOnAPartialAnswerHolds',
      partial(baseInput([10, 10, 10])),
      policyNoWindows(),
      'hold PartialData 3',
    ],
    [
      'HeadroomSpareOnAWholeAnswerScalesDown',
      baseInput([10, 10, 10]),
      headroom,
      'scale-down HeadroomSpare 1',
    ],
    ['HeadroomSpareOnAPartialAnswerHolds', partial(baseInput([10, 10, 10])), headroom, 'hold PartialData 3'],
    [
      'AboveMaxWithFreeGpusScalesUpOnAPartialAnswer',
      partial(baseInput([95, 95, 95])),
      policyNoWindows(),
      'scale-up AboveMax 4',
    ],
    [
      'AboveMaxPoolFullMovesANodeOnAWholeAnswer',
      fullPool(baseInput([95, 95, 95])),
      policyNoWindows(),
      'relabel RelabelUnusedNode 4',
    ],
    [
      'AboveMaxPoolFullMovesNoNodeOnAPartialAnswer',
      partial(fullPool(baseInput([95, 95, 95]))),
      policyNoWindows(),
      'hold PartialData 3',
    ],
    [
      'WithinBandHoldsAsOnAWholeAnswer',
      partial(baseInput([50, 50, 50])),
      policyNoWindows(),
      'hold WithinRange 3',
    ],
  ])('%s', (_name, input, p, want) => {
    const d = decideOne(input, p, RULE_NOW);
    expect(`${d.action} ${d.reason} ${d.replicas.to}`).toBe(want);
    if (input.partialData) expect(d.message).toContain(WARNED);
    else expect(d.message).not.toContain('answered in part');
  });

  it('names the warning once, in the hold itself', () => {
    const d = decideOne(partial(baseInput([10, 10, 10])), policyNoWindows(), RULE_NOW);
    expect(d.message).toBe(
      `resnet50-infer: utilisation 10% over 3 of 3 Ready pod(s) < min 30%, but ${WARNED}; never scale down on a partial answer`,
    );
  });
});

describe('no node returns to unused on a partial answer', () => {
  const nodeInfo = {
    labels: {},
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
    pool: 'short-task' as const,
    taints: [],
  };
  const run = (partialData: string | null) =>
    returnIdleNodes({
      assignments: [
        { node: 'st-moved', from: 'short-task', to: 'short-task', reason: 'KeepPool', message: '' },
      ],
      nodes: [{ ...nodeInfo, name: 'st-moved' }],
      moved: new Map([['st-moved', '2026-12-01T08:00:00Z']]),
      emptySince: new Map([['st-moved', '2026-12-01T09:00:00Z']]),
      demandGpus: {},
      scalingUp: new Set(),
      returnAfterSeconds: 1800,
      partialData,
      now: new Date('2026-12-01T12:00:00Z'),
    })[0]!;

  it('returns on a whole answer', () =>
    expect(run(null)).toMatchObject({ to: 'unused', reason: 'ReturnedIdle' }));

  it('stays, naming the warning, on a partial one', () => {
    const a = run(WARNED);
    expect(a).toMatchObject({ to: 'short-task', reason: 'KeepPool' });
    expect(a.message).toBe(
      `stays short-task: no GPU pod for 10800 s (since 2026-12-01T09:00:00.000Z; pools.returnAfterSeconds 1800), but ${WARNED}: no node returns on a partial answer`,
    );
  });
});
