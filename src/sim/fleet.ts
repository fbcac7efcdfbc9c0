/**
 * A generated GPU fleet: `kubectl get nodes -o json` / `kubectl get pods -A -o json` look-alikes
 * for the demo and the large benchmarks. Deterministic (same options → same objects, byte for
 * byte) and fast (2,000 nodes and 20,000 pods in well under a second).
 *
 * GPU nodes are AWS instance types with NVIDIA GPU Feature Discovery labels
 * (`nvidia.com/gpu.product`, `nvidia.com/gpu.count`, `nvidia.com/gpu.memory`, …) and the GPU
 * Operator's taint `nvidia.com/gpu=present:NoSchedule`, in a mix of
 * T4 (g4dn: 1, 4 or 8 GPUs), A100 (p4d/p4de: 8) and H100 (p5: 8). Every node runs the usual
 * DaemonSet pods (kube-proxy, aws-node, …; on GPU nodes also the device plugin, GFD and
 * dcgm-exporter, whose pod name is what dcgm pages report as `Hostname`).
 *
 * Traps, as in `fixtures/cluster-mixed` (with `traps`, on fleets of ≥ 5 GPU nodes, at least one of
 * each; nodes chosen by the seed, never two traps on one node):
 * - cordoned nodes (`spec.unschedulable`, the unschedulable taint) ~2 %;
 * - NotReady nodes (Ready `Unknown`, the unreachable taints) ~1 %;
 * - MIG `mixed` nodes on A100/H100 (`nvidia.com/gpu: 0`, `nvidia.com/mig-1g.10gb` slices) ~2 %;
 * - an unhealthy device plugin (capacity N, allocatable 0) ~1 %, from 10 GPU nodes on;
 * - foreign GPU workloads (pods gpuops does not manage holding half of a node's GPUs, one with a
 *   second container that requests none) on ~15 % of the healthy GPU nodes;
 * - one Pending foreign pod with no node (asks for more GPUs than any node has free).
 */
import { fnv32a, nameSuffix } from './controllers/names.js';
import { prng } from '../util/index.js';
import type { KubeObject } from './types.js';
import { amdNode } from './fleet-amd.js';

/** Options of {@link generateFleet}. */
export interface FleetOptions {
  /** GPU nodes (≥ 0). */
  gpuNodes: number;
  /** CPU-only system nodes; default max(2, ceil(gpuNodes / 20)). */
  cpuNodes?: number;
  /** Pods per node, DaemonSet pods included (≥ 0); default 10. */
  podsPerNode?: number;
  /** PRNG seed; default 1. */
  seed?: number;
  /** Include the traps listed above; default true. */
  traps?: boolean;
  /** Base of creation timestamps; default `2026-11-01T00:00:00Z`. */
  createdAt?: string;
  /** AMD Instinct MI300X nodes (`amd-mi300x-0001`, …, see `fleet-amd.ts`) beside the NVIDIA ones; default 0. */
  amdNodes?: number;
}

/** A `kind: List`-style result as kubectl prints it. */
export interface ObjectList {
  apiVersion: 'v1';
  kind: 'NodeList' | 'PodList';
  metadata: { resourceVersion: string };
  items: KubeObject[];
}

/** The generated fleet, plus which nodes carry which trap (for tests and the demo). */
export interface Fleet {
  nodes: ObjectList;
  pods: ObjectList;
  traps: {
    cordoned: string[];
    notReady: string[];
    mig: string[];
    unhealthyDevicePlugin: string[];
    foreignWorkload: string[];
  };
}

interface Shape {
  short: string;
  product: string;
  instance: string;
  gpus: number;
  memoryMiB: number;
  family: string;
  cpu: number;
  memKi: number;
  weight: number;
}

