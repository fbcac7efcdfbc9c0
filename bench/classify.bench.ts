/**
 * Builds the snapshot and classifies 5,000 nodes with 50,000 pods (issue 3: < 200 ms, < 300 MB).
 * The cluster is generated here: a mix of products, some NotReady / cordoned / MIG / foreign-held
 * nodes, pods with init containers and finished pods, as a real dump would have.
 */
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { buildSnapshot } from '../src/cluster/snapshot.js';
import { assignPools } from '../src/pools/assign.js';
import type { Policy } from '../src/definitions/types.js';
import { medianMs, peakRssMb } from './measure.js';
import type { Figure } from './run.js';

const NODES = 5000;
const PODS = 50_000;
const PRODUCTS = ['NVIDIA-A100-SXM4-80GB', 'NVIDIA-H100-80GB-HBM3', 'Tesla-T4', 'NVIDIA-L4'];
const POOLS = ['test', 'unused', 'long-task', 'short-task'];

function generate(): { nodes: V1Node[]; pods: V1Pod[] } {
  const nodes: V1Node[] = [];
  for (let i = 0; i < NODES; i++) {
    const mig = i % 97 === 0;
    const labels: Record<string, string> = { 'nvidia.com/gpu.product': PRODUCTS[i % PRODUCTS.length]! };
    if (i % 3 === 0) labels['gpuops.dev/pool'] = POOLS[i % POOLS.length]!;
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: `gpu-${String(i).padStart(5, '0')}`, labels },
      spec: {
        unschedulable: i % 53 === 0,
        taints: [
          { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
          ...(i % 61 === 0 ? [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] : []),
        ],
      },
      status: {
        capacity: { cpu: '96', memory: '1Ti', 'nvidia.com/gpu': mig ? '0' : '8' },
        allocatable: mig
          ? { cpu: '95900m', memory: '1000Gi', 'nvidia.com/gpu': '0', 'nvidia.com/mig-1g.10gb': '56' }
          : { cpu: '95900m', memory: '1000Gi', 'nvidia.com/gpu': '8' },
        conditions: [{ type: 'Ready', status: i % 61 === 0 ? 'Unknown' : 'True' }],
      },
    } as V1Node);
  }
  const pods: V1Pod[] = [];
  for (let i = 0; i < PODS; i++) {
    const managed = i % 4 !== 0;
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `pod-${i}`,
        namespace: managed ? 'algorithms' : 'research',
        uid: `uid-${i}`,
        creationTimestamp: '2026-12-01T00:00:00Z' as unknown as Date,
        labels: managed
          ? { 'app.kubernetes.io/managed-by': 'gpuops', 'gpuops.dev/algorithm': `algo-${i % 200}` }
          : {},
      },
      spec: {
        nodeName: i % 50 === 0 ? undefined : `gpu-${String(i % NODES).padStart(5, '0')}`,
        initContainers:
          i % 10 === 0 ? [{ name: 'init', resources: { requests: { 'nvidia.com/gpu': '1' } } }] : [],
        containers: [
          {
            name: 'main',
            resources: { requests: { cpu: '4', 'nvidia.com/gpu': '1' }, limits: { 'nvidia.com/gpu': '1' } },
          },
          { name: 'sidecar', resources: { requests: { cpu: '100m' } } },
        ],
      },
      status: { phase: i % 50 === 0 ? 'Pending' : i % 17 === 0 ? 'Succeeded' : 'Running' },
    } as V1Pod);
  }
  return { nodes, pods };
}

const policy = {
  spec: {
    pools: {
      labelKey: 'gpuops.dev/pool',
      taint: { enabled: false, effect: 'NoSchedule' },
      test: { size: 4, perGPUProduct: true },
    },
  },
} as Pick<Policy, 'spec'> as Policy;

export default async function bench(): Promise<Figure[]> {
  const { nodes, pods } = generate();
  const now = new Date('2026-12-01T10:00:00Z');
  const work = () => assignPools(buildSnapshot(nodes, pods, now), policy);
  const ms = await medianMs(work, 5);
  // CPU time of one run: wall time on a shared 2-core machine swings with the load; this does not.
  const cpu0 = process.cpuUsage();
  work();
  const cpu = process.cpuUsage(cpu0);
  const { result, peakMb } = await peakRssMb(work);
  if (result.length !== NODES) throw new Error(`expected ${NODES} assignments, got ${result.length}`);
  return [
    { name: 'classify 5k nodes / 50k pods: time', value: ms, unit: 'ms', target: 200 },
    { name: 'classify 5k nodes / 50k pods: CPU time', value: (cpu.user + cpu.system) / 1000, unit: 'ms' },
    { name: 'classify 5k nodes / 50k pods: peak RSS', value: peakMb, unit: 'MB', target: 300 },
  ];
}
