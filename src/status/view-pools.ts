/**
 * The pools section of the status page (pure): every pool with its nodes, and the GPU nodes left
 * out of every pool with the reason.
 */
import type { NodeInfo, Snapshot } from '../cluster/index.js';
import { POOLS } from '../definitions/index.js';
import { freeGpus, ineligibility } from '../pools/index.js';
import type { FleetStatusRecord } from '../store/index.js';
import type { LeftOutNode, StatusNode, StatusView } from './view-types.js';

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Pools list every pool, even empty ones, nodes by name. A node sits in the pool the newest pass
 * put it in (Git's view); when the cluster's label differs (the pull request is not merged or not
 * synced yet) the node says so (`labelPending`). Nodes without a GPU are only counted.
 */
export function statusPools(
  snapshot: Snapshot | null,
  fleet: FleetStatusRecord | null,
): Pick<StatusView, 'pools' | 'leftOut' | 'nodesWithoutGpu'> {
  const desired = new Map((fleet?.pools ?? []).map((p) => [p.node, p]));
  const nodes = [...(snapshot?.nodes ?? [])].sort(byName);
  const poolOf = (n: NodeInfo): string | null => {
    const d = desired.get(n.name);
    return d ? d.to : n.pool;
  };
  const pools = POOLS.map((pool) => {
    const members: StatusNode[] = nodes
      .filter((n) => poolOf(n) === pool)
      .map((n) => ({
        name: n.name,
        gpuProduct: n.gpuProduct,
        freeGpus: freeGpus(n),
        allocatableGpus: n.gpuAllocatable,
        condition: !n.ready ? 'NotReady' : n.cordoned ? 'cordoned' : !n.schedulable ? 'unschedulable' : null,
        labelPending: n.pool !== pool ? (n.pool ?? 'no pool') : null,
      }));
    return {
      pool,
      nodes: members,
      freeGpus: members.reduce((s, n) => s + n.freeGpus, 0),
      allocatableGpus: members.reduce((s, n) => s + n.allocatableGpus, 0),
    };
  });

  const leftOut: LeftOutNode[] = [];
  let nodesWithoutGpu = 0;
  for (const n of nodes) {
    if (poolOf(n) !== null) continue;
    const why = desired.get(n.name) ?? ineligibility(n);
    if (!why) continue;
    if (why.reason === 'NoGPU') {
      nodesWithoutGpu++;
      continue;
    }
    leftOut.push({ name: n.name, gpuProduct: n.gpuProduct, reason: why.reason, message: why.message });
  }
  return { pools, leftOut, nodesWithoutGpu };
}
