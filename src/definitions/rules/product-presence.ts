/**
 * A GPU product a spec names that no node of the cluster carries: a spec that could never be
 * benchmarked or placed, said before it waits for a test node that never comes. Pure: the caller
 * says which `nvidia.com/gpu.product` values the cluster's nodes carry (GPU Feature Discovery's
 * label); `gpuops validate --nodes` makes it a located error, `gpuops plan` and every pass a
 * warning (`plan/products.ts`), both in the same words.
 */
import type { ResolvedAlgorithm, SpecError } from '../types.js';
import { locate, parseDocuments, type SpecFile } from './yaml-documents.js';
import { NVIDIA, vendorById, type AcceleratorVendor } from '../../util/index.js';

/** One product of `spec.gpu.product` that no node carries: the algorithm, its index, the value. */
export interface MissingProduct {
  algorithm: ResolvedAlgorithm;
  /** Index in `spec.gpu.product`. */
  index: number;
  product: string;
}

/**
 * Every product each algorithm names (`spec.gpu.product`) that is not in `present`, in algorithm
 * and list order. An algorithm that names no product needs none: it runs on any.
 * @param present the `nvidia.com/gpu.product` values of the cluster's nodes (any node, Ready or not)
 */
export function missingProducts(
  algorithms: readonly ResolvedAlgorithm[],
  present: ReadonlySet<string>,
): MissingProduct[] {
  const out: MissingProduct[] = [];
  for (const algorithm of algorithms)
    (algorithm.spec.gpu?.product ?? []).forEach((product, index) => {
      if (!present.has(product)) out.push({ algorithm, index, product });
    });
  return out;
}

/**
 * The message of a missing product: `no node carries nvidia.com/gpu.product=Tesla-T5 (the
 * cluster has NVIDIA-A100-SXM4-80GB, Tesla-T4)`, or `(the cluster has no product label on any
 * node)` when no vendor's node labeller labels one. The label named is the algorithm's vendor's
 * (`spec.gpu.vendor`: GPU Feature Discovery's `nvidia.com/gpu.product`, the AMD GPU operator's
 * `amd.com/gpu.product-name`); `present` holds every vendor's products.
 */
export function missingProductMessage(
  product: string,
  present: ReadonlySet<string>,
  vendor: AcceleratorVendor = NVIDIA,
): string {
  const has = [...present].sort().join(', ') || 'no product label on any node';
  return `no node carries ${vendor.productLabel}=${product} (the cluster has ${has})`;
}

/** {@link missingProductMessage} in the words of `algorithm`'s own vendor. */
export function missingProductMessageFor(
  algorithm: ResolvedAlgorithm,
  product: string,
  present: ReadonlySet<string>,
): string {
  return missingProductMessage(product, present, vendorById(algorithm.spec.gpu?.vendor));
}

/**
 * The missing products of the algorithms read from `files`, as located errors at the list item
 * (`algorithms/x.yaml:24:19: spec.gpu.product[1]: no node carries …`). An algorithm is matched
 * to its document by file and the line its document starts on (`ResolvedAlgorithm.source`); one
 * whose file is not among `files` is located at its document's start.
 * @param files the Algorithm files the algorithms were parsed from (repo-relative paths)
 */
export function productPresenceErrors(
  files: readonly SpecFile[],
  algorithms: readonly ResolvedAlgorithm[],
  present: ReadonlySet<string>,
): SpecError[] {
  const missing = missingProducts(algorithms, present);
  const parsed = new Map(
    files
      .filter((f) => missing.some((m) => m.algorithm.source.file === f.path))
      .map((f) => [f.path, parseDocuments(f).documents]),
  );
  return missing.map(({ algorithm: a, index, product }) => {
    const path = ['spec', 'gpu', 'product', index];
    const doc = parsed.get(a.source.file)?.find((d) => d.start.line === a.source.line);
    const at = doc ? locate(doc, path, 'value') : { line: a.source.line, column: 1 };
    return {
      file: a.source.file,
      ...at,
      field: `spec.gpu.product[${index}]`,
      message: missingProductMessageFor(a, product, present),
    };
  });
}
