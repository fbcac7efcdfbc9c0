/**
 * Where replicas of one algorithm can go, as kube-scheduler's filter plugins judge its pod (pure):
 * NodeUnschedulable, TaintToleration, NodeAffinity (`cluster/scheduling/node-filters.ts`),
 * NodeResourcesFit (every resource: `replicasThatFit`), PodTopologySpread (`DoNotSchedule`) and
 * InterPodAffinity (required terms, and the anti-affinity of the pods already running). Replicas
 * are placed one after another, each on the feasible node with the most free GPUs (ties by name,
 * the default LeastAllocated scoring `claims.ts` follows), and each placed replica counts for the
 * next one, as the scheduler counts the pods it bound. So "free GPUs" become "room": with a
 * required anti-affinity on `kubernetes.io/hostname`, a node that runs a replica has no room for
 * another whatever GPUs it has free, and the scale-up moves an unused node in instead of leaving
 * a replica Pending (kubernetes/autoscaler#5741).
 */
import { nodeRefusal, type FilterNode } from '../cluster/scheduling/node-filters.js';
import { dependsOnPods, type PodConstraints } from '../cluster/scheduling/pod-constraints.js';
import {
  addPlacedPod,
  interPodRefusal,
  interPodState,
  type InterPodState,
} from '../cluster/scheduling/inter-pod-affinity.js';
import { addSpreadPod, spreadRefusal, spreadState } from '../cluster/scheduling/topology-spread.js';
import { byString, isProductLabel } from '../util/index.js';
import type { Pool } from '../definitions/index.js';
import { insufficient, replicasThatFit, takeRoom, type PodRequest } from './fit.js';
import { asMember, type PodLayout } from './pod-layout.js';
import type { NodeCapacity, Placer } from './types.js';

export type { Placer } from './types.js';

const byRoom = (a: NodeCapacity, b: NodeCapacity) => b.freeGpus - a.freeGpus || byString(a.node, b.node);

/**
 * The placer of one algorithm's pod, or null when capacity alone already answers as the filters
 * would: its pod depends on no other pod (no required pod affinity, anti-affinity or spread
 * constraint, and no running pod's anti-affinity selects it), asks for no resource beyond GPUs, cpu
 * and memory, and selects nodes only by its pool and GPU product (what `poolNodes` already are).
 * @param labelKey the policy's pool label key
 */
export function placerOf(
  pod: PodConstraints,
  request: PodRequest,
  layout: PodLayout,
  labelKey: string,
): Placer | null {
  const labelsOf = (node: string) => layout.nodes.get(node)?.labels;
  const own = dependsOnPods(pod);
  const base = interPodState(pod, own ? [...layout.podsOn.values()].flat() : layout.antiAffine, labelsOf);
  const dependent = own || base.closed.size > 0;
  if (!dependent && request.other === undefined && selectsOnlyPool(pod, labelKey)) return null;
  const member = (n: NodeCapacity, pool: Pool | null): FilterNode | undefined => {
    const f = layout.nodes.get(n.node);
    return f && asMember(f, labelKey, pool);
  };
  const simulate = (nodes: readonly NodeCapacity[], pool: Pool | null, count: number): Map<string, number> =>
    dependent
      ? sequential({ pod, request, layout, base, nodes, count, member: (n) => member(n, pool) })
      : independent(pod, request, nodes, count, (n) => member(n, pool));
  return {
    key: `${JSON.stringify(pod)}\n${JSON.stringify(request)}\n${dependent ? layout.token : ''}`,
    slots: (nodes, pool, limit) => [...simulate(nodes, pool, limit).values()].reduce((a, b) => a + b, 0),
    place: simulate,
    refusals: (n, pool) => {
      const f = member(n, pool);
      if (!f) return ['node not found'];
      const node = nodeRefusal(pod, f);
      if (node) return [node];
      const short = insufficient(n, request);
      if (short.length > 0) return short;
      const inter = interPodRefusal(base, f.labels);
      if (inter) return [inter];
      const spread = dependent ? spreadRefusal(spreadOver(pod, layout, [f]), f.labels) : null;
      return spread ? [spread] : [];
    },
  };
}

