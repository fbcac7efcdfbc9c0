/**
 * The GPU products of every algorithm for one pass (pure): `spec.gpu.product`, else the products
 * its benchmark runs at the current spec hash were measured on (`algorithmProducts`).
 */
import type { Snapshot } from '../cluster/index.js';
import { missingProductMessageFor, missingProducts } from '../definitions/rules/product-presence.js';
import type { ResolvedAlgorithm } from '../definitions/index.js';
import { algorithmProducts, type AlgorithmProducts, type RunOnNode } from '../placement/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { ProductNeed } from '../pools/index.js';

/**
 * One entry per algorithm, by name. A run recorded without its product counts for the product its
 * node carries in `snapshot` now.
 * @param runs the benchmark runs behind each algorithm's outcome (absent: none)
 */
export function productsOf(
  algorithms: readonly ResolvedAlgorithm[],
  runs: ReadonlyMap<string, readonly RunOnNode[]> | undefined,
  snapshot: Pick<Snapshot, 'nodes'>,
): Map<string, AlgorithmProducts> {
  const productOf = new Map(snapshot.nodes.map((n) => [n.name, n.gpuProduct]));
  const productOfNode = (node: string) => productOf.get(node) ?? null;
  return new Map(
    algorithms.map((a) => [
      a.name,
      algorithmProducts(a.spec.gpu?.product, runs?.get(a.name) ?? [], productOfNode),
    ]),
  );
}

/**
 * The algorithms that need a test node of a product they name: `spec.gpu.product` set,
 * `placement: auto` (a pinned algorithm is not benchmarked) and a benchmark that is due (none
 * yet, `Pending` or `Unschedulable`; `Succeeded`, `Failed` and `TimedOut` are final).
 */
export function productNeeds(
  algorithms: readonly ResolvedAlgorithm[],
  benchmarks: ReadonlyMap<string, BenchmarkOutcome>,
): ProductNeed[] {
  const out: ProductNeed[] = [];
  for (const a of algorithms) {
    const products = a.spec.gpu?.product ?? [];
    const status = benchmarks.get(a.name)?.status;
    if (products.length === 0 || a.placement !== 'auto') continue;
    if (status === undefined || status === 'Pending' || status === 'Unschedulable')
      out.push({ algorithm: a.name, products });
  }
  return out;
}

/**
 * One warning per product a spec names that no node of the snapshot carries (GPU Feature
 * Discovery's `nvidia.com/gpu.product`), located at the spec's document:
 * `algorithms/x.yaml:7: spec.gpu.product: no node carries nvidia.com/gpu.product=Tesla-T5 (the
 * cluster has NVIDIA-A100-SXM4-80GB, Tesla-T4)`. A warning, not an error: the cluster may gain
 * such a node (an autoscaler's node group, a node being repaired); `gpuops validate --nodes`
 * makes it an error on demand (`definitions/rules/product-presence.ts`, the same words). Until one
 * exists the algorithm's benchmark waits and no node moves for it.
 */
export function productWarnings(
  algorithms: readonly ResolvedAlgorithm[],
  snapshot: Pick<Snapshot, 'nodes'>,
): string[] {
  const present = new Set(snapshot.nodes.map((n) => n.gpuProduct).filter((p): p is string => p !== null));
  return missingProducts(algorithms, present).map(
    ({ algorithm: a, product }) =>
      `${a.source.file}:${a.source.line}: spec.gpu.product: ${missingProductMessageFor(a, product, present)}; ${a.name} is not benchmarked or given nodes of it until one does`,
  );
}
