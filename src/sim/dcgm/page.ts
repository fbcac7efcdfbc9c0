/**
 * The page NVIDIA dcgm-exporter serves at `:9400/metrics`, rendered for one simulated node in the
 * exporter's exact text format (the style of `fixtures/cluster-mixed/dcgm/*.prom`): four fields,
 * each with `# HELP` / `# TYPE gauge` and one series per GPU of the node, labels in the exporter's
 * order `gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION, container,
 * namespace, pod`.
 *
 * - `DCGM_FI_DEV_GPU_UTIL`: utilisation in percent, an integer as DCGM reports it.
 * - `DCGM_FI_PROF_GR_ENGINE_ACTIVE`: the same as a ratio 0..1 with six decimals.
 * - `DCGM_FI_DEV_SM_CLOCK` (MHz) for realism; `DCGM_FI_DEV_FB_USED` and `DCGM_FI_DEV_FB_FREE`
 *   (MiB; their sum is the GPU's memory, GFD's `nvidia.com/gpu.memory`) for the `gpuMemory` signal.
 * A GPU held by a pod (see {@link assignGpus}) carries that pod's namespace, name and the
 * container that requests the GPU; a free GPU has `container="",namespace="",pod=""`.
 * `Hostname` is the dcgm-exporter pod's name on that node (the real trap: not the node's name).
 * GPUs per node: `capacity["nvidia.com/gpu"]`, or the GFD label `nvidia.com/gpu.count` when
 * larger (a MIG node or an unhealthy device plugin still has its GPUs).
 */
import type { LoadModel } from '../load-model.js';
import type { KubeObject } from '../types.js';
import { nodeGpuCount } from '../controllers/kubelet.js';
import { fnv32a, nameSuffix } from '../controllers/names.js';
import { GPU_RESOURCE, containerRequest, parseQuantity } from '../controllers/pods.js';
import { assignGpus } from './gpu-assignment.js';
import { NVIDIA, boundedMemo } from '../../util/index.js';

/** One GPU's row of the page. `utilization` is percent 0..100. */
export interface DcgmGpu {
  gpu: number;
  uuid: string;
  pciBusId: string;
  modelName: string;
  hostname: string;
  driverVersion: string;
  container: string;
  namespace: string;
  pod: string;
  utilization: number;
  smClockMhz: number;
  fbUsedMiB: number;
  /** Framebuffer left (MiB): the GPU's memory less `fbUsedMiB`. */
  fbFreeMiB: number;
}

/** DCGM `modelName` of the GFD product labels the simulator knows (GFD replaces spaces by dashes). */
const MODEL_NAMES: Record<string, string> = {
  'NVIDIA-A100-SXM4-80GB': 'NVIDIA A100-SXM4-80GB',
  'NVIDIA-A100-SXM4-40GB': 'NVIDIA A100-SXM4-40GB',
  'NVIDIA-A100-PCIE-40GB': 'NVIDIA A100-PCIE-40GB',
  'NVIDIA-H100-80GB-HBM3': 'NVIDIA H100 80GB HBM3',
  'Tesla-T4': 'Tesla T4',
  'NVIDIA-A10G': 'NVIDIA A10G',
  'NVIDIA-L4': 'NVIDIA L4',
};

const MAX_CLOCK: Record<string, number> = {
  'Tesla T4': 1590,
  'NVIDIA H100 80GB HBM3': 1980,
  'NVIDIA A10G': 1710,
  'NVIDIA L4': 2040,
};

/** DCGM model name for a GFD `nvidia.com/gpu.product` label value. */
export function modelName(product: string | undefined): string {
  if (!product) return 'NVIDIA GPU';
  return MODEL_NAMES[product] ?? product.replace(/-/g, ' ');
}

/** A stable GPU UUID (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`) for GPU `index` of a node. */
export function gpuUuid(node: string, index: number): string {
  return uuidOfKey(`${node}/${index}`);
}

/**
 * The UUID of the GPU keyed `node/index`, remembered (pages ask the same ones on every scrape):
 * 100,000 at most, the oldest going first (`boundedMemo`: a long-lived simulator of changing nodes).
 */
const uuidOfKey = boundedMemo(100_000, (key: string): string => {
  // The index is a number: the node is all before the last `/` (a node name holds none anyway).
  const at = key.lastIndexOf('/');
  const node = key.slice(0, at);
  const index = key.slice(at + 1);
  const hex = [0, 1, 2, 3]
    .map((i) => fnv32a(`${node}/gpu/${index}/${i}`).toString(16).padStart(8, '0'))
    .join('');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
});

/** The dcgm-exporter pod's name on a node, or a name like one when there is none. */
export function exporterHostname(nodeName: string, pods: readonly KubeObject[]): string {
  const exporter = pods.find(
    (p) =>
      p.spec?.nodeName === nodeName &&
      (p.metadata.labels?.app === 'nvidia-dcgm-exporter' ||
        p.metadata.labels?.['app.kubernetes.io/name'] === 'dcgm-exporter' ||
        p.metadata.name.startsWith('nvidia-dcgm-exporter-')),
  );
  return exporter?.metadata.name ?? `nvidia-dcgm-exporter-${nameSuffix(nodeName)}`;
}

