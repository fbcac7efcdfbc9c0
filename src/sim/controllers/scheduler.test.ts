import { describe, expect, it } from 'vitest';
import { gpuNode, gpuPodSpec, GPU_TOLERATION } from '../../../test/sim-behaviour/harness.js';
import type { KubeObject } from '../types.js';
import { placePod } from './scheduler.js';
import { schedulerView } from './scheduler-view.js';
import { effectiveRequest } from './pods.js';

function pod(spec: Record<string, unknown>, name = 'p'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns' },
    spec,
    status: { phase: 'Pending' },
  };
}
function bound(node: string, gpus: number, phase = 'Running', name = 'busy'): KubeObject {
  return { ...pod({ ...gpuPodSpec(gpus), nodeName: node }, name), status: { phase } };
}

const a = gpuNode('node-a', 4, { pool: 'x' });
const b = gpuNode('node-b', 8, { pool: 'y' });

describe('placePod', () => {
  const rows: {
    name: string;
    nodes: KubeObject[];
    running?: KubeObject[];
    spec: Record<string, unknown>;
    want: string | RegExp;
  }[] = [
    {
      name: 'picks the node with the most free GPUs (LeastAllocated)',
      nodes: [a, b],
      spec: gpuPodSpec(1),
      want: 'node-b',
    },
    {
      name: 'ties go to the first name',
      nodes: [gpuNode('n2', 4), gpuNode('n1', 4)].sort((x, y) =>
        x.metadata.name.localeCompare(y.metadata.name),
      ),
      spec: gpuPodSpec(1),
      want: 'n1',
    },
    {
      name: 'honours nodeSelector',
      nodes: [a, b],
      spec: gpuPodSpec(1, { nodeSelector: { pool: 'x' } }),
      want: 'node-a',
    },
    {
      name: 'selector mismatch everywhere is Unschedulable with the scheduler text',
      nodes: [a, b],
      spec: gpuPodSpec(1, { nodeSelector: { pool: 'z' } }),
      want: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    },
    {
      name: 'taint without toleration',
      nodes: [a],
      spec: { containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }] },
      want: '0/1 nodes are available: 1 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    },
    {
      name: 'Equal toleration with the wrong value does not tolerate',
      nodes: [a],
      spec: gpuPodSpec(1, {
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Equal', value: 'absent', effect: 'NoSchedule' }],
      }),
      want: /untolerated taint \{nvidia\.com\/gpu: present\}/,
    },
    {
      name: 'empty-key Exists toleration tolerates everything',
      nodes: [a],
      spec: gpuPodSpec(1, { tolerations: [{ operator: 'Exists' }] }),
      want: 'node-a',
    },
    {
      name: 'not enough free GPUs',
      nodes: [a],
      running: [bound('node-a', 3)],
      spec: gpuPodSpec(2),
      want: '0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    },
    {
      name: 'Succeeded and Failed pods hold no GPUs',
      nodes: [a],
      running: [bound('node-a', 3, 'Succeeded', 'x'), bound('node-a', 2, 'Failed', 'y')],
      spec: gpuPodSpec(4),
      want: 'node-a',
    },
    {
      name: 'cordoned node gets nothing',
      nodes: [gpuNode('c', 8, {}, { unschedulable: true })],
      spec: gpuPodSpec(1),
      want: /1 node\(s\) were unschedulable/,
    },
    {
      name: 'NotReady node gets nothing even without the lifecycle taint',
      nodes: [gpuNode('nr', 8, {}, { ready: 'Unknown' })],
      spec: gpuPodSpec(1),
      want: /untolerated taint \{node\.kubernetes\.io\/unreachable: \}/,
    },
    {
      name: 'NoExecute unreachable taint is not tolerated by a NoSchedule-only toleration',
      nodes: [
        gpuNode('u', 1, {}, { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] }),
      ],
      spec: {
        containers: [{ name: 'm' }],
        tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }],
      },
      want: /untolerated taint \{node\.kubernetes\.io\/unreachable: \}/,
    },
    {
      name: 'effective request with init containers: the init container needing 6 GPUs decides',
      nodes: [a, b],
      spec: {
        initContainers: [{ name: 'warm', resources: { limits: { 'nvidia.com/gpu': '6' } } }],
        containers: [{ name: 'main', resources: { limits: { 'nvidia.com/gpu': '1' } } }],
        tolerations: [GPU_TOLERATION],
        nodeSelector: { pool: 'x' },
      },
      want: /1 Insufficient nvidia\.com\/gpu/,
    },
    {
      name: 'reasons are counted and sorted',
      nodes: [a, b, gpuNode('c', 8, {}, { unschedulable: true })],
      running: [bound('node-b', 8)],
      spec: gpuPodSpec(5),
      want: '0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    },
    {
      name: 'required node affinity In',
      nodes: [a, b],
      spec: gpuPodSpec(1, {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['x'] }] }],
            },
          },
        },
      }),
      want: 'node-a',
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const got = placePod(pod(row.spec), schedulerView(row.nodes, row.running ?? []), 'LeastAllocated');
      if (row.want instanceof RegExp) expect(got.node === null ? got.message : got.node).toMatch(row.want);
      else expect(got.node === null ? got.message : got.node).toBe(row.want);
    });
  }

  it('MostAllocated packs onto the fullest node that fits', () => {
    const view = schedulerView([a, b], [bound('node-b', 5)]);
    // free: node-a 4, node-b 3
    expect(placePod(pod(gpuPodSpec(2)), view, 'MostAllocated')).toEqual({ node: 'node-b' });
    expect(placePod(pod(gpuPodSpec(4)), view, 'MostAllocated')).toEqual({ node: 'node-a' });
    expect(placePod(pod(gpuPodSpec(2)), view, 'LeastAllocated')).toEqual({ node: 'node-a' });
  });
});

describe('effectiveRequest', () => {
  it('is max(max init, sum of containers), with limits implying requests', () => {
    const spec = {
      initContainers: [
        { resources: { requests: { 'nvidia.com/gpu': '2' } } },
        { resources: { limits: { 'nvidia.com/gpu': '3' } } },
      ],
      containers: [
        { resources: { limits: { 'nvidia.com/gpu': '1' } } },
        { resources: { requests: { 'nvidia.com/gpu': '1' } } },
        { resources: {} },
      ],
    };
    expect(effectiveRequest(spec)).toBe(3);
    expect(effectiveRequest({ ...spec, initContainers: [] })).toBe(2);
  });
});
