/**
 * Per-pod service metrics and GPU memory (pure): the PromQL of a service metric template the
 * policy allows, and the framebuffer share of a GPU from its two DCGM fields.
 */
import type { GpuSeries } from './types.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The metric name the series of {@link gpuMemorySeries} carry (percent of the framebuffer used). */
export const GPU_MEMORY_METRIC = 'gpuops:fb_used_percent';

/**
 * A service metric's query for one namespace: the policy's template with `$namespace` replaced by
 * the namespace and `$window` by the averaging window (`300s`). The namespace is a DNS-1123 label,
 * so it holds nothing PromQL would read as syntax.
 * @throws Error when `namespace` is not a DNS-1123 label or the window is not a whole number of seconds > 0
 */
export function serviceMetricQuery(template: string, namespace: string, windowSeconds: number): string {
  if (!DNS_LABEL.test(namespace))
    throw new Error(`namespace ${JSON.stringify(namespace)} is not a DNS-1123 label`);
  if (!(Number.isInteger(windowSeconds) && windowSeconds > 0)) {
    throw new Error(`window must be a whole number of seconds > 0, got ${windowSeconds}`);
  }
  return template.replaceAll('$namespace', namespace).replaceAll('$window', `${windowSeconds}s`);
}

/**
 * The framebuffer share of each GPU series, `FB_USED / (FB_USED + FB_FREE) × 100` (percent; DCGM
 * reports both in MiB, so the sum is the GPU's framebuffer: the average of the share is the share
 * of the averages). A series is paired with the `DCGM_FI_DEV_FB_FREE` series of the same labels;
 * one without its pair, or with a sum of 0, is left out (no GPU, no share). The window's highest
 * share is the highest `used` over the same total. Timestamps: the older of the two.
 */
export function gpuMemorySeries(used: readonly GpuSeries[], free: readonly GpuSeries[]): GpuSeries[] {
  const byLabels = new Map<string, GpuSeries>();
  for (const f of free) byLabels.set(labelKey(f.labels), f);
  const out: GpuSeries[] = [];
  for (const u of used) {
    const f = byLabels.get(labelKey(u.labels));
    if (!f) continue;
    const total = u.value + f.value;
    if (!(total > 0)) continue;
    out.push({
      metric: GPU_MEMORY_METRIC,
      labels: u.labels,
      value: (u.value / total) * 100,
      timestamp: Math.min(u.timestamp, f.timestamp),
      ...(u.window ? { window: { max: (u.window.max / total) * 100, oldest: u.window.oldest } } : {}),
    });
  }
  return out;
}

function labelKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .filter((k) => k !== '__name__')
    .sort()
    .map((k) => `${k}\u0000${labels[k]}`)
    .join('\u0001');
}
