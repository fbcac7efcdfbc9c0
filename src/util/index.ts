/**
 * Small pure helpers (ordering, control characters escaped, a seeded PRNG, secrets in URLs) and
 * the vocabulary: the accelerator vendors' names and gpuops's own label keys.
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { boundedMemo } from './bounded-memo.js';
export { byString } from './compare.js';
export { escapeControl, escapeControlKeepLines } from './escape-control.js';
export { inFlight } from './in-flight.js';
export { prng } from './prng.js';
export { redactUrls, urlSecrets } from './url-secrets.js';
export {
  AMD,
  AMD_LABELLER,
  DCGM,
  DCGM_SCALING_METRICS,
  GPUOPS,
  isProductLabel,
  MANAGED_BY,
  nodeVendor,
  NVIDIA,
  NVIDIA_GFD,
  vendorById,
  VENDORS,
} from './vocabulary.js';
export type { AcceleratorVendor, DcgmScalingMetric, VendorId } from './vocabulary.js';
export { documentValue, MAX_ALIAS_COUNT } from './yaml-value.js';
