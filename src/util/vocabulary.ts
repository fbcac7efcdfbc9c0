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
  /** The exporter's host name (dcgm-exporter: its own pod's name, not the node's; AMD's exporter: the node's). */
  hostname: string;
}

/** How a policy or spec names an accelerator vendor (`spec.gpu.vendor`). */
export type VendorId = 'nvidia' | 'amd';

/** One accelerator vendor as Kubernetes sees it. */
export interface AcceleratorVendor {
  /** How a policy or spec names the vendor. */
  readonly id: VendorId;
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
  /** Node label (value `true`) the vendor's feature discovery sets on a node with its GPUs. */
  readonly presentLabel: string;
  /** Key of the taint GPU node groups of this vendor carry (GKE, EKS, the vendor's GPU operator). */
  readonly taintKey: string;
  /**
   * The exporter metric of a GPU's utilisation in percent (0..100, both vendors), its series
   * labels, and the value of the pod label on a GPU no container holds: dcgm-exporter leaves the
   * label out, AMD's exporter writes it empty (`pod=""`). Either way the GPU is nobody's.
   */
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
  presentLabel: 'nvidia.com/gpu.present',
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

/**
 * AMD Instinct's names, as the AMD GPU operator (https://github.com/ROCm/gpu-operator) deploys
 * them:
 * - the device plugin's `amd.com/gpu` (https://github.com/ROCm/k8s-device-plugin);
 * - the node labeller's `amd.com/gpu.*` labels (`cmd/k8s-node-labeller/README.md` of the device
 *   plugin; the older `beta.amd.com/gpu.*` spelling is not read): `product-name`
 *   (`AMD_Instinct_MI300X_OAM`), `family` (`AI`), `vram` (`192G`), `device-id` (`74a1`), see
 *   {@link AMD_LABELLER};
 * - Node Feature Discovery's `feature.node.kubernetes.io/amd-gpu=true`, by the operator's NFD rule;
 * - the device-metrics-exporter's `gpu_gfx_activity`, "graphics engine usage percentage (0 - 100)"
 *   (https://github.com/ROCm/device-metrics-exporter `docs/configuration/metricslist.md`, field
 *   `GPU_GFX_ACTIVITY`), labelled `gpu_id, gpu_uuid, hostname, pod, namespace, container` among
 *   others (`card_model`, `serial_number`, …); `hostname` is the node's, and a GPU no container
 *   holds has `pod=""`.
 * The operator sets no taint of its own on GPU nodes (it taints only during a driver upgrade);
 * `amd.com/gpu` is the key node groups of AMD GPUs are tainted with by convention, as NVIDIA's
 * are, so gpuops's pods tolerate it.
 */
export const AMD: AcceleratorVendor = {
  id: 'amd',
  displayName: 'AMD',
  domain: 'amd.com',
  resource: 'amd.com/gpu',
  productLabel: 'amd.com/gpu.product-name',
  presentLabel: 'feature.node.kubernetes.io/amd-gpu',
  taintKey: 'amd.com/gpu',
  utilisation: {
    metric: 'gpu_gfx_activity',
    labels: {
      pod: 'pod',
      namespace: 'namespace',
      container: 'container',
      gpu: 'gpu_id',
      uuid: 'gpu_uuid',
      hostname: 'hostname',
    },
  },
};

/** The AMD node labeller's labels beyond the product (see {@link AMD}). */
export const AMD_LABELLER = {
  /** GPU family, two letters or a GC version (`AI` for MI300). */
  family: 'amd.com/gpu.family',
  /** VRAM per GPU with its unit (`192G`). */
  vram: 'amd.com/gpu.vram',
  /** PCI device id, hex (`74a1`). */
  deviceId: 'amd.com/gpu.device-id',
} as const;

/** Every vendor gpuops knows, in the order a node's GPUs are looked for. */
export const VENDORS: readonly AcceleratorVendor[] = [NVIDIA, AMD];

/** The vendor a spec names (`spec.gpu.vendor`); absent: NVIDIA, the vendor gpuops began with. */
export function vendorById(id: VendorId | undefined): AcceleratorVendor {
  return VENDORS.find((v) => v.id === id) ?? NVIDIA;
}

/**
 * The vendor of a node's GPUs: the first whose device plugin advertises its resource in
 * `status.capacity` or `status.allocatable` (`resources`: their keys), else the first whose
 * feature discovery labelled the node (present or product label), else NVIDIA (a node with no
 * GPU at all: it has none of either, and the answer is never used for its GPUs).
 */
export function nodeVendor(
  labels: Readonly<Record<string, string>>,
  resources: readonly string[],
): AcceleratorVendor {
  return (
    VENDORS.find((v) => resources.includes(v.resource)) ??
    VENDORS.find((v) => labels[v.presentLabel] === 'true' || labels[v.productLabel] !== undefined) ??
    NVIDIA
  );
}

/** True for a vendor's GPU product label key (`nvidia.com/gpu.product`, `amd.com/gpu.product-name`). */
export function isProductLabel(key: string): boolean {
  return VENDORS.some((v) => v.productLabel === key);
}

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
/** One of {@link DCGM_SCALING_METRICS}. */
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
  /**
   * Annotation of a claimed standby pod: its own uid, written by gpuops's claim patch (a copied
   * manifest cannot carry the uid the API server gives the copy).
   */
  claimedUid: 'gpuops.dev/claimed-uid',
  /**
   * On a model cache's fill Job and its pod (label), and on the pod template of the Deployment
   * that reads the cache (annotation): the fill Job's name.
   */
  modelCacheFill: 'gpuops.dev/model-cache-fill',
} as const;

/** `app.kubernetes.io/managed-by: gpuops`, on everything gpuops creates. */
export const MANAGED_BY = { key: 'app.kubernetes.io/managed-by', value: 'gpuops' } as const;
