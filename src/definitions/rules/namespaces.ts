/**
 * Which namespaces algorithms may run in (docs/design.md, "Architecture": "a spec author is
 * confined"). A spec in `kube-system` would make the pools pull request write a Namespace and a
 * RoleBinding of gpuops's benchmark role there, and its Deployment run with that namespace's
 * ServiceAccount; so the policy names the namespaces algorithms may use and `validate` refuses any
 * other, located at `metadata.namespace`. Pure.
 *
 * Always refused, whatever the policy lists: `kube-*` (Kubernetes' own: `kube-system`,
 * `kube-public`, `kube-node-lease`) and the controller's namespace (`spec.controllerNamespace`,
 * `gpuops-system` by default), where gpuops's ServiceAccount and its token live.
 */
import type { NamespaceBinding, PolicySpec } from '../types.js';
import { stringAt } from './cross-field.js';
import { bindingPolicyProblems, bindingRefusal, boundDefaultNamespace } from './namespace-bindings.js';
import { isNamespacePattern, matchesNamespace as matches } from './namespace-pattern.js';
import type { FieldProblem } from './schema-errors.js';

export { isNamespacePattern };

/** The allow-list in force: `allowedNamespaces`, or the policy's own `namespace` when absent. */
export function allowedNamespaces(policy: PolicySpec): readonly string[] {
  return policy.allowedNamespaces ?? [policy.namespace];
}

/**
 * Why no algorithm may run in `namespace` (or in the namespaces of an `allowedNamespaces`
 * pattern), or null when it may. `kube-` is a prefix rule (a namespace `kube` or `kubeflow` is the
 * list's business); the controller's namespace is matched exactly. `listed: false` skips the
 * allow-list (the policy's own entries).
 * @example namespaceRefusal('kube-system', p) → '"kube-system" is Kubernetes\' own namespace (kube-*) …'
 */
export function namespaceRefusal(namespace: string, policy: PolicySpec, listed = true): string | null {
  const allowed = allowedNamespaces(policy).join(', ');
  if (namespace.replace(/\*$/, '').startsWith('kube-'))
    return `"${namespace}" is Kubernetes' own namespace (kube-*); algorithms never run there (allowed: ${allowed})`;
  if (namespace === policy.controllerNamespace)
    return `"${namespace}" is the controller's own namespace (policy spec.controllerNamespace); algorithms never run there (allowed: ${allowed})`;
  if (listed && !allowedNamespaces(policy).some((p) => matches(p, namespace)))
    return `namespace "${namespace}" is not in the policy's allowedNamespaces (${allowed}); the platform team adds namespaces there`;
  return null;
}

/**
 * The problem of an Algorithm's namespace when the policy does not let the spec in `file` run
 * there: the allow-list and `kube-*` rules ({@link namespaceRefusal}) and the policy's
 * `namespacesByPath` (`namespace-bindings.ts`). Located at `metadata.namespace`, or at `metadata`
 * when the spec names none and the namespace it would get (its binding's, else the policy's) is
 * refused to its file.
 * @param value  the Algorithm document as parsed
 * @param file   the spec file's repo-relative path (`algorithms/team-a/x.yaml`)
 * @param schema the schema problems already found in it (a malformed name is reported there)
 */
export function namespaceProblems(
  value: unknown,
  policy: PolicySpec,
  schema: readonly FieldProblem[],
  file: string,
): FieldProblem[] {
  const own = stringAt(value, ['metadata', 'namespace'], schema);
  const meta = (value as { metadata?: unknown } | null)?.metadata;
  const given = meta !== null && typeof meta === 'object' && 'namespace' in meta;
  if (own === undefined && given) return []; // malformed: the schema's problem
  const ns = own ?? boundDefaultNamespace(file, policy.namespacesByPath) ?? policy.namespace;
  const why = namespaceRefusal(ns, policy) ?? bindingRefusal(file, ns, policy.namespacesByPath);
  if (!why) return [];
  if (own !== undefined) return [{ path: ['metadata', 'namespace'], at: 'value', message: why }];
  // A default that is no name came from the folder (a binding's capture): `why` says so already.
  const message = isNamespacePattern(ns)
    ? `no metadata.namespace, so "${ns}": ${why}; set metadata.namespace`
    : why;
  return [{ path: ['metadata'], at: 'key', message }];
}

/**
 * The policy's own namespace rules, on the merged policy `p` (possibly invalid): `namespace` and
 * every `allowedNamespaces` entry stay out of `kube-*` and the controller's namespace, and the
 * list (when given) holds `namespace`, else every spec without a namespace would be refused. A
 * standby set's namespace is where its algorithms run and where gpuops gets to relabel and delete
 * Pods (the `gpuops-claim` RoleBinding), so it obeys the same rules as an Algorithm's, the allow-list
 * included (`standbyNamespaceProblems`).
 * @param schema the schema problems already found in `p`
 */
export function policyNamespaceProblems(p: unknown, schema: readonly FieldProblem[]): FieldProblem[] {
  const at = (...path: (string | number)[]) => ['spec', ...path];
  const namespace = stringAt(p, at('namespace'), schema);
  const controller = stringAt(p, at('controllerNamespace'), schema);
  if (namespace === undefined || controller === undefined) return [];
  const raw = (p as { spec: { allowedNamespaces?: unknown } }).spec.allowedNamespaces;
  const list = Array.isArray(raw) && !schema.some((s) => s.path[1] === 'allowedNamespaces') ? raw : undefined;
  const policy = {
    namespace,
    controllerNamespace: controller,
    ...(list ? { allowedNamespaces: list as string[] } : {}),
  } as PolicySpec;
  const out: FieldProblem[] = [];
  const own = namespaceRefusal(namespace, policy, false);
  if (own) out.push({ path: at('namespace'), at: 'value', message: own });
  list?.forEach((entry: string, i) => {
    const why = namespaceRefusal(entry, policy, false);
    if (why) out.push({ path: at('allowedNamespaces', i), at: 'value', message: why });
  });
  const bindings = (p as { spec: { namespacesByPath?: unknown } }).spec.namespacesByPath;
  if (Array.isArray(bindings) && !schema.some((s) => s.path[1] === 'namespacesByPath'))
    for (const b of bindingPolicyProblems(bindings as NamespaceBinding[], (ns) =>
      namespaceRefusal(ns, policy, false),
    ))
      out.push({ ...b, at: 'value' });
  if (list && !own && !list.some((e: string) => matches(e, namespace)))
    out.push({
      path: at('allowedNamespaces'),
      at: 'value',
      message: `does not hold the policy's namespace "${namespace}", where every spec without a namespace runs`,
    });
  return [...out, ...standbyNamespaceProblems(p, policy, schema)];
}

/**
 * `spec.standby[i].namespace` refused by {@link namespaceRefusal} (the allow-list included); none
 * while the schema finds a problem in `spec.standby` (a malformed name is reported there).
 */
function standbyNamespaceProblems(
  p: unknown,
  policy: PolicySpec,
  schema: readonly FieldProblem[],
): FieldProblem[] {
  const sets = (p as { spec: { standby?: unknown } }).spec.standby;
  if (!Array.isArray(sets) || schema.some((s) => s.path[1] === 'standby')) return [];
  return sets.flatMap((set: { namespace?: unknown }, i): FieldProblem[] => {
    const why = typeof set?.namespace === 'string' ? namespaceRefusal(set.namespace, policy) : null;
    return why ? [{ path: ['spec', 'standby', i, 'namespace'], at: 'value', message: why }] : [];
  });
}
