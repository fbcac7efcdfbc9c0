import { describe, expect, it } from 'vitest';
import {
  describeRequest,
  effectiveGpus,
  insufficient,
  replicasThatFit,
  specRequest,
  takeRoom,
  templateRequest,
  type NodeRoom,
  type PodRequest,
} from './fit.js';

const GI = 2 ** 30;
/** A node with `gpus` free GPUs and `cpu` cores, `memGi` Gi and `pods` slots left. */
const room = (gpus: number, cpu: number, memGi: number, pods = 110): NodeRoom => ({
  freeGpus: gpus,
  free: { cpuMillis: cpu * 1000, memoryBytes: memGi * GI, pods },
});
const REPLICA = { gpus: 1, cpuMillis: 4000, memoryBytes: 16 * GI };

describe('replicasThatFit: every request the scheduler checks', () => {
  it.each<[string, NodeRoom, number, string[]]>([
    ['GpusFreeButNoCpu (F06 gpu-s1)', room(2, 0, 32), 0, ['Insufficient cpu']],
    [
      'CpuShortByOneMillicore',
      { ...room(2, 0, 32), free: { cpuMillis: 3999, memoryBytes: 32 * GI, pods: 110 } },
      0,
      ['Insufficient cpu'],
    ],
    ['ExactlyOneReplicaOfCpu', room(2, 4, 32), 1, []],
    ['CpuForTwoGpusForFour', room(4, 8, 256), 2, []],
    ['MemoryShort', room(4, 32, 15), 0, ['Insufficient memory']],
    ['ExactlyOneReplicaOfMemory', room(4, 32, 16), 1, []],
    ['NoPodSlotLeft', room(4, 32, 256, 0), 0, ['Too many pods']],
    ['OnePodSlotLeft', room(4, 32, 256, 1), 1, []],
    ['GpusTheLimit (F06 gpu-u1)', room(4, 32, 256), 4, []],
    ['NoGpuFree', room(0, 32, 256), 0, ['Insufficient nvidia.com/gpu']],
    ['OverCommittedNode', room(2, -2, -1), 0, ['Insufficient cpu', 'Insufficient memory']],
  ])('%s', (_name, r, want, why) => {
    expect(replicasThatFit(r, REPLICA)).toBe(want);
    expect(insufficient(r, REPLICA)).toEqual(why);
  });

  it('a resource the pod does not request never limits it', () => {
    expect(replicasThatFit(room(3, 0, 0), { gpus: 1, cpuMillis: 0, memoryBytes: 0 })).toBe(3);
    expect(insufficient(room(3, 0, 0), { gpus: 1, cpuMillis: 0, memoryBytes: 0 })).toEqual([]);
  });

  it.each<[string, NodeRoom, { gpus: number; cpuMillis: number; memoryBytes: number }, string[]]>([
    // An over-committed node (free < 0) still takes a pod that asks no cpu or memory.
    ['NoCpuAskedOnAnOverCommittedNode', room(1, -1, -1), { gpus: 1, cpuMillis: 0, memoryBytes: 0 }, []],
    ['ExactlyTheGpusFree', room(2, 32, 256), { gpus: 2, cpuMillis: 0, memoryBytes: 0 }, []],
    [
      'OneGpuShortOfTwo',
      room(1, 32, 256),
      { gpus: 2, cpuMillis: 0, memoryBytes: 0 },
      ['Insufficient nvidia.com/gpu'],
    ],
  ])('insufficient: %s', (_name, r, request, why) => {
    expect(insufficient(r, request)).toEqual(why);
  });

  it('a replica of 2 GPUs on 3 free GPUs: one (a pod never spans nodes)', () => {
    expect(replicasThatFit(room(3, 96, 1000), { gpus: 2, cpuMillis: 1000, memoryBytes: GI })).toBe(1);
  });
});