const SHAPES: Shape[] = [
  {
    short: 't4',
    product: 'Tesla-T4',
    instance: 'g4dn.xlarge',
    gpus: 1,
    memoryMiB: 15360,
    family: 'turing',
    cpu: 4,
    memKi: 16012672,
    weight: 15,
  },
  {
    short: 't4',
    product: 'Tesla-T4',
    instance: 'g4dn.12xlarge',
    gpus: 4,
    memoryMiB: 15360,
    family: 'turing',
    cpu: 48,
    memKi: 195784836,
    weight: 15,
  },
  {
    short: 't4',
    product: 'Tesla-T4',
    instance: 'g4dn.metal',
    gpus: 8,
    memoryMiB: 15360,
    family: 'turing',
    cpu: 96,
    memKi: 393216000,
    weight: 5,
  },
  {
    short: 'a100',
    product: 'NVIDIA-A100-SXM4-40GB',
    instance: 'p4d.24xlarge',
    gpus: 8,
    memoryMiB: 40960,
    family: 'ampere',
    cpu: 96,
    memKi: 1176546436,
    weight: 15,
  },
  {
    short: 'a100',
    product: 'NVIDIA-A100-SXM4-80GB',
    instance: 'p4de.24xlarge',
    gpus: 8,
    memoryMiB: 81920,
    family: 'ampere',
    cpu: 96,
    memKi: 1176546436,
    weight: 25,
  },
  {
    short: 'h100',
    product: 'NVIDIA-H100-80GB-HBM3',
    instance: 'p5.48xlarge',
    gpus: 8,
    memoryMiB: 81559,
    family: 'hopper',
    cpu: 192,
    memKi: 2113256472,
    weight: 25,
  },
];
const TOTAL_WEIGHT = SHAPES.reduce((s, x) => s + x.weight, 0);

const DAEMONSETS_ALL: [string, string][] = [
  ['kube-system', 'kube-proxy'],
  ['kube-system', 'aws-node'],
  ['kube-system', 'ebs-csi-node'],
  ['logging', 'fluent-bit'],
  ['monitoring', 'node-exporter'],
];
const DAEMONSETS_GPU: [string, string][] = [
  ['gpu-operator', 'nvidia-dcgm-exporter'],
  ['gpu-operator', 'nvidia-device-plugin-daemonset'],
  ['gpu-operator', 'gpu-feature-discovery'],
  ['gpu-operator', 'nvidia-container-toolkit-daemonset'],
];
const EXTRA_DAEMONSETS: [string, string][] = [
  ['kube-system', 'efs-csi-node'],
  ['security', 'falco'],
  ['kube-system', 'secrets-store-csi-driver'],
  ['monitoring', 'datadog-agent'],
  ['istio-system', 'ztunnel'],
];
const CPU_WORKLOADS: [string, string][] = [
  ['kube-system', 'coredns'],
  ['argocd', 'argocd-repo-server'],
  ['web', 'storefront'],
  ['web', 'checkout'],
  ['monitoring', 'prometheus-server'],
  ['data', 'airflow-worker'],
];

/** Freezes an object and everything in it; returns it. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Parts many pods share: frozen, so a caller that wants to change a pod must copy it first (the
 * simulator's store copies on create). Sharing keeps a 20,000-pod fleet cheap to build.
 */
const RUNNING_CONDITIONS: Record<string, string>[] = deepFreeze([
  { type: 'Initialized', status: 'True' },
  { type: 'Ready', status: 'True' },
  { type: 'ContainersReady', status: 'True' },
  { type: 'PodScheduled', status: 'True' },
]);
const TOLERATE_ALL: Record<string, string>[] = deepFreeze([{ operator: 'Exists' }]);

/** RFC 3339 without milliseconds, memoised per fleet (a fleet reuses a few thousand seconds). */
function isoFormatter(): (ms: number) => string {
  const cache = new Map<number, string>();
  return (ms) => {
    let text = cache.get(ms);
    if (text === undefined) {
      text = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
      cache.set(ms, text);
    }
    return text;
  };
}

function trapCount(enabled: boolean, nodes: number, fraction: number, minNodes = 5): number {
  if (!enabled || nodes < minNodes) return 0;
  return Math.max(1, Math.round(nodes * fraction));
}

/**
 * Generates the fleet. @throws Error naming the option when a count is negative or not an
 * integer.
 */
