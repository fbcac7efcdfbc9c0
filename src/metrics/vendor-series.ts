/**
 * Series of every vendor's utilisation exporter in the one spelling attribution reads (pure):
 * dcgm-exporter's (`src/scaling/attribute.ts`, `series-node.ts` read `UUID`, `gpu`, `Hostname`,
 * `node`, `namespace`, `pod`). What really differs between the exporters, and only that, is here:
 *
 * | | dcgm-exporter | AMD device-metrics-exporter |
 * |---|---|---|
 * | utilisation metric | `DCGM_FI_DEV_GPU_UTIL`, percent 0..100 | `gpu_gfx_activity`, percent 0..100 |
 * | GPU index, UUID | `gpu`, `UUID` | `gpu_id`, `gpu_uuid` |
 * | host label | `Hostname`: the exporter pod's name | `hostname`: the node's name |
 * | a GPU no container holds | no `pod` label | `pod=""` |
 *
 * The names come from the vocabulary (`AcceleratorVendor.utilisation`); the units are the same,
 * so values are kept as the exporter wrote them.
 */
import type { GpuSeries } from './types.js';
import { DCGM, NVIDIA, VENDORS, type AcceleratorVendor } from '../util/index.js';

/** The vendor whose utilisation metric `metric` is (`gpu_gfx_activity` → AMD); undefined for any other. */
export function vendorOfUtilisation(metric: string): AcceleratorVendor | undefined {
  return VENDORS.find((v) => v.utilisation.metric === metric);
}

/**
 * Every vendor's utilisation metric that answers a request for `metric`: NVIDIA's GPU utilisation
 * (`DCGM_FI_DEV_GPU_UTIL`) is answered by each vendor's utilisation metric (all percent); any
 * other DCGM field only by itself (AMD's exporter has no such field).
 */
export function utilisationMetrics(metric: string): string[] {
  return metric === DCGM.GPU_UTIL ? VENDORS.map((v) => v.utilisation.metric) : [metric];
}

/**
 * One exporter series in dcgm-exporter's spelling: another vendor's utilisation metric becomes
 * `DCGM_FI_DEV_GPU_UTIL`, its GPU index, UUID and host labels NVIDIA's names (its own removed),
 * and, since that exporter's host label is the node's own name, label `node` when the series has
 * none (a scrape target's `node` label wins). An empty `pod` is left as it is: attribution reads
 * `pod=""` as "no pod", as for dcgm-exporter's pages. A series of NVIDIA's, or of a metric no
 * vendor exports as utilisation, comes back unchanged (the same object).
 */
export function inCommonSpelling<S extends Omit<GpuSeries, 'timestamp'>>(series: S): S {
  const vendor = vendorOfUtilisation(series.metric);
  if (vendor === undefined || vendor === NVIDIA) return series;
  const own = vendor.utilisation.labels;
  const common = NVIDIA.utilisation.labels;
  const labels: Record<string, string> = { ...series.labels };
  for (const key of ['gpu', 'uuid', 'hostname', 'pod', 'namespace', 'container'] as const) {
    if (own[key] === common[key]) continue;
    const value = labels[own[key]];
    delete labels[own[key]];
    if (value !== undefined) labels[common[key]] = value;
  }
  const host = labels[common.hostname];
  if (labels.node === undefined && host !== undefined && host !== '') labels.node = host;
  return { ...series, metric: DCGM.GPU_UTIL, labels };
}
