import type { NodeInfo } from '../../src/cluster/types.js';

/**
 * A healthy, empty, schedulable 8-GPU node in no pool (the shape `cluster/snapshot.ts` reads from a
 * Node), for table tests: each row overrides only what it is about. The GPU product defaults to
 * `NVIDIA-A100-SXM4-80GB` (the `nvidia.com/gpu.product` label value).
 */
export function nodeInfo(name: string, over: Partial<NodeInfo> = {}): NodeInfo {
  return {
    name,
    labels: {},
    ready: true,
    cordoned: false,
    schedulable: true,
    gpuProduct: 'NVIDIA-A100-SXM4-80GB',
    gpuCapacity: 8,
    gpuAllocatable: 8,
    migAllocatable: 0,
    allocatable: { cpuMillis: 96_000, memoryBytes: 1000 * 2 ** 30, pods: 110 },
    requested: { cpuMillis: 0, memoryBytes: 0, pods: 0 },
    gpuRequested: 0,
    foreignGpuRequested: 0,
    managedPods: 0,
    pool: null,
    taints: [],
    ...over,
  };
}