export function generateFleet(options: FleetOptions): Fleet {
  const count = (name: string, v: number | undefined, dflt: number): number => {
    const n = v ?? dflt;
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`generateFleet: ${name}: expected an integer ≥ 0, got ${v}`);
    return n;
  };
  const gpuNodes = count('gpuNodes', options.gpuNodes, 0);
  const cpuNodes = count('cpuNodes', options.cpuNodes, Math.max(2, Math.ceil(gpuNodes / 20)));
  const podsPerNode = count('podsPerNode', options.podsPerNode, 10);
  const amdNodes = count('amdNodes', options.amdNodes, 0);
  const seed = options.seed ?? 1;
  const traps = options.traps ?? true;
  const baseMs = Date.parse(options.createdAt ?? '2026-11-01T00:00:00Z');
  if (Number.isNaN(baseMs)) throw new Error(`generateFleet: createdAt: invalid time ${options.createdAt}`);
  const rand = prng(seed);
  const iso = isoFormatter();
  // UIDs: a per-seed prefix and a serial number, in generation order (deterministic, and much
  // cheaper than hashing 40,000 names); an owner's uid is shared by all its pods.
  const uidPrefix = fnv32a(`fleet/${seed}`).toString(16).padStart(8, '0');
  let uidSerial = 0;
  const nextUid = (): string => `${uidPrefix}-0000-4000-8000-${(uidSerial++).toString(16).padStart(12, '0')}`;
  const ownerUids = new Map<string, string>();
  const ownerUid = (key: string): string => {
    let u = ownerUids.get(key);
    if (u === undefined) ownerUids.set(key, (u = nextUid()));
    return u;
  };

  // Shapes and names.
  const perShort = new Map<string, number>();
  const gpu = Array.from({ length: gpuNodes }, () => {
    let r = rand() * TOTAL_WEIGHT;
    const shape = SHAPES.find((s) => (r -= s.weight) < 0) ?? SHAPES[SHAPES.length - 1]!;
    const n = (perShort.get(shape.short) ?? 0) + 1;
    perShort.set(shape.short, n);
    return { shape, name: `gpu-${shape.short}-${String(n).padStart(4, '0')}` };
  });

  // Trap assignment: a seeded shuffle of node indices, sliced.
  const order = gpu.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const trapOf = new Map<number, 'cordoned' | 'notReady' | 'mig' | 'unhealthy' | 'foreign'>();
  let cursor = 0;
  const take = (
    kind: 'cordoned' | 'notReady' | 'mig' | 'unhealthy' | 'foreign',
    n: number,
    ok: (i: number) => boolean = () => true,
  ): void => {
    let got = 0;
    for (let k = cursor; k < order.length && got < n; k++) {
      const i = order[k]!;
      if (trapOf.has(i) || !ok(i)) continue;
      trapOf.set(i, kind);
      got++;
    }
    cursor = 0;
  };
  take('cordoned', trapCount(traps, gpuNodes, 0.02));
  take('notReady', trapCount(traps, gpuNodes, 0.01));
  take('mig', trapCount(traps, gpuNodes, 0.02), (i) => gpu[i]!.shape.short !== 't4');
  take('unhealthy', trapCount(traps, gpuNodes, 0.01, 10), (i) => gpu[i]!.shape.gpus > 1);
  take('foreign', trapCount(traps, gpuNodes, 0.15));

  const nodes: KubeObject[] = [];
  const pods: KubeObject[] = [];
  const result: Fleet['traps'] = {
    cordoned: [],
    notReady: [],
    mig: [],
    unhealthyDevicePlugin: [],
    foreignWorkload: [],
  };
  let podSerial = 0;
  const podStart = baseMs + 3600_000;
  // Pod names taken, per namespace. A 5-character suffix from a 32-bit hash collides now and then
  // (about 4 times among 10,000 pods of one DaemonSet): like the API server's `generateName`,
  // which retries on a conflict, the next suffix of the same seed is taken (`seed#1`, `seed#2`, …),
  // so names stay unique and the same for the same options.
  const taken = new Set<string>();
  const generated = (ns: string, prefix: string, seed: string): string => {
    for (let k = 0; ; k++) {
      const name = `${prefix}-${nameSuffix(k === 0 ? seed : `${seed}#${k}`)}`;
      if (!taken.has(`${ns}/${name}`)) return name;
    }
  };

  const addPod = (
    ns: string,
    name: string,
    nodeName: string | undefined,
    labels: Record<string, string>,
    owner: { kind: string; name: string; apiVersion: string },
    containers: unknown[],
    extra: Record<string, unknown> = {},
  ): void => {
    if (taken.has(`${ns}/${name}`)) throw new Error(`generateFleet: pod ${ns}/${name} generated twice`);
    taken.add(`${ns}/${name}`);
    const created = podStart + (podSerial++ % 3600) * 1000;
    const running = nodeName !== undefined;
    const statuses = (containers as { name: string; image: string }[]).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: '',
      containerID: `containerd://${uidPrefix}${(uidSerial++).toString(16).padStart(56, '0')}`,
      ready: true,
      restartCount: 0,
      started: true,
      state: { running: { startedAt: iso(created + 20_000) } },
    }));
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: ns,
        uid: nextUid(),
        creationTimestamp: iso(created),
        labels,
        ownerReferences: [
          {
            ...owner,
            uid: ownerUid(`${owner.kind}/${ns}/${owner.name}`),
            controller: true,
            blockOwnerDeletion: true,
          } as NonNullable<KubeObject['metadata']['ownerReferences']>[number],
        ],
      },
      spec: {
        containers,
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        ...(running ? { nodeName } : {}),
        ...extra,
      },
      status: running
        ? {
            phase: 'Running',
            conditions: RUNNING_CONDITIONS,
            containerStatuses: statuses,
            podIP: `10.${(podSerial >>> 16) & 255}.${(podSerial >>> 8) & 255}.${podSerial & 255}`,
            startTime: iso(created + 2000),
          }
        : {
            phase: 'Pending',
            conditions: [
              {
                type: 'PodScheduled',
                status: 'False',
                reason: 'Unschedulable',
                message: 'no node has enough free nvidia.com/gpu',
                lastTransitionTime: iso(created),
                lastProbeTime: null,
              },
            ],
          },
    });
  };

  const dsContainers = new Map<string, unknown[]>();
  const daemonContainers = (ds: string): unknown[] => {
    let c = dsContainers.get(ds);
    if (!c) {
      const container = {
        name: ds.replace(/-daemonset$/, ''),
        image: `registry.k8s.io/${ds}:v1.0.0`,
        resources: { requests: { cpu: '50m', memory: '64Mi' } },
      };
      c = deepFreeze([container]);
      dsContainers.set(ds, c);
    }
    return c;
  };
  const daemonPods = (nodeName: string, sets: [string, string][], n: number): number => {
    let made = 0;
    for (const [ns, ds] of sets) {
      if (made >= n) break;
      const name = generated(ns, ds, `${ds}/${nodeName}`);
      addPod(
        ns,
        name,
        nodeName,
        { app: ds, 'controller-revision-hash': nameSuffix(ds), 'pod-template-generation': '1' },
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: ds },
        daemonContainers(ds),
        { tolerations: TOLERATE_ALL },
      );
      made++;
    }
    return made;
  };

  gpu.forEach(({ shape, name }, i) => {
    const trap = trapOf.get(i);
    const zone = `us-east-1${'abc'[i % 3]}`;
    const created = iso(baseMs + i * 1000);
    const mig = trap === 'mig';
    const allocGpus = mig || trap === 'unhealthy' ? '0' : String(shape.gpus);
    const capGpus = mig ? '0' : String(shape.gpus);
    const taints: Record<string, unknown>[] = [
      { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' },
    ];
    if (trap === 'cordoned')
      taints.push({
        key: 'node.kubernetes.io/unschedulable',
        effect: 'NoSchedule',
        timeAdded: iso(baseMs + 86400_000),
      });
    if (trap === 'notReady') {
      taints.push({
        key: 'node.kubernetes.io/unreachable',
        effect: 'NoSchedule',
        timeAdded: iso(baseMs + 86400_000),
      });
      taints.push({
        key: 'node.kubernetes.io/unreachable',
        effect: 'NoExecute',
        timeAdded: iso(baseMs + 86405_000),
      });
    }
    const resources: Record<string, string> = {
      cpu: `${shape.cpu * 1000 - 100}m`,
      'ephemeral-storage': '104845292Ki',
      memory: `${shape.memKi}Ki`,
      pods: '110',
      'nvidia.com/gpu': allocGpus,
    };
    if (mig) resources['nvidia.com/mig-1g.10gb'] = String(shape.gpus * 7);
    const ready =
      trap === 'notReady'
        ? {
            type: 'Ready',
            status: 'Unknown',
            reason: 'NodeStatusUnknown',
            message: 'Kubelet stopped posting node status.',
            lastHeartbeatTime: created,
            lastTransitionTime: iso(baseMs + 86400_000),
          }
        : {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: created,
            lastTransitionTime: created,
          };
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: nextUid(),
        creationTimestamp: created,
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'topology.kubernetes.io/region': 'us-east-1',
          'topology.kubernetes.io/zone': zone,
          'node.kubernetes.io/instance-type': shape.instance,
          'nvidia.com/gpu.present': 'true',
          'nvidia.com/gpu.product': shape.product,
          'nvidia.com/gpu.count': String(shape.gpus),
          'nvidia.com/gpu.memory': String(shape.memoryMiB),
          'nvidia.com/gpu.family': shape.family,
          'nvidia.com/gpu.machine': shape.instance,
          'nvidia.com/cuda.driver.major': '550',
          'nvidia.com/cuda.driver.minor': '127',
          'nvidia.com/cuda.driver.rev': '05',
          'nvidia.com/cuda.runtime.major': '12',
          'nvidia.com/cuda.runtime.minor': '4',
          'nvidia.com/mig.capable': shape.short === 't4' ? 'false' : 'true',
          'nvidia.com/mig.strategy': mig ? 'mixed' : 'single',
          'feature.node.kubernetes.io/pci-10de.present': 'true',
        },
        annotations: {
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: {
        providerID: `aws:///${zone}/i-${fnv32a(`${name}/${seed}`).toString(16).padStart(8, '0')}${fnv32a(name).toString(16).slice(0, 9)}`,
        taints,
        ...(trap === 'cordoned' ? { unschedulable: true } : {}),
      },
      status: {
        capacity: { ...resources, cpu: String(shape.cpu), 'nvidia.com/gpu': capGpus },
        allocatable: resources,
        conditions: [ready],
        addresses: [
          { type: 'InternalIP', address: `10.1.${(i >>> 8) & 255}.${i & 255}` },
          { type: 'Hostname', address: name },
        ],
        nodeInfo: {
          architecture: 'amd64',
          containerRuntimeVersion: 'containerd://1.7.22',
          kubeletVersion: 'v1.31.2',
          kubeProxyVersion: 'v1.31.2',
          operatingSystem: 'linux',
          osImage: 'Amazon Linux 2023.6.20241010',
        },
      },
    });
    if (trap === 'cordoned') result.cordoned.push(name);
    if (trap === 'notReady') result.notReady.push(name);
    if (trap === 'mig') result.mig.push(name);
    if (trap === 'unhealthy') result.unhealthyDevicePlugin.push(name);

    let left = podsPerNode;
    if (trap === 'foreign' && left > 0) {
      result.foreignWorkload.push(name);
      const held = Math.max(1, Math.floor(shape.gpus / 2));
      const app = i % 2 === 0 ? 'llm-finetune' : 'video-decode';
      const rs = `${app}-${nameSuffix(`${app}/rs`)}`;
      const containers: unknown[] = [
        {
          name: 'main',
          image: `registry.example.com/research/${app}:2.3`,
          resources: {
            requests: { cpu: '8', memory: '64Gi', 'nvidia.com/gpu': String(held) },
            limits: { 'nvidia.com/gpu': String(held) },
          },
        },
      ];
      if (app === 'video-decode')
        containers.push({
          name: 'log-shipper',
          image: 'registry.example.com/ops/log-shipper:1.0',
          resources: { requests: { cpu: '1', memory: '1Gi' } },
        });
      const ns = app === 'llm-finetune' ? 'research' : 'media';
      addPod(
        ns,
        generated(ns, rs, `${name}/foreign`),
        name,
        { app },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs },
        containers,
        {
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        },
      );
      left--;
    }
    left -= daemonPods(name, [...DAEMONSETS_GPU, ...DAEMONSETS_ALL, ...EXTRA_DAEMONSETS], left);
    for (let k = 0; k < left; k++) {
      addPod(
        'tools',
        generated('tools', 'gpu-node-agent', `${name}/${k}`),
        name,
        { app: 'gpu-node-agent' },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'gpu-node-agent-5d8f9' },
        [{ name: 'agent', image: 'registry.example.com/ops/agent:1.2' }],
        { tolerations: TOLERATE_ALL },
      );
    }
  });

  for (let c = 0; c < cpuNodes; c++) {
    const name = `ip-10-0-${1 + Math.floor(c / 250)}-${11 + (c % 250)}.ec2.internal`;
    const zone = `us-east-1${'abc'[c % 3]}`;
    const created = iso(baseMs - 86400_000 + c * 1000);
    nodes.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        uid: nextUid(),
        creationTimestamp: created,
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'topology.kubernetes.io/region': 'us-east-1',
          'topology.kubernetes.io/zone': zone,
          'node.kubernetes.io/instance-type': 'm6i.2xlarge',
        },
      },
      spec: { providerID: `aws:///${zone}/i-${fnv32a(name).toString(16).padStart(8, '0')}` },
      status: {
        capacity: { cpu: '8', memory: '32386544Ki', pods: '58', 'ephemeral-storage': '83873772Ki' },
        allocatable: { cpu: '7910m', memory: '31369712Ki', pods: '58', 'ephemeral-storage': '76224326324' },
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
          { type: 'InternalIP', address: `10.0.${1 + Math.floor(c / 250)}.${11 + (c % 250)}` },
          { type: 'Hostname', address: name },
        ],
        nodeInfo: {
          architecture: 'amd64',
          containerRuntimeVersion: 'containerd://1.7.22',
          kubeletVersion: 'v1.31.2',
          kubeProxyVersion: 'v1.31.2',
          operatingSystem: 'linux',
          osImage: 'Amazon Linux 2023.6.20241010',
        },
      },
    });
    let left = podsPerNode - daemonPods(name, DAEMONSETS_ALL, podsPerNode);
    for (let k = 0; left > 0; k++, left--) {
      const [ns, app] = CPU_WORKLOADS[(c + k) % CPU_WORKLOADS.length]!;
      const rs = `${app}-${nameSuffix(`${app}/rs`)}`;
      addPod(
        ns,
        generated(ns, rs, `${name}/${k}`),
        name,
        { app },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs },
        [
          {
            name: app,
            image: `registry.example.com/${ns}/${app}:1.0`,
            resources: { requests: { cpu: '250m', memory: '256Mi' } },
          },
        ],
      );
    }
  }

  if (traps && gpuNodes >= 5) {
    addPod(
      'research',
      'batch-embed-x7k2p',
      undefined,
      { app: 'batch-embed' },
      { apiVersion: 'batch/v1', kind: 'Job', name: 'batch-embed' },
      [
        {
          name: 'embed',
          image: 'registry.example.com/research/embed:0.9',
          resources: { limits: { 'nvidia.com/gpu': '16' } },
        },
      ],
      {
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        restartPolicy: 'Never',
      },
    );
  }

  for (let i = 0; i < amdNodes; i++) {
    const name = `amd-mi300x-${String(i + 1).padStart(4, '0')}`;
    nodes.push(amdNode(name, i, nextUid(), iso(baseMs + i * 1000)));
  }

  return {
    nodes: { apiVersion: 'v1', kind: 'NodeList', metadata: { resourceVersion: '' }, items: nodes },
    pods: { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '' }, items: pods },
    traps: result,
  };
}
