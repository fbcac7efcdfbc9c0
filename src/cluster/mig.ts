/**
 * MIG (Multi-Instance GPU) as GPU Feature Discovery labels it
 * (https://github.com/NVIDIA/k8s-device-plugin, "Generated Labels", MIG 'single' / 'mixed'
 * strategy). Pure.
 */
import { NVIDIA, NVIDIA_GFD } from '../util/index.js';

/**
 * The MIG profile (`1g.5gb`) when the node's `nvidia.com/gpu` are MIG devices, not whole GPUs: the
 * device plugin's `single` strategy advertises every MIG device as `nvidia.com/gpu` (a node with
 * one A100 cut 7 ways shows 7), and GPU Feature Discovery then overrides `nvidia.com/gpu.product`
 * with the profile appended (`A100-SXM4-40GB-MIG-1g.5gb`) and sets `nvidia.com/gpu.slices.gi`.
 * Either sign is enough. `nvidia.com/mig.strategy: single` alone is not: a MIG-capable GPU with
 * MIG disabled (`mig.config: all-disabled`) carries it too and offers whole GPUs. With the `mixed`
 * strategy MIG devices are `nvidia.com/mig-<profile>` resources beside the whole GPUs, so
 * `nvidia.com/gpu` stays whole: null.
 *
 * @returns the profile, `''` when only `nvidia.com/gpu.slices.gi` says so, or null for whole GPUs
 */
export function migSingleProfile(labels: Readonly<Record<string, string>>): string | null {
  if (labels[NVIDIA_GFD.migStrategy] === 'mixed') return null;
  const product = labels[NVIDIA.productLabel] ?? '';
  const at = product.lastIndexOf(NVIDIA_GFD.migProductInfix);
  if (at > 0) return product.slice(at + NVIDIA_GFD.migProductInfix.length);
  const slices = labels[NVIDIA_GFD.migSlices];
  return slices !== undefined && slices !== '' ? '' : null;
}
