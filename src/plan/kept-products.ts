/**
 * Each algorithm's GPU products kept from one pass to the next (pure): `productsOf` builds a new
 * `AlgorithmProducts` per algorithm every pass (a new sorted array), so every placement's `gpu`
 * and every comparison that reads it (`sameRecords` on the placements, the workload render memo)
 * met a new object each pass and compared it deeply. Here an answer equal to the last pass's
 * (the same source, label and products in order) is the last pass's object, so those comparisons
 * answer at once; a changed one is this pass's. The values are the same either way: only which
 * object carries them differs. Kept answers are frozen, so a caller that changed one would throw.
 */
import type { AlgorithmProducts } from '../placement/index.js';

/** Whether two algorithms' products are equal: source, label and the products in order. */
export function sameProducts(a: AlgorithmProducts, b: AlgorithmProducts): boolean {
  if (a === b) return true;
  if (a.source !== b.source || a.productLabel !== b.productLabel) return false;
  if (a.products.length !== b.products.length) return false;
  for (let i = 0; i < a.products.length; i++) if (a.products[i] !== b.products[i]) return false;
  return true;
}

/**
 * `fresh` (this pass's products by algorithm name) with each entry equal to `last`'s
 * ({@link sameProducts}) replaced by `last`'s object; the others frozen. The answer is what to keep
 * as the next pass's `last`. The `fresh` Map is not changed; its entries that are kept as they are
 * get frozen in place.
 */
export function keptProducts(
  last: ReadonlyMap<string, AlgorithmProducts> | undefined,
  fresh: ReadonlyMap<string, AlgorithmProducts>,
): Map<string, AlgorithmProducts> {
  const out = new Map<string, AlgorithmProducts>();
  for (const [name, p] of fresh) {
    const kept = last?.get(name);
    out.set(name, kept && sameProducts(kept, p) ? kept : frozen(p));
  }
  return out;
}

function frozen(p: AlgorithmProducts): AlgorithmProducts {
  Object.freeze(p.products);
  return Object.freeze(p);
}
