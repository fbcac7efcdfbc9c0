/**
 * `productPresenceErrors` (issue 24): a product no node carries is located at its list item, in
 * block and flow lists, in the right document of a multi-document file; a product a node carries,
 * or no product named, is no error.
 */
import { describe, expect, it } from 'vitest';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import {
  missingProductMessage,
  productPresenceErrors,
} from '../../src/definitions/rules/product-presence.js';
import { policyWith } from '../benchmark/fixtures.js';

const doc = (name: string, gpu: string) =>
  `apiVersion: gpuops.dev/v1alpha1\nkind: Algorithm\nmetadata: {name: ${name}}\nspec:\n  image: r.example.com/${name}:1\n  resources: {gpus: 1}\n${gpu}`;

async function errorsOf(text: string, present: string[]) {
  const file = { path: 'algorithms/x.yaml', text };
  const parsed = parseAlgorithms([file], await policyWith());
  expect(parsed.errors).toEqual([]);
  return productPresenceErrors([file], parsed.algorithms, new Set(present)).map(
    (e) => `${e.line}:${e.column} ${e.field} ${e.message}`,
  );
}

describe('productPresenceErrors', () => {
  it.each([
    ['present in a flow list', '  gpu: {product: [Tesla-T4]}', ['Tesla-T4'], []],
    ['no product named', '', [], []],
    [
      'the second of a flow list absent',
      '  gpu: {product: [Tesla-T4, L4]}',
      ['Tesla-T4'],
      [`7:29 spec.gpu.product[1] ${missingProductMessage('L4', new Set(['Tesla-T4']))}`],
    ],
    [
      // An AMD algorithm's missing product is named by the AMD GPU operator's label, not NVIDIA's.
      'an AMD product absent',
      '  gpu: {vendor: amd, product: [AMD-Instinct-MI250X]}',
      ['AMD-Instinct-MI300X'],
      [
        '7:32 spec.gpu.product[0] no node carries amd.com/gpu.product-name=AMD-Instinct-MI250X (the cluster has AMD-Instinct-MI300X)',
      ],
    ],
    [
      'both of a block list absent',
      '  gpu:\n    product:\n      - L4\n      - Tesla-T4',
      ['NVIDIA-A100-SXM4-80GB'],
      [
        '9:9 spec.gpu.product[0] no node carries nvidia.com/gpu.product=L4 (the cluster has NVIDIA-A100-SXM4-80GB)',
        '10:9 spec.gpu.product[1] no node carries nvidia.com/gpu.product=Tesla-T4 (the cluster has NVIDIA-A100-SXM4-80GB)',
      ],
    ],
  ])('%s', async (_name, gpu, present, expected) => {
    expect(await errorsOf(doc('a', gpu), present)).toEqual(expected);
  });

  it('locates the item in the document of the algorithm that names it, not an earlier one', async () => {
    const text = `${doc('a', '  gpu: {product: [Tesla-T4]}')}\n---\n${doc('b', '  gpu: {product: [L4]}')}\n`;
    expect(await errorsOf(text, ['Tesla-T4'])).toEqual([
      '15:19 spec.gpu.product[0] no node carries nvidia.com/gpu.product=L4 (the cluster has Tesla-T4)',
    ]);
  });

  it('says so when no node carries any product label', () => {
    expect(missingProductMessage('L4', new Set())).toBe(
      'no node carries nvidia.com/gpu.product=L4 (the cluster has no product label on any node)',
    );
  });
});
