/**
 * The replay's simulated fleet (pure): GPU nodes of one product, enough for static allocation's
 * largest instant plus one test node and spare nodes, as `kubectl get nodes -o json` would show
 * them (NVIDIA GPU Feature Discovery labels, allocatable `nvidia.com/gpu`, Ready).
 */
import type { KubeObject } from '../sim/index.js';
import { NVIDIA, NVIDIA_GFD } from '../util/index.js';

/** Options of {@link replayFleet}. */
export interface ReplayFleetOptions {
  /** GPUs the static allocation holds at most (pods × 1 GPU). */
  staticPeakGpus: number;
  /** GPUs per node; default 8 (an A100 SXM4 server). */
  gpusPerNode?: number;
  /** Nodes beyond the peak and the test node; default 1. */
  spareNodes?: number;
  /** `nvidia.com/gpu.product`; default `NVIDIA-A100-SXM4-80GB`. */
  product?: string;
}

/** The node count: ceil(peak / per node) + 1 test node + spare. */
export function fleetNodeCount(o: ReplayFleetOptions): number {
  const per = o.gpusPerNode ?? 8;
  return Math.ceil(o.staticPeakGpus / per) + 1 + (o.spareNodes ?? 1);
}

/** Node objects `gpu-000` … (see the module comment). */
export function replayFleet(o: ReplayFleetOptions): KubeObject[] {
  const per = o.gpusPerNode ?? 8;
  if (!Number.isInteger(per) || per < 1)
    throw new Error(`replay fleet: gpusPerNode: expected an integer ≥ 1, got ${per}`);
  const product = o.product ?? 'NVIDIA-A100-SXM4-80GB';
  const created = '2026-01-01T00:00:00Z';
  return Array.from({ length: fleetNodeCount(o) }, (_, i) => {
    const name = `gpu-${String(i).padStart(3, '0')}`;
    const resources = { cpu: '96', memory: '1152Gi', pods: '110', [NVIDIA.resource]: String(per) };
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        creationTimestamp: created,
        labels: {
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          [NVIDIA_GFD.present]: 'true',
          [NVIDIA.productLabel]: product,
          [NVIDIA_GFD.count]: String(per),
        },
      },
      spec: {},
      status: {
        capacity: resources,
        allocatable: resources,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: created,
            lastTransitionTime: created,
          },
        ],
      },
    };
  });
}
