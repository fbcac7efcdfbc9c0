/**
 * The outside world's names that gpuops reads or writes, in one place: what each accelerator
 * vendor's device plugin, node labeller and metrics exporter call things, and gpuops's own label
 * and annotation keys. Pure data in the lowest layer, so every reader (schemas, the snapshot, the
 * renderers, the sources, the simulator) imports the same spelling; a vendor is one entry of
 * {@link VENDORS}, not literals spread over the code.
 */

/** Where a vendor's exporter puts a GPU's pod, namespace, container and identity on a series. */
export interface SeriesLabels {
  pod: string;
  namespace: string;
  container: string;
  /** The GPU's index on its host. */
  gpu: string;
  /** The GPU's UUID (stable across restarts of the exporter). */
  uuid: string;
  /** The exporter's host name (dcgm-exporter: its own pod's name, not the node's). */
  hostname: string;
}

/** One accelerator vendor as Kubernetes sees it. */
export interface AcceleratorVendor {
  /** How a policy or spec names the vendor. */
  readonly id: 'nvidia';
  /** For people: PR bodies, messages. */
  readonly displayName: string;
  /**
   * The label domain the vendor's own controllers write (device plugin, feature discovery, GPU
   * operator). gpuops never writes a key of it and a policy cannot choose one.
   */
  readonly domain: string;
  /** Extended resource of one whole GPU, as the device plugin advertises it in `status.allocatable`. */
  readonly resource: string;
  /** Node label holding the GPU product (one value per node). */
  readonly productLabel: string;
  /** Key of the taint GPU node groups of this vendor carry (GKE, EKS, the vendor's GPU operator). */
  readonly taintKey: string;
  /** The exporter metric of a GPU's utilisation in percent (0..100), and its series labels. */
  readonly utilisation: { readonly metric: string; readonly labels: SeriesLabels };
}

/**
 * NVIDIA's names: the device plugin's `nvidia.com/gpu`
 * (https://github.com/NVIDIA/k8s-device-plugin), GPU Feature Discovery's node labels, and
 * dcgm-exporter's `DCGM_FI_DEV_GPU_UTIL` (percent), labelled `gpu, UUID, Hostname, namespace, pod,
 * container` (https://github.com/NVIDIA/dcgm-exporter).
 */
export const NVIDIA: AcceleratorVendor = {
  id: 'nvidia',
  displayName: 'NVIDIA',
  domain: 'nvidia.com',
  resource: 'nvidia.com/gpu',
  productLabel: 'nvidia.com/gpu.product',
  taintKey: 'nvidia.com/gpu',
  utilisation: {
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    labels: {
      pod: 'pod',
      namespace: 'namespace',
      container: 'container',
      gpu: 'gpu',
      uuid: 'UUID',
      hostname: 'Hostname',
    },
  },
};

/** Every vendor gpuops knows, in the order a node's GPUs are looked for. */
export const VENDORS: readonly AcceleratorVendor[] = [NVIDIA];

/**
 * NVIDIA's GPU Feature Discovery labels and resources beyond the common ones: GPU sharing
 * (time-slicing, MPS) and MIG
 * (https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-sharing.html,
 * https://github.com/NVIDIA/k8s-device-plugin "Generated Labels").
 */
export const NVIDIA_GFD = {
  /** `true` on a node with NVIDIA GPUs. */
  present: 'nvidia.com/gpu.present',
  /** Physical GPUs of the node (not the advertised replicas). */
  count: 'nvidia.com/gpu.count',
  /** How many times each physical GPU is advertised (time-slicing / MPS). */
  replicas: 'nvidia.com/gpu.replicas',
  /** `time-slicing`, `mps` or `none`. */
  sharingStrategy: 'nvidia.com/gpu.sharing-strategy',
  /** What GPU Feature Discovery appends to the product of a shared GPU. */
  sharedProductSuffix: '-SHARED',
  /** `single`, `mixed` or `none`. */
  migStrategy: 'nvidia.com/mig.strategy',
  /** Single strategy only: GPU-instance slices of each MIG device. */
  migSlices: 'nvidia.com/gpu.slices.gi',
  /** What GPU Feature Discovery puts between the model and the MIG profile in the product. */
  migProductInfix: '-MIG-',
  /** Prefix of MIG slice resources with the `mixed` strategy (`nvidia.com/mig-1g.10gb`). */
  migResourcePrefix: 'nvidia.com/mig-',
} as const;

/**
 * dcgm-exporter's field names gpuops reads (https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html).
 * `GPU_UTIL` is percent; `GR_ENGINE_ACTIVE` a ratio 0..1 (the one that works on MIG).
 */
export const DCGM = {
  GPU_UTIL: 'DCGM_FI_DEV_GPU_UTIL',
  GR_ENGINE_ACTIVE: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  /** Framebuffer memory used, MiB. */
  FB_USED: 'DCGM_FI_DEV_FB_USED',
  /** Framebuffer memory free, MiB. */
  FB_FREE: 'DCGM_FI_DEV_FB_FREE',
  /** Prefix of every DCGM field. */
  prefix: 'DCGM_FI_',
} as const;

/** The DCGM fields a policy may scale on (`scaling.metric`). */
export const DCGM_SCALING_METRICS = [DCGM.GPU_UTIL, DCGM.GR_ENGINE_ACTIVE] as const;
export type DcgmScalingMetric = (typeof DCGM_SCALING_METRICS)[number];

/** gpuops's own label and annotation keys. */
export const GPUOPS = {
  /** Prefix of every key gpuops writes itself. */
  prefix: 'gpuops.dev/',
  /** The default pool label of a Node (policy `pools.labelKey`). */
  pool: 'gpuops.dev/pool',
  /** The algorithm a Deployment, Service, HPA, Job or pod belongs to. */
  algorithm: 'gpuops.dev/algorithm',
  /** On a benchmark Job and its pod: the Job's full name (finds its pods). */
  benchmarkJob: 'gpuops.dev/benchmark-job',
  /** The spec hash a benchmark Job ran (label: shortened; annotation: full). */
  specHash: 'gpuops.dev/spec-hash',
  /** On a Node manifest gpuops moved into a pool: why and when. */
  movedBy: 'gpuops.dev/moved-by',
  movedAt: 'gpuops.dev/moved-at',
  /** On a warm standby pod: its standby set (the standby Deployment's whole selector). */
  standby: 'gpuops.dev/standby',
  /** On a claimed standby pod: the set it came from (how claims are found after a restart). */
  claimedFrom: 'gpuops.dev/claimed-from',
} as const;

/** `app.kubernetes.io/managed-by: gpuops`, on everything gpuops creates. */
export const MANAGED_BY = { key: 'app.kubernetes.io/managed-by', value: 'gpuops' } as const;
