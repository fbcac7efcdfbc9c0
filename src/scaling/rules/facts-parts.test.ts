/**
 * The parts of the facts built apart from `scalingFacts` for speed: `sampledFacts` (what a pool's
 * summed load reads) and `withScaling` (a scale-down's facts) give exactly what the whole facts
 * and a spread give, on pods that are not Ready, not counted, without a sample or sampled twice.
 */
import { describe, expect, it } from 'vitest';
import { baseInput, pod, policyNoWindows, RULE_NOW, sample } from '../../../test/scaling/support.js';
import { scalingFacts, type Facts } from './facts.js';
import { FACTS_FIELDS, withScaling } from './headroom.js';
import { sampledFacts } from './ready-samples.js';
import type { ScalingInput } from '../types.js';

const p = policyNoWindows();

/** Three counted pods (one not Ready), a fourth beyond the replicas, samples out of order, one twice. */
function mixed(): ScalingInput {
  const input = baseInput([40, 50, 60]);
  return {
    ...input,
    pods: [
      input.pods[0]!,
      { ...input.pods[1]!, ready: false },
      input.pods[2]!,
      pod('resnet50-infer-7d9f-3', { createdAt: '2025-02-01T00:00:00Z' }),
    ],
    samples: [
      sample('resnet50-infer-7d9f-2', 60),
      sample('resnet50-infer-7d9f-0', 10),
      sample('resnet50-infer-7d9f-1', 99),
      sample('resnet50-infer-7d9f-0', 40),
      { ...sample('resnet50-infer-7d9f-2', 70), namespace: 'other' },
    ],
    request: { gpus: 2, cpuMillis: 0, memoryBytes: 0 },
  };
}

describe('sampledFacts', () => {
  it('the Ready counted pods’ samples, in their order, the last of a pod’s twice, and the GPUs per pod', () => {
    const input = mixed();
    const part = sampledFacts(input);
    const whole = scalingFacts(input, p, RULE_NOW);
    expect(part).toEqual({ sampled: whole.sampled, gpus: whole.gpus });
    // Pod 3 ranks after the three replicas (created later) and pod 1 is not Ready; pod 0's later sample wins.
    expect(part.sampled.map((x) => [x.pod, x.utilization])).toEqual([
      ['resnet50-infer-7d9f-0', 40],
      ['resnet50-infer-7d9f-2', 60],
    ]);
    expect(part.gpus).toBe(2);
  });

  it('no sample for a pod of another namespace', () => {
    const input = { ...mixed(), samples: [{ ...sample('resnet50-infer-7d9f-0', 40), namespace: 'other' }] };
    expect(sampledFacts(input).sampled).toEqual([]);
    expect(scalingFacts(input, p, RULE_NOW).sampled).toEqual([]);
  });
});

describe('withScaling', () => {
  it('is the spread with the scaling and bounds replaced, the pool’s room read through', () => {
    const f = scalingFacts(mixed(), p, RULE_NOW);
    const scaling = { ...f.scaling, headroomFactor: 7 };
    const bounds = { ...f.bounds, headroomDownMargin: 0.5 };
    const d = withScaling(f, scaling, bounds);
    const spread: Facts = { ...f, scaling, bounds };
    expect({ ...d, poolSlots: d.poolSlots }).toEqual({ ...spread, poolSlots: spread.poolSlots });
    expect(Object.keys(d).sort()).toEqual(Object.keys(f).sort());
    expect(d.scaling.headroomFactor).toBe(7);
    expect(f.scaling.headroomFactor).not.toBe(7);
  });
});

describe('withScaling keeps every field of the facts', () => {
  it('each field FACTS_FIELDS names (tsc: all of Facts), set to a value of its own, is kept as it is', () => {
    // A value no other field holds (a symbol per field): a field dropped, or copied from another, shows.
    const fields = Object.keys(FACTS_FIELDS) as (keyof Facts)[];
    const f = Object.fromEntries(fields.map((k) => [k, Symbol(k)])) as unknown as Facts;
    const scaling = { headroomFactor: 7 } as unknown as Facts['scaling'];
    const bounds = { headroomDownMargin: 0.5 } as unknown as Facts['bounds'];
    const d = withScaling(f, scaling, bounds);
    const kept = Object.fromEntries(fields.map((k) => [k, d[k]]));
    const want = Object.fromEntries(
      fields.map((k) => [k, k === 'scaling' ? scaling : k === 'bounds' ? bounds : f[k]]),
    );
    expect(kept).toEqual(want);
    expect(Object.keys(d).sort()).toEqual([...fields].sort());
  });
});
