/**
 * kube-scheduler's NodeResourcesFit filter (pure): every resource a pod requests must fit in what
 * the node has left, `status.allocatable` minus the requests of the pods bound there, and one more
 * pod must fit under `allocatable.pods`
 * (https://kubernetes.io/docs/concepts/scheduling-eviction/resource-bin-packing/). Resource lists
 * are keyed by resource name in base units: `cpu` in millicores, `memory` and `ephemeral-storage`
 * in bytes, `pods` and extended resources (`nvidia.com/gpu`, `hugepages-2Mi` in bytes, …) as
 * counts.
 */

/** Resource name → amount in its base unit (cpu in millicores). */
export type ResourceList = Record<string, number>;

/**
 * The refusals of one node for one pod, in the order the filter checks them (`Too many pods`,
 * `Insufficient cpu`, `Insufficient memory`, `Insufficient ephemeral-storage`, then each extended
 * resource `Insufficient <name>`); `[]` when it fits. A resource the pod requests 0 of never
 * refuses (exactly enough is a fit); one the node does not list has 0 left.
 * @param request the pod's effective requests
 * @param free    allocatable minus the requests of the pods bound there (`pods`: pod slots left)
 */
export function resourceRefusals(request: ResourceList, free: ResourceList): string[] {
  const out: string[] = [];
  if ((free['pods'] ?? 0) < 1) out.push('Too many pods');
  const order = ['cpu', 'memory', 'ephemeral-storage'];
  const names = [
    ...order,
    ...Object.keys(request)
      .filter((r) => !order.includes(r) && r !== 'pods')
      .sort(),
  ];
  for (const r of names) {
    const want = request[r] ?? 0;
    if (want > 0 && want > (free[r] ?? 0)) out.push(`Insufficient ${r}`);
  }
  return out;
}
