/**
 * Two parts of deciding one algorithm, row by row: a rule's message said in the terms of the
 * algorithm's signal (`inSignalTerms`), and the pool's room the rules read (`Facts.poolSlots`:
 * what the placer is asked for, less the replicas and surge pods not bound yet).
 */
import { describe, expect, it } from 'vitest';
import { baseInput, factsOf, pod } from '../../test/scaling/support.js';
import { inSignalTerms } from './decide-one.js';
import type { ResolvedSignal } from '../definitions/index.js';
import type { Placer, ScalingInput } from './types.js';

describe('inSignalTerms', () => {
  const msg = 'utilisation 90% over 3 of 3 Ready pod(s) > max 80%';
  it.each<[string, ResolvedSignal, string]>([
    ['gpuUtil: as the rules say it', { kind: 'gpuUtil', unit: '%' }, msg],
    [
      'gpuEngineActive: its own word, still percent',
      { kind: 'gpuEngineActive', unit: '%' },
      'GPU engine activity 90% over 3 of 3 Ready pod(s) > max 80%',
    ],
    ['gpuMemory', { kind: 'gpuMemory', unit: '%' }, 'GPU memory use 90% over 3 of 3 Ready pod(s) > max 80%'],
    [
      'a service metric: its name, and its unit for every percent',
      { kind: 'serviceMetric', unit: 'requests', serviceMetric: { name: 'vllm-waiting' } as never },
      'vllm-waiting 90 requests over 3 of 3 Ready pod(s) > max 80 requests',
    ],
    [
      'a service metric without its policy entry',
      { kind: 'serviceMetric', unit: 'rps' },
      'service metric 90 rps over 3 of 3 Ready pod(s) > max 80 rps',
    ],
  ])('%s', (_, signal, want) => {
    expect(inSignalTerms(msg, signal)).toBe(want);
  });
});

describe('Facts.poolSlots', () => {
  /** The limits the placer was asked for, and the slots the rules read, with a placer of `room` replicas. */
  function withPlacer(change: Partial<ScalingInput>, room = 10): { limits: number[]; slots: number } {
    const limits: number[] = [];
    // Only `slots` is read for the room; the rest of a placer is not called here.
    const placer = {
      key: 'k',
      slots: (_n: unknown, _p: unknown, limit: number) => (limits.push(limit), room),
      place: () => new Map(),
    } as unknown as Placer;
    const slots = factsOf({ ...baseInput(), ...change, placer }).poolSlots;
    return { limits, slots };
  }
  const pods = baseInput().pods;
  const extra = (nodeName: string | null) => pod('resnet50-infer-7d9f-3', { nodeName });

  it.each<[string, Partial<ScalingInput>, number[], number]>([
    // limit = outstanding + surge pods not bound + (maxReplicas − replicas, ≥ 0) + 1
    ['3 replicas all bound, maxReplicas 8', {}, [6], 10],
    ['a fourth replica in Git not bound yet', { replicas: 4, pods: [...pods, extra(null)] }, [6], 9],
    ['a fourth replica in Git, no pod yet', { replicas: 4 }, [6], 9],
    ['a surge pod not bound yet', { pods: [...pods, extra(null)] }, [7], 9],
    ['a surge pod bound', { pods: [...pods, extra('lt-1')] }, [6], 10],
    ['replicas above maxReplicas', { replicas: 10, pods: [] }, [11], 0],
  ])('%s', (_, change, limits, slots) => {
    expect(withPlacer(change)).toEqual({ limits, slots });
  });

  it('a surge pod takes only room that is left; the outstanding replicas may leave less than none', () => {
    expect(withPlacer({ pods: [...pods, extra(null)] }, 0).slots).toBe(0);
    expect(withPlacer({ replicas: 5 }, 1).slots).toBe(-1);
  });

  it('without a placer: the pool nodes’ free GPUs per replica (2 of 1 GPU)', () => {
    expect(factsOf(baseInput()).poolSlots).toBe(2);
  });
});
