/**
 * Label and node selectors as the scheduler matches them (pure): `metav1.LabelSelector`
 * (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/label-selector/) and
 * `NodeSelectorTerm` (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#NodeSelectorTerm),
 * as kube-scheduler's NodeAffinity, InterPodAffinity and PodTopologySpread filters read them.
 */

/** One `matchExpressions` entry of a label selector. */
export interface LabelSelectorRequirement {
  key: string;
  /** `In`, `NotIn`, `Exists`, `DoesNotExist`; anything else matches nothing. */
  operator: string;
  values?: string[];
}

/** A `metav1.LabelSelector`: every `matchLabels` pair and every expression must hold. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** One requirement of a node selector term: label operators plus `Gt` / `Lt` (integers). */
export interface NodeSelectorRequirement {
  key: string;
  /** `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`. */
  operator: string;
  values?: string[];
}

/** One term of a required node affinity: its expressions on labels and fields all hold. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  /** Only `metadata.name` is a field the scheduler matches. */
  matchFields?: NodeSelectorRequirement[];
}

const has = (labels: Record<string, string>, key: string) =>
  Object.prototype.hasOwnProperty.call(labels, key);

/** An integer as `strconv.ParseInt` reads it, else null (then `Gt`/`Lt` match nothing). */
function integer(text: string | undefined): number | null {
  return text !== undefined && /^[+-]?\d+$/.test(text) ? Number(text) : null;
}

/**
 * Whether one requirement holds on `labels`: `In` (present, value listed), `NotIn` (absent or not
 * listed), `Exists`, `DoesNotExist`, `Gt`/`Lt` (present, both sides integers, strictly greater /
 * less than the one value). An unknown operator holds for nothing (the API server refuses it).
 */
export function requirementHolds(labels: Record<string, string>, r: NodeSelectorRequirement): boolean {
  const present = has(labels, r.key);
  const v = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return present && values.includes(v!);
    case 'NotIn':
      return !present || !values.includes(v!);
    case 'Exists':
      return present;
    case 'DoesNotExist':
      return !present;
    case 'Gt':
    case 'Lt': {
      const a = present ? integer(v) : null;
      const b = integer(values[0]);
      if (a === null || b === null) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/**
 * Whether a label selector selects `labels`. A null or absent selector selects nothing and an
 * empty one (`{}`) everything, as `metav1.LabelSelectorAsSelector` reads them; `Gt`/`Lt` are no
 * label-selector operators and select nothing.
 */
export function selectorMatches(
  selector: LabelSelector | null | undefined,
  labels: Record<string, string>,
): boolean {
  if (selector === null || selector === undefined) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const r of selector.matchExpressions ?? []) {
    if (r.operator === 'Gt' || r.operator === 'Lt' || !requirementHolds(labels, r)) return false;
  }
  return true;
}

/**
 * Whether a node matches any of the terms (ORed; within a term everything ANDed). A term with no
 * expression and no field matches nothing, as the NodeAffinity filter reads it; `matchFields`
 * match `metadata.name` only.
 */
export function nodeSelectorTermsMatch(
  terms: readonly NodeSelectorTerm[],
  node: { name: string; labels: Record<string, string> },
): boolean {
  return terms.some((t) => {
    const exprs = t.matchExpressions ?? [];
    const fields = t.matchFields ?? [];
    if (exprs.length === 0 && fields.length === 0) return false;
    return (
      exprs.every((r) => requirementHolds(node.labels, r)) &&
      fields.every((r) => r.key === 'metadata.name' && requirementHolds({ 'metadata.name': node.name }, r))
    );
  });
}
