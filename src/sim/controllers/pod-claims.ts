/**
 * Which pods a ReplicaSet controls, as kube-controller-manager's controller ref manager decides
 * (`ClaimPods`, pkg/controller/controller_ref_manager.go): a pod it owns whose labels no longer
 * match its selector is released (its controller owner reference removed: the pod lives on,
 * orphaned, and the ReplicaSet creates a replacement); an orphan in its namespace whose labels
 * match is adopted. Neither while the ReplicaSet or the pod is being deleted. Relabelling a pod
 * out of a ReplicaSet is how a standby pod is claimed (docs/standby.md).
 */
import { matchLabels, type LabelRequirement } from '../selectors.js';
import { SimApiError, type KubeObject, type SimStore } from '../types.js';
import { controllerOf, isOwnedBy, ownerReference } from './pods.js';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A `metav1.LabelSelector` as requirements; null for none (a nil selector matches nothing). */
export function selectorRequirements(selector: unknown): LabelRequirement[] | null {
  if (selector === null || typeof selector !== 'object') return null;
  const s = selector as LabelSelector;
  const out: LabelRequirement[] = Object.entries(s.matchLabels ?? {}).map(([key, value]) => ({
    key,
    op: '=' as const,
    value,
  }));
  for (const e of s.matchExpressions ?? []) {
    if (e.operator === 'In') out.push({ key: e.key, op: 'in', values: e.values ?? [] });
    else if (e.operator === 'NotIn') out.push({ key: e.key, op: 'notin', values: e.values ?? [] });
    else if (e.operator === 'Exists') out.push({ key: e.key, op: 'exists' });
    else if (e.operator === 'DoesNotExist') out.push({ key: e.key, op: '!' });
  }
  return out;
}

/**
 * The pods `rs` controls after releasing its `owned` pods that no longer match its selector and
 * adopting the `orphans` (pods with no controller, any namespace: only its own are looked at) that
 * match. Writes each release or adoption to `store`; a pod changed or deleted meanwhile is left
 * for the next pass.
 */
export function claimPods(
  store: SimStore,
  rs: KubeObject,
  owned: readonly KubeObject[],
  orphans: readonly KubeObject[],
): KubeObject[] {
  const reqs = selectorRequirements(rs.spec?.selector);
  if (reqs === null || reqs.length === 0 || rs.metadata.deletionTimestamp) return [...owned];
  const kept: KubeObject[] = [];
  for (const p of owned) {
    if (matchLabels(reqs, p.metadata.labels) || p.metadata.deletionTimestamp) kept.push(p);
    else
      writeOwner(store, p, (refs) => refs.filter((r) => !(r.controller && r.uid === controllerOf(p)?.uid)));
  }
  for (const p of orphans) {
    if (p.metadata.namespace !== rs.metadata.namespace || p.metadata.deletionTimestamp) continue;
    if (!matchLabels(reqs, p.metadata.labels)) continue;
    const adopted = writeOwner(store, p, (refs) => [...refs, ownerReference(rs)]);
    if (adopted && isOwnedBy(adopted, rs)) kept.push(adopted);
  }
  return kept;
}

type OwnerRefs = NonNullable<KubeObject['metadata']['ownerReferences']>;

/** Writes `pod`'s owner references as `change` makes them; the stored pod, or null when it changed meanwhile. */
function writeOwner(
  store: SimStore,
  pod: KubeObject,
  change: (refs: OwnerRefs) => OwnerRefs,
): KubeObject | null {
  const fresh = store.get('pods', pod.metadata.namespace, pod.metadata.name);
  if (!fresh || fresh.metadata.resourceVersion !== pod.metadata.resourceVersion) return null;
  const copy = structuredClone(fresh);
  const refs = change(copy.metadata.ownerReferences ?? []);
  if (refs.length > 0) copy.metadata.ownerReferences = refs;
  else delete copy.metadata.ownerReferences;
  try {
    return store.update('pods', copy);
  } catch (err) {
    if (err instanceof SimApiError) return null;
    throw err;
  }
}
