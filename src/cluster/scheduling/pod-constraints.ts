/**
 * What kube-scheduler's filters read of a pod (pure): where it may go (nodeSelector, required node
 * affinity, tolerations) and next to what (required pod affinity and anti-affinity, topology spread
 * constraints with `whenUnsatisfiable: DoNotSchedule`), reduced from a Pod's or a pod template's
 * spec. Preferred terms and `ScheduleAnyway` constraints only score nodes, never filter them, so
 * they are left out.
 */
import type { Taint } from '../types.js';
import type { Toleration } from '../taints.js';
import type { LabelSelector, LabelSelectorRequirement, NodeSelectorTerm } from './selectors.js';

import type { PodAffinityTerm } from './terms.js';

export type { Toleration } from '../taints.js';
export type { PodAffinityTerm } from './terms.js';

/** One topology spread constraint with `whenUnsatisfiable: DoNotSchedule`. */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  labelSelector?: LabelSelector | null;
  /** Fewer eligible domains than this: the global minimum counts as 0. */
  minDomains?: number;
  /** `Honor` (default): only nodes matching the pod's node selector and affinity are domains. */
  nodeAffinityPolicy?: 'Honor' | 'Ignore';
  /** `Ignore` (default); `Honor`: only nodes whose taints the pod tolerates are domains. */
  nodeTaintsPolicy?: 'Honor' | 'Ignore';
}

/** What the filters read of the pod being scheduled. */
export interface PodConstraints {
  namespace: string;
  labels: Record<string, string>;
  nodeSelector: Record<string, string>;
  /** `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`; null: none. */
  nodeAffinity: NodeSelectorTerm[] | null;
  tolerations: Toleration[];
  /** Required pod affinity terms. */
  affinity: PodAffinityTerm[];
  /** Required pod anti-affinity terms. */
  antiAffinity: PodAffinityTerm[];
  /** Topology spread constraints that filter (`DoNotSchedule`). */
  spread: SpreadConstraint[];
}

type Obj = Record<string, unknown>;
const isMap = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === 'string');
const stringMap = (v: unknown): Record<string, string> =>
  isMap(v)
    ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<
        string,
        string
      >)
    : {};

function selector(v: unknown): LabelSelector | null {
  if (!isMap(v)) return null;
  const exprs = list(v['matchExpressions'])
    .filter(isMap)
    .map((e) => ({
      key: String(e['key'] ?? ''),
      operator: String(e['operator'] ?? ''),
      values: strings(e['values']),
    }));
  return { matchLabels: stringMap(v['matchLabels']), matchExpressions: exprs };
}

/**
 * The label selector with `matchLabelKeys` / `mismatchLabelKeys` merged in (`key In [value]` /
 * `key NotIn [value]` for each key the pod carries), as the API server merges them into a pod's
 * affinity terms and the scheduler into its spread constraints (KEP-3633, KEP-3243). Merging a
 * second time changes nothing.
 */
function withLabelKeys(
  sel: LabelSelector | null,
  term: Obj,
  labels: Record<string, string>,
): LabelSelector | null {
  const extra: LabelSelectorRequirement[] = [];
  for (const k of strings(term['matchLabelKeys']))
    if (labels[k] !== undefined) extra.push({ key: k, operator: 'In', values: [labels[k]!] });
  for (const k of strings(term['mismatchLabelKeys']))
    if (labels[k] !== undefined) extra.push({ key: k, operator: 'NotIn', values: [labels[k]!] });
  if (extra.length === 0 || sel === null) return sel;
  return { ...sel, matchExpressions: [...(sel.matchExpressions ?? []), ...extra] };
}

function affinityTerms(v: unknown, labels: Record<string, string>): PodAffinityTerm[] {
  return list(v)
    .filter(isMap)
    .map((t) => ({
      labelSelector: withLabelKeys(selector(t['labelSelector']), t, labels),
      namespaces: strings(t['namespaces']),
      namespaceSelector: selector(t['namespaceSelector']),
      topologyKey: String(t['topologyKey'] ?? ''),
    }));
}

