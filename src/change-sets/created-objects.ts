/**
 * The access a change set grants: the Namespaces, RoleBindings and ClusterRoleBindings its files
 * create, and the bindings whose grant (roleRef or subjects) it changes. A reviewer must see these
 * in the title and on the body's first lines, since a spec author is confined only if a reviewer
 * sees the grants (docs/design.md, "Architecture"): a pools pull request that writes a Namespace
 * `kube-system` with a RoleBinding of gpuops's ServiceAccount is a grant, not a node move. Pure:
 * the change set's files and the base branch's files in, a sorted list out.
 */
import { parseAllDocuments } from 'yaml';
import type { FileChange } from '../manifests/index.js';
import { byString } from '../util/index.js';

/** Kinds whose creation or change the title names. */
export type GrantKind = 'Namespace' | 'RoleBinding' | 'ClusterRoleBinding';

/** One object a change set creates, or a binding whose grant it changes. */
export interface CreatedObject {
  kind: GrantKind;
  /** `metadata.name`. */
  name: string;
  /** The namespace of a RoleBinding (a Namespace's is its own name); null for cluster-scoped kinds. */
  namespace: string | null;
  /** `create`: not in the base branch's file; `change`: a binding whose roleRef or subjects differ. */
  action: 'create' | 'change';
  /** A binding's `roleRef` as `ClusterRole/gpuops-benchmark`; null for a Namespace. */
  role: string | null;
  /** A binding's subjects as `ServiceAccount gpuops-system/gpuops`; empty for a Namespace. */
  subjects: string[];
}

/** A cheap first test, so node manifests (thousands a pass) are never parsed. */
const GRANT_KIND = /^kind:\s*["']?(Namespace|RoleBinding|ClusterRoleBinding)["']?\s*$/m;

interface Grant {
  key: string;
  object: Omit<CreatedObject, 'action'>;
  grant: string;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** The grant documents of one file's text; a document that does not parse is left out. */
function grantsOf(text: string): Grant[] {
  const out: Grant[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) continue;
    const o = record(doc.toJS());
    const kind = o.kind;
    if (kind !== 'Namespace' && kind !== 'RoleBinding' && kind !== 'ClusterRoleBinding') continue;
    const meta = record(o.metadata);
    const name = typeof meta.name === 'string' ? meta.name : '';
    const namespace =
      kind === 'Namespace' ? name : kind === 'RoleBinding' ? String(meta.namespace ?? '') : null;
    const ref = record(o.roleRef);
    const role = kind === 'Namespace' ? null : `${String(ref.kind ?? '')}/${String(ref.name ?? '')}`;
    const subjects = (Array.isArray(o.subjects) ? o.subjects : []).map((s) => {
      const r = record(s);
      const ns = typeof r.namespace === 'string' ? `${r.namespace}/` : '';
      return `${String(r.kind ?? '')} ${ns}${String(r.name ?? '')}`;
    });
    out.push({
      key: `${kind}\0${namespace ?? ''}\0${name}`,
      object: { kind, name, namespace, role, subjects },
      grant: JSON.stringify([role, subjects]),
    });
  }
  return out;
}

const KIND_ORDER: Record<GrantKind, number> = { Namespace: 0, ClusterRoleBinding: 1, RoleBinding: 2 };

/**
 * The Namespaces and bindings `files` create (absent from the same path of `current`, or
 * `current` not given), and the bindings whose roleRef or subjects change. Sorted by namespace,
 * then Namespace before bindings, then name.
 */
export function createdObjects(
  files: readonly FileChange[],
  current?: ReadonlyMap<string, string>,
): CreatedObject[] {
  const out: CreatedObject[] = [];
  for (const f of files) {
    if (f.content === null || !GRANT_KIND.test(f.content)) continue;
    const before = current?.get(f.path);
    const old = new Map(
      before !== undefined && GRANT_KIND.test(before) ? grantsOf(before).map((g) => [g.key, g]) : [],
    );
    for (const g of grantsOf(f.content)) {
      const was = old.get(g.key);
      if (!was) out.push({ ...g.object, action: 'create' });
      else if (g.object.kind !== 'Namespace' && was.grant !== g.grant)
        out.push({ ...g.object, action: 'change' });
    }
  }
  return out.sort(
    (a, b) =>
      byString(a.namespace ?? '', b.namespace ?? '') ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
      byString(a.name, b.name),
  );
}
