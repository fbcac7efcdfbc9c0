/**
 * MIG (Multi-Instance GPU) as GPU Feature Discovery labels it
 * (https://github.com/NVIDIA/k8s-device-plugin, "Generated Labels", MIG 'single' / 'mixed'
 * strategy). Pure.
 */

/** GPU Feature Discovery: `single`, `mixed` or `none`. */
export const MIG_STRATEGY_LABEL = 'nvidia.com/mig.strategy';
/** GPU Feature Discovery, single strategy only: GPU-instance slices of each MIG device. */
export const MIG_SLICES_LABEL = 'nvidia.com/gpu.slices.gi';
/** What GPU Feature Discovery puts between the model and the MIG profile in `nvidia.com/gpu.product`. */
const MIG_PRODUCT_INFIX = '-MIG-';

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
  if (labels[MIG_STRATEGY_LABEL] === 'mixed') return null;
  const product = labels['nvidia.com/gpu.product'] ?? '';
  const at = product.lastIndexOf(MIG_PRODUCT_INFIX);
  if (at > 0) return product.slice(at + MIG_PRODUCT_INFIX.length);
  const slices = labels[MIG_SLICES_LABEL];
  return slices !== undefined && slices !== '' ? '' : null;
}
