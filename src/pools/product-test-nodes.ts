/**
 * A test node for every GPU product an algorithm names (pure): an algorithm with `spec.gpu.product`
 * is benchmarked on a node of one of them, so while its benchmark is due the test pool holds one,
 * beside `pools.test.size` (or one per product).
 */
import { gpuSharing } from '../cluster/snapshot.js';
import type { NodeInfo } from '../cluster/index.js';
import { ineligibility, isHealthy } from './eligibility.js';
import type { PoolAssignment } from './types.js';

/** An algorithm whose benchmark is due and the products it may be measured on (any one of them). */
export interface ProductNeed {
  algorithm: string;
  products: readonly string[];
}

/**
 * Adds test nodes so that every need has a healthy test node of one of its products. Needs are
 * met in algorithm-name order; a need is met by a node already decided `test` of one of its
 * products, else one node moves into `test`: an idle surplus test node of the product first
 * (`SurplusTestNode` turned back to `KeepPool`: no label churn), else an idle eligible node
 * decided `unused`, never one with shared GPUs (no measurement) or held by pods; the one with the
 * fewest GPUs (a benchmark needs only its own), ties by name (`TestPool`, "becomes test for
 * Tesla-T4: t4-serve names it"). A need no node can meet changes nothing: its benchmark waits
 * (`productWarnings` of `plan/products.ts` says when no node has the product at all). Once the
 * benchmark is final the algorithm has no need, and an idle extra test node goes back to
 * `unused` (`SurplusTestNode`). Returns new assignments in the same order.
 * @param running nodes running a benchmark now
 */
export function coverTestProducts(
  assignments: readonly PoolAssignment[],
  nodes: readonly NodeInfo[],
  needs: readonly ProductNeed[],
  labelKey: string,
  running: readonly string[] = [],
): PoolAssignment[] {
  const out = assignments.map((a) => ({ ...a }));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const busy = (n: NodeInfo) => running.includes(n.name) || n.managedPods > 0;
  const sorted = [...needs].sort((a, b) =>
    a.algorithm < b.algorithm ? -1 : a.algorithm > b.algorithm ? 1 : 0,
  );
  for (const need of sorted) {
    const wanted = new Set(need.products);
    const of = (a: PoolAssignment) => {
      const p = byName.get(a.node)?.gpuProduct;
      return p !== undefined && p !== null && wanted.has(p);
    };
    if (out.some((a) => a.to === 'test' && of(a) && isHealthy(byName.get(a.node)!))) continue;
    const candidates = out.filter((a) => {
      const n = byName.get(a.node);
      return (
        a.to === 'unused' &&
        of(a) &&
        n !== undefined &&
        !busy(n) &&
        !gpuSharing(n) &&
        !ineligibility(n, labelKey)
      );
    });
    candidates.sort((x, y) => {
      const nx = byName.get(x.node)!;
      const ny = byName.get(y.node)!;
      return (
        Number(y.reason === 'SurplusTestNode') - Number(x.reason === 'SurplusTestNode') ||
        nx.gpuAllocatable - ny.gpuAllocatable ||
        (x.node < y.node ? -1 : 1)
      );
    });
    const pick = candidates[0];
    if (!pick) continue;
    const product = byName.get(pick.node)!.gpuProduct!;
    const why = `${need.algorithm} names it (spec.gpu.product) and its benchmark is due`;
    if (pick.reason === 'SurplusTestNode') {
      pick.to = 'test';
      pick.reason = 'KeepPool';
      pick.message = `stays test for ${product}: ${why}`;
    } else {
      pick.to = 'test';
      pick.reason = 'TestPool';
      pick.message = `becomes test for ${product}: ${why}`;
    }
  }
  return out;
}