/**
 * True when the pod selects nodes by nothing but the pool label and the GPU product. A term
 * without requirements matches no node (the API's NodeSelectorTerm: "a null or empty node selector
 * term matches no objects"), which only the filters answer.
 */
function selectsOnlyPool(pod: PodConstraints, labelKey: string): boolean {
  if (Object.keys(pod.nodeSelector).some((k) => k !== labelKey && !isProductLabel(k))) return false;
  return (pod.nodeAffinity ?? []).every((t) => {
    const exprs = t.matchExpressions ?? [];
    return (
      exprs.length > 0 &&
      exprs.every((e) => isProductLabel(e.key) && e.operator === 'In') &&
      (t.matchFields ?? []).length === 0
    );
  });
}

/** Nodes whose filters pass, each filled to what its resources take (no inter-pod term). */
function independent(
  pod: PodConstraints,
  request: PodRequest,
  nodes: readonly NodeCapacity[],
  count: number,
  member: (n: NodeCapacity) => FilterNode | undefined,
): Map<string, number> {
  const out = new Map<string, number>();
  let left = count;
  for (const n of [...nodes].sort(byRoom)) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: only ends the loop early; with no replica left each later node takes min(0, …) = 0 and is not set
    if (left <= 0) break;
    const f = member(n);
    if (!f || nodeRefusal(pod, f) !== null) continue;
    const k = Math.min(left, replicasThatFit(n, request));
    if (k > 0) out.set(n.node, k);
    left -= k;
  }
  return out;
}

/** The spread counts with `members` (nodes as members of the pool) in place of their layout entries. */
function spreadOver(pod: PodConstraints, layout: PodLayout, members: readonly FilterNode[]) {
  const byName = new Map(layout.nodes);
  for (const m of members) byName.set(m.name, m);
  // Stryker disable next-line ArrayDeclaration: a node without pods; a placeholder in its list is no pod of the namespace, so it counts nothing
  return spreadState(pod, [...byName.values()], (node) => layout.podsOn.get(node) ?? []);
}

/** One replica after another on the feasible node with the most free GPUs (see the module comment). */
function sequential(o: {
  pod: PodConstraints;
  request: PodRequest;
  layout: PodLayout;
  base: InterPodState;
  nodes: readonly NodeCapacity[];
  count: number;
  member: (n: NodeCapacity) => FilterNode | undefined;
}): Map<string, number> {
  const { pod, request } = o;
  const open = o.nodes
    .map((cap) => ({ cap, f: o.member(cap) }))
    .filter(
      (m): m is { cap: NodeCapacity; f: FilterNode } => m.f !== undefined && nodeRefusal(pod, m.f) === null,
    );
  const inter: InterPodState = {
    ...o.base,
    closed: new Map(o.base.closed),
    anti: new Map(o.base.anti),
    affinity: new Map(o.base.affinity),
  };
  const spread = spreadOver(
    pod,
    o.layout,
    open.map((m) => m.f),
  );
  const placed = new Map<string, number>();
  const self = { namespace: pod.namespace, labels: pod.labels, antiAffinity: pod.antiAffinity };
  for (let i = 0; i < o.count; i++) {
    let best: (typeof open)[number] | null = null;
    for (const m of open) {
      if (replicasThatFit(m.cap, request) < 1) continue;
      if (interPodRefusal(inter, m.f.labels) !== null || spreadRefusal(spread, m.f.labels) !== null) continue;
      if (best === null || byRoom(m.cap, best.cap) < 0) best = m;
    }
    if (best === null) break;
    best.cap = takeRoom(best.cap, request, 1);
    placed.set(best.f.name, (placed.get(best.f.name) ?? 0) + 1);
    addPlacedPod(inter, { ...self, nodeName: best.f.name }, best.f.labels);
    addSpreadPod(spread, best.f, self);
  }
  return placed;
}
