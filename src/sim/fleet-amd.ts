/**
 * AMD Instinct nodes of a simulated fleet (`FleetOptions.amdNodes`), labelled as the AMD GPU
 * operator labels them: the device plugin's `amd.com/gpu`, the node labeller's `amd.com/gpu.*`
 * and Node Feature Discovery's `feature.node.kubernetes.io/amd-gpu` (the names of `AMD` in
 * `src/util/vocabulary.ts`), tainted `amd.com/gpu=present:NoSchedule` as AMD node groups are.
 * Eight MI300X per node (Azure `ND96isr_MI300X_v5`: 96 cores, 1.85 TiB).
 */
import { AMD, AMD_LABELLER } from '../util/index.js';
import type { KubeObject } from './types.js';

/** The product-name label value the AMD node labeller writes for an MI300X. */
export const MI300X_PRODUCT = 'AMD_Instinct_MI300X_OAM';

/**
 * One Ready AMD node named `name`, created at `created` (ISO-8601), with uid `uid`; `index`
 * spreads zones and addresses.
 */
export function amdNode(name: string, index: number, uid: string, created: string): KubeObject {
  const zone = `us-east-1${'abc'[index % 3]}`;
  const resources = {
    cpu: '95900m',
    'ephemeral-storage': '104845292Ki',
    memory: '1985000000Ki',
    pods: '110',
    [AMD.resource]: '8',
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid,
      creationTimestamp: created,
      labels: {
        'kubernetes.io/arch': 'amd64',
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'topology.kubernetes.io/zone': zone,
        'node.kubernetes.io/instance-type': 'ND96isr-MI300X-v5',
        [AMD.presentLabel]: 'true',
        [AMD.productLabel]: MI300X_PRODUCT,
        [AMD_LABELLER.family]: 'AI',
        [AMD_LABELLER.vram]: '192G',
        [AMD_LABELLER.deviceId]: '74a1',
      },
    },
    spec: { taints: [{ key: AMD.taintKey, value: 'present', effect: 'NoSchedule' }] },
    status: {
      capacity: { ...resources, cpu: '96' },
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
      addresses: [
        { type: 'InternalIP', address: `10.2.${(index >>> 8) & 255}.${index & 255}` },
        { type: 'Hostname', address: name },
      ],
    },
  };
}