function driverVersion(node: KubeObject): string {
  const l = node.metadata.labels ?? {};
  const [ma, mi, rev] = [
    l['nvidia.com/cuda.driver.major'],
    l['nvidia.com/cuda.driver.minor'],
    l['nvidia.com/cuda.driver.rev'],
  ];
  return ma && mi ? `${ma}.${mi}${rev ? `.${rev}` : ''}` : '550.127.05';
}

function gpuContainer(pod: KubeObject): string {
  const containers = (pod.spec?.containers as { name: string }[] | undefined) ?? [];
  return (containers.find((c) => containerRequest(c, GPU_RESOURCE) > 0) ?? containers[0])?.name ?? '';
}

/**
 * The GPUs of one node with their pod and utilisation at `now`. `pods` must be all pods of the
 * cluster (the load of an algorithm spreads over its pods on every node).
 */
export function dcgmGpus(
  node: KubeObject,
  pods: readonly KubeObject[],
  load: LoadModel,
  now: Date,
  utilization?: Map<string, number>,
): DcgmGpu[] {
  const name = node.metadata.name;
  const count = nodeGpuCount(node);
  const held = assignGpus(name, count, pods);
  const util = utilization ?? load.podUtilization(pods, now);
  const model = modelName(node.metadata.labels?.[NVIDIA.productLabel]);
  const memory = parseQuantity(node.metadata.labels?.['nvidia.com/gpu.memory']) || 16384;
  const hostname = exporterHostname(name, pods);
  const driver = driverVersion(node);
  const out: DcgmGpu[] = [];
  for (let i = 0; i < count; i++) {
    const pod = held.get(i);
    const u = pod
      ? Math.max(0, Math.min(100, util.get(`${pod.metadata.namespace}/${pod.metadata.name}`) ?? 0))
      : 0;
    const used = pod && u > 0 ? Math.round(memory * (0.2 + (0.6 * u) / 100)) : 0;
    out.push({
      gpu: i,
      uuid: gpuUuid(name, i),
      pciBusId: `00000000:${(0x10 + i).toString(16).toUpperCase().padStart(2, '0')}:00.0`,
      modelName: model,
      hostname,
      driverVersion: driver,
      container: pod ? gpuContainer(pod) : '',
      namespace: pod?.metadata.namespace ?? '',
      pod: pod?.metadata.name ?? '',
      utilization: u,
      smClockMhz: u > 0 ? (MAX_CLOCK[model] ?? 1410) : 210,
      fbUsedMiB: used,
      fbFreeMiB: memory - used,
    });
  }
  return out;
}

const esc = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

const FIELDS: { name: string; help: string; value: (g: DcgmGpu) => string }[] = [
  { name: 'DCGM_FI_DEV_SM_CLOCK', help: 'SM clock frequency (in MHz).', value: (g) => String(g.smClockMhz) },
  {
    name: 'DCGM_FI_DEV_GPU_UTIL',
    help: 'GPU utilization (in %).',
    value: (g) => String(Math.round(g.utilization)),
  },
  {
    name: 'DCGM_FI_DEV_FB_USED',
    help: 'Framebuffer memory used (in MiB).',
    value: (g) => String(g.fbUsedMiB),
  },
  {
    name: 'DCGM_FI_DEV_FB_FREE',
    help: 'Framebuffer memory free (in MiB).',
    value: (g) => String(g.fbFreeMiB),
  },
  {
    name: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
    help: 'Ratio of time the graphics engine is active.',
    value: (g) => (g.utilization / 100).toFixed(6),
  },
];

/** The page text for GPUs of one node (ends with a newline; empty fields are omitted). */
export function formatDcgmPage(gpus: DcgmGpu[]): string {
  if (gpus.length === 0) return '';
  const labels = gpus.map(
    (g) =>
      `gpu="${g.gpu}",UUID="${g.uuid}",pci_bus_id="${g.pciBusId}",device="nvidia${g.gpu}",modelName="${esc(g.modelName)}",Hostname="${esc(g.hostname)}",DCGM_FI_DRIVER_VERSION="${esc(g.driverVersion)}",container="${esc(g.container)}",namespace="${esc(g.namespace)}",pod="${esc(g.pod)}"`,
  );
  const lines: string[] = [];
  for (const f of FIELDS) {
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} gauge`);
    gpus.forEach((g, i) => lines.push(`${f.name}{${labels[i]}} ${f.value(g)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The dcgm-exporter page of one node at `now`. `pods`: all pods of the cluster. */
export function renderDcgmPage(
  node: KubeObject,
  pods: readonly KubeObject[],
  load: LoadModel,
  now: Date,
): string {
  return formatDcgmPage(dcgmGpus(node, pods, load, now));
}
