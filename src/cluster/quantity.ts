/**
 * The one parser of Kubernetes resource quantities in gpuops (the snapshot model and the simulated
 * cluster): client-node's `quantityToScalar`, which knows every suffix of the grammar
 * (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/: `n u m k M G T
 * P E`, `Ki Mi Gi Ti Pi Ei`, and `e`/`E` exponents). The package index of client-node 1.4 does not
 * re-export it, hence the path into `dist/`. Pure.
 */
import { quantityToScalar } from '@kubernetes/client-node/dist/util.js';

/** A string that is no Kubernetes quantity (or one client-node cannot convert, e.g. `1.5Gi`). */
export class QuantityError extends Error {
  constructor(readonly text: string) {
    super(`not a Kubernetes quantity: ${JSON.stringify(text)}`);
    this.name = 'QuantityError';
  }
}

/**
 * The value of a quantity as a number in the resource's base unit (`500m` → 0.5, `16Gi` →
 * 17179869184, `2P` → 2e15). Surrounding blanks are ignored; an empty string is 0.
 * The API server sends quantities in canonical form (`1536Mi`, not `1.5Gi`), which client-node
 * converts exactly; a decimal with a suffix larger than `m` it cannot convert is reported too.
 * @throws QuantityError when `text` is no quantity
 */
export function parseQuantity(text: string): number {
  let value: number | bigint;
  try {
    value = quantityToScalar(text.trim());
  } catch {
    throw new QuantityError(text);
  }
  const n = Number(value);
  if (!Number.isFinite(n)) throw new QuantityError(text);
  return n;
}