describe('specRequest: the spec’s quantities in the scheduler’s units', () => {
  it.each<[string, { gpus: number; cpu?: string; memory?: string }, [number, number, number]]>([
    ['Cores', { gpus: 1, cpu: '4', memory: '16Gi' }, [1, 4000, 16 * GI]],
    ['Millicores', { gpus: 2, cpu: '500m', memory: '512Mi' }, [2, 500, 512 * 2 ** 20]],
    ['DecimalSuffix', { gpus: 1, cpu: '1.5', memory: '1G' }, [1, 1500, 1e9]],
    ['NoCpuNoMemory', { gpus: 1 }, [1, 0, 0]],
  ])('%s', (_name, resources, [gpus, cpuMillis, memoryBytes]) => {
    expect(specRequest({ spec: { image: 'x', resources } })).toEqual({ gpus, cpuMillis, memoryBytes });
  });
});

describe('takeRoom and describeRequest', () => {
  it('two replicas taken from gpu-u1 leave 2 GPUs, 24 cpu, 224Gi, 108 pods; the argument is unchanged', () => {
    const u1 = room(4, 32, 256);
    expect(takeRoom(u1, REPLICA, 2)).toEqual(room(2, 24, 224, 108));
    expect(u1).toEqual(room(4, 32, 256));
  });

  it('messages show what the replica asks', () => {
    expect(describeRequest(REPLICA)).toBe('1 GPU, 4 cpu, 16Gi');
    expect(describeRequest({ gpus: 2, cpuMillis: 500, memoryBytes: 0 })).toBe('2 GPUs, 500m cpu');
  });

  it.each<[string, number, number, string]>([
    ['NoCpuAsked', 0, 16 * GI, '1 GPU, 16Gi'],
    ['WholeGi', 1000, GI, '1 GPU, 1 cpu, 1Gi'],
    ['HalfAGiIsMi', 1000, 512 * 2 ** 20, '1 GPU, 1 cpu, 512Mi'],
    ['NotWholeMiIsBytes', 1000, 1_000_000, '1 GPU, 1 cpu, 1000000 bytes'],
    ['NoMemoryAsked', 2000, 0, '1 GPU, 2 cpu'],
  ])('describeRequest: %s', (_name, cpuMillis, memoryBytes, want) => {
    expect(describeRequest({ gpus: 1, cpuMillis, memoryBytes })).toBe(want);
  });
});