function tolerations(v: unknown): Toleration[] {
  return list(v)
    .filter(isMap)
    .map((t) => ({
      key: typeof t['key'] === 'string' ? t['key'] : '',
      operator: t['operator'] === 'Exists' ? 'Exists' : 'Equal',
      ...(typeof t['value'] === 'string' ? { value: t['value'] } : {}),
      ...(typeof t['effect'] === 'string' && t['effect'] !== ''
        ? { effect: t['effect'] as Taint['effect'] }
        : {}),
    }));
}

function spread(v: unknown, labels: Record<string, string>): SpreadConstraint[] {
  return list(v)
    .filter(isMap)
    .filter((c) => c['whenUnsatisfiable'] === undefined || c['whenUnsatisfiable'] === 'DoNotSchedule')
    .map((c) => ({
      maxSkew: typeof c['maxSkew'] === 'number' && c['maxSkew'] >= 1 ? c['maxSkew'] : 1,
      topologyKey: String(c['topologyKey'] ?? ''),
      labelSelector: withLabelKeys(selector(c['labelSelector']), c, labels),
      ...(typeof c['minDomains'] === 'number' ? { minDomains: c['minDomains'] } : {}),
      ...(c['nodeAffinityPolicy'] === 'Ignore' ? { nodeAffinityPolicy: 'Ignore' as const } : {}),
      ...(c['nodeTaintsPolicy'] === 'Honor' ? { nodeTaintsPolicy: 'Honor' as const } : {}),
    }));
}

/**
 * The constraints of a pod (pure), from its namespace, labels and `spec` (a Pod's, or a
 * Deployment's `spec.template.spec`, as parsed JSON or YAML: unknown shapes read as absent).
 */
export function podConstraintsOf(
  namespace: string,
  labels: Record<string, string>,
  spec: unknown,
): PodConstraints {
  const s = isMap(spec) ? spec : {};
  const affinity = isMap(s['affinity']) ? s['affinity'] : {};
  const node = isMap(affinity['nodeAffinity']) ? affinity['nodeAffinity'] : {};
  const required = isMap(node['requiredDuringSchedulingIgnoredDuringExecution'])
    ? node['requiredDuringSchedulingIgnoredDuringExecution']
    : null;
  const pod = isMap(affinity['podAffinity']) ? affinity['podAffinity'] : {};
  const anti = isMap(affinity['podAntiAffinity']) ? affinity['podAntiAffinity'] : {};
  return {
    namespace,
    labels,
    nodeSelector: stringMap(s['nodeSelector']),
    nodeAffinity: required
      ? list(required['nodeSelectorTerms'])
          .filter(isMap)
          .map((t) => t as NodeSelectorTerm)
      : null,
    tolerations: tolerations(s['tolerations']),
    affinity: affinityTerms(pod['requiredDuringSchedulingIgnoredDuringExecution'], labels),
    antiAffinity: affinityTerms(anti['requiredDuringSchedulingIgnoredDuringExecution'], labels),
    spread: spread(s['topologySpreadConstraints'], labels),
  };
}

/**
 * The required anti-affinity terms of a running pod (what the InterPodAffinity filter checks
 * against an incoming pod); undefined when it has none, so a snapshot of thousands of pods carries
 * nothing for the pods without any.
 */
export function requiredAntiAffinity(
  labels: Record<string, string>,
  spec: unknown,
): PodAffinityTerm[] | undefined {
  const s = isMap(spec) ? spec : {};
  const affinity = isMap(s['affinity']) ? s['affinity'] : {};
  const anti = isMap(affinity['podAntiAffinity']) ? affinity['podAntiAffinity'] : {};
  const terms = affinityTerms(anti['requiredDuringSchedulingIgnoredDuringExecution'], labels);
  return terms.length > 0 ? terms : undefined;
}

/** True when a pod's placement depends on other pods (inter-pod terms or spread constraints). */
export function dependsOnPods(pod: PodConstraints): boolean {
  return pod.affinity.length > 0 || pod.antiAffinity.length > 0 || pod.spread.length > 0;
}
