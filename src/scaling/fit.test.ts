import { describe, expect, it } from 'vitest';
import {
  describeRequest,
  insufficient,
  replicasThatFit,
  specRequest,
  takeRoom,
  type NodeRoom,
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