describe('resources beyond GPUs, cpu and memory (ephemeral-storage, hugepages, extended resources)', () => {
  const FPGA = 'example.com/fpga';
  const withOther = (other?: Record<string, number>, pods = 110): NodeRoom => ({
    freeGpus: 4,
    free: { cpuMillis: 96_000, memoryBytes: 1000 * GI, pods, ...(other ? { other } : {}) },
  });
  const asks = (other: Record<string, number>): PodRequest => ({
    gpus: 1,
    cpuMillis: 0,
    memoryBytes: 0,
    other,
  });

  it.each<[string, NodeRoom, PodRequest, number, string[]]>([
    ['two FPGAs left for one each: 2', withOther({ [FPGA]: 2 }), asks({ [FPGA]: 1 }), 2, []],
    ['exactly one left: 1', withOther({ [FPGA]: 1 }), asks({ [FPGA]: 1 }), 1, []],
    ['one short: 0', withOther({ [FPGA]: 1 }), asks({ [FPGA]: 2 }), 0, [`Insufficient ${FPGA}`]],
    [
      'a node that lists no such resource has none',
      withOther({ other: 5 }),
      asks({ [FPGA]: 1 }),
      0,
      [`Insufficient ${FPGA}`],
    ],
    [
      'a node that lists no other resource at all has none',
      withOther(),
      asks({ [FPGA]: 1 }),
      0,
      [`Insufficient ${FPGA}`],
    ],
    ['a request of 0 never limits', withOther(), asks({ [FPGA]: 0 }), 4, []],
    // UNKNOWN_ROOM: a record without any room is unbounded, whatever it asks.
    ['a room of unknown size', withOther(undefined, Infinity), asks({ [FPGA]: 3 }), 4, []],
    [
      'each short resource named, in name order',
      withOther({ 'ephemeral-storage': GI }),
      asks({ 'hugepages-2Mi': 2 ** 21, 'ephemeral-storage': 2 * GI, [FPGA]: 1 }),
      0,
      ['Insufficient ephemeral-storage', `Insufficient ${FPGA}`, 'Insufficient hugepages-2Mi'],
    ],
  ])('%s', (_name, r, request, fits, why) => {
    expect(replicasThatFit(r, request)).toBe(fits);
    expect(insufficient(r, request)).toEqual(why);
  });

  it('takeRoom takes the other resources too, and keeps those the pod does not ask', () => {
    expect(
      takeRoom(withOther({ [FPGA]: 3, 'ephemeral-storage': GI }), asks({ [FPGA]: 1 }), 2).free.other,
    ).toEqual({
      [FPGA]: 1,
      'ephemeral-storage': GI,
    });
    expect(takeRoom(withOther(), asks({ [FPGA]: 2 }), 1).free.other).toEqual({ [FPGA]: -2 });
    expect(takeRoom(withOther({ [FPGA]: 3 }), REPLICA, 2).free.other).toEqual({ [FPGA]: 3 });
    expect(takeRoom(withOther(), REPLICA, 2).free.other).toBeUndefined();
  });

  it('describeRequest shows bytes for storage and hugepages, counts for the rest', () => {
    expect(
      describeRequest({
        ...REPLICA,
        other: {
          'ephemeral-storage': 10 * GI,
          'hugepages-2Mi': 4 * 2 ** 20,
          [FPGA]: 2,
          'example.com/storage': 3 * GI,
        },
      }),
    ).toBe(
      '1 GPU, 4 cpu, 16Gi, 10Gi ephemeral-storage, 4Mi hugepages-2Mi, 2 example.com/fpga, 3Gi example.com/storage',
    );
  });
});

describe("templateRequest and effectiveGpus: a Deployment's pod template", () => {
  const container = (requests: Record<string, string>, name = 'main') => ({ name, resources: { requests } });
  it.each<[string, unknown, PodRequest | null]>([
    ['no spec', undefined, null],
    ['no containers', {}, null],
    ['an empty list of containers', { containers: [] }, null],
    [
      'NVIDIA GPUs, cpu and memory',
      { containers: [container({ 'nvidia.com/gpu': '2', cpu: '1500m', memory: '8Gi' })] },
      { gpus: 2, cpuMillis: 1500, memoryBytes: 8 * GI },
    ],
    [
      'AMD GPUs',
      { containers: [container({ 'amd.com/gpu': '1' })] },
      { gpus: 1, gpuResource: 'amd.com/gpu', cpuMillis: 0, memoryBytes: 0 },
    ],
    [
      'no GPU asked: at least one',
      { containers: [container({ cpu: '2' })] },
      { gpus: 1, cpuMillis: 2000, memoryBytes: 0 },
    ],
    [
      'a quantity that cannot be read counts 0',
      { containers: [container({ 'nvidia.com/gpu': '1', cpu: 'lots' })] },
      { gpus: 1, cpuMillis: 0, memoryBytes: 0 },
    ],
    [
      'other resources',
      { containers: [container({ 'nvidia.com/gpu': '1', 'example.com/fpga': '2' })] },
      { gpus: 1, cpuMillis: 0, memoryBytes: 0, other: { 'example.com/fpga': 2 } },
    ],
  ])('%s', (_name, spec, want) => {
    expect(templateRequest(spec)).toEqual(want);
  });

  it.each<[string, unknown, number]>([
    ['no spec', undefined, 0],
    ['no GPU', { containers: [container({ cpu: '1' })] }, 0],
    ['AMD GPUs', { containers: [container({ 'amd.com/gpu': '3' })] }, 3],
    ['a fraction rounds up', { containers: [container({ 'nvidia.com/gpu': '1500m' })] }, 2],
  ])('effectiveGpus: %s', (_name, spec, want) => {
    expect(effectiveGpus(spec)).toBe(want);
  });
});
