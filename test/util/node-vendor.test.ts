/** Which vendor a node's GPUs are: the device plugin's resource first, then the vendor's labels. */
import { describe, expect, it } from 'vitest';
import { nodeVendor, vendorById } from '../../src/util/vocabulary.js';

describe('nodeVendor', () => {
  it.each<[string, Record<string, string>, string[], string]>([
    ['AmdResource', {}, ['cpu', 'amd.com/gpu'], 'amd'],
    ['NvidiaResource', {}, ['cpu', 'nvidia.com/gpu'], 'nvidia'],
    [
      'ResourceWinsOverAnotherVendorsLabel',
      { 'feature.node.kubernetes.io/amd-gpu': 'true' },
      ['nvidia.com/gpu'],
      'nvidia',
    ],
    ['AmdNfdLabelWithoutResource', { 'feature.node.kubernetes.io/amd-gpu': 'true' }, ['cpu'], 'amd'],
    ['AmdNfdLabelNotTrue', { 'feature.node.kubernetes.io/amd-gpu': 'false' }, ['cpu'], 'nvidia'],
    ['AmdProductLabelWithoutResource', { 'amd.com/gpu.product-name': 'AMD_Instinct_MI300X_OAM' }, [], 'amd'],
    [
      'LegacyBetaAmdLabelIsNotRead',
      { 'beta.amd.com/gpu.product-name': 'AMD_Instinct_MI300X_OAM' },
      [],
      'nvidia',
    ],
    ['AmdFamilyLabelAloneIsNotEnough', { 'amd.com/gpu.family': 'AI' }, [], 'nvidia'],
    ['NoGpuAtAll', {}, ['cpu', 'memory'], 'nvidia'],
    ['AnotherVendorsResource', {}, ['gpu.intel.com/i915'], 'nvidia'],
  ])('%s', (_name, labels, resources, want) => {
    expect(nodeVendor(labels, resources).id).toBe(want);
  });

  it('a spec without a vendor asks NVIDIA', () => {
    expect([vendorById(undefined).resource, vendorById('amd').resource]).toEqual([
      'nvidia.com/gpu',
      'amd.com/gpu',
    ]);
  });
});
