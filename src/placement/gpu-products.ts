/**
 * The GPU products an algorithm runs on (pure): those its
 * spec names, else those its benchmark was measured on, as GPU Feature Discovery labels them
 * (`nvidia.com/gpu.product`, e.g. `NVIDIA-A100-SXM4-80GB`, `Tesla-T4`).
 */
import type { BenchmarkRun } from '../store/index.js';
import { byString } from '../util/index.js';

/** Where an algorithm's products come from. */
export type ProductSource = 'spec' | 'benchmark' | 'none';

/** The products of one algorithm, sorted, without repeats; `[]` with source `none`. */
export interface AlgorithmProducts {
  products: string[];
  source: ProductSource;
  /** The node label the products are values of, when not NVIDIA's `nvidia.com/gpu.product` (`amd.com/gpu.product-name`). */
  productLabel?: string;
}

/** What of a benchmark run tells its product: the product recorded with it, else its node's. */
export type RunOnNode = Pick<BenchmarkRun, 'status' | 'node'> & { gpuProduct?: string | null };

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort(byString);

/**
 * The products of an algorithm:
 * - `named` (`spec.gpu.product`, one or several) → those (source `spec`);
 * - else the products of its `Succeeded` runs at the current spec hash (source `benchmark`): the
 *   product recorded with the run (`BenchmarkRun.gpuProduct`), else the one its node carries now
 *   (`productOfNode`, for runs stored before the product was recorded). A run time counts for
 *   the product it was measured on, so replicas stay there;
 * - else none (no successful run, or no node carries the label).
 * @param productOfNode `nvidia.com/gpu.product` of a node by name (null: no label, or no such node)
 */
export function algorithmProducts(
  named: readonly string[] | undefined,
  runs: readonly RunOnNode[],
  productOfNode: (node: string) => string | null,
): AlgorithmProducts {
  if (named && named.length > 0) return { products: sorted(named), source: 'spec' };
  const measured: string[] = [];
  for (const r of runs) {
    if (r.status !== 'Succeeded') continue;
    const p = r.gpuProduct ?? (r.node === null ? null : productOfNode(r.node));
    if (p) measured.push(p);
  }
  return measured.length > 0
    ? { products: sorted(measured), source: 'benchmark' }
    : { products: [], source: 'none' };
}

/** `Tesla-T4 (benchmarked on)`, `NVIDIA-A100-SXM4-80GB or NVIDIA-H100-80GB-HBM3 (spec.gpu.product)`, `any`. */
export function describeProducts(p: AlgorithmProducts): string {
  if (p.source === 'none') return 'any GPU product';
  return `${p.products.join(' or ')} (${p.source === 'spec' ? 'spec.gpu.product' : 'benchmarked on'})`;
}
