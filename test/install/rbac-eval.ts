/**
 * RBAC evaluation of install manifests for tests: the objects go into a simulated API server's
 * store and each question is answered by its authorizer (`src/sim/rbac.ts`, kube-apiserver's RBAC
 * rules: a ClusterRoleBinding grants everywhere, a RoleBinding only in its namespace). Creating a
 * binding to a role needs `bind` on that role (or every permission it grants): the API server's
 * escalation check asks the authorizer for `bind`, and so does {@link canBind}.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/cluster/object.js';
import { readKustomizeTree } from '../../src/gitops-apply/kustomize-tree.js';
import { authorize, serviceAccountUser } from '../../src/sim/rbac.js';
import { MemoryStore } from '../../src/sim/store.js';
import type { Resource } from '../../src/sim/types.js';

const RESOURCES: Record<string, Resource> = {
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
};

/** The RBAC objects of a kustomization folder (`templates/install`, a component) or of YAML files. */
export function rbacObjects(source: { dir: string } | { files: string[] } | { text: string }): KubeObject[] {
  const all =
    'dir' in source
      ? readKustomizeTree(source.dir).manifests.map((m) => m.object)
      : ('files' in source ? source.files.map((f) => readFileSync(f, 'utf8')) : [source.text]).flatMap((t) =>
          parseAllDocuments(t).map((d) => d.toJS() as KubeObject),
        );
  return all.filter((o) => o && RESOURCES[o.kind] !== undefined);
}

/** A store holding `objects` (RBAC kinds only), for {@link can}. */
export function rbacStore(objects: readonly KubeObject[]): MemoryStore {
  const store = new MemoryStore();
  for (const o of objects) store.create(RESOURCES[o.kind]!, structuredClone(o));
  return store;
}

/** A request: verb, `group/resource` (`apps/deployments/scale`, `/nodes`), namespace ('' cluster), name. */
export interface Ask {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/** Whether ServiceAccount `namespace/name` may do `ask` by the RBAC objects in `store`. */
export function can(store: MemoryStore, sa: { namespace: string; name: string }, ask: Ask): boolean {
  const [group, ...rest] = ask.resource.split('/');
  return authorize(store, serviceAccountUser(sa.namespace, sa.name), {
    verb: ask.verb,
    group: group!,
    resource: rest.join('/'),
    namespace: ask.namespace ?? '',
    name: ask.name ?? '',
  });
}

/** Whether the ServiceAccount may create a binding of ClusterRole `role` (RBAC's `bind` check). */
export function canBind(
  store: MemoryStore,
  sa: { namespace: string; name: string },
  role: string,
  namespace = '',
): boolean {
  return can(store, sa, {
    verb: 'bind',
    resource: 'rbac.authorization.k8s.io/clusterroles',
    namespace,
    name: role,
  });
}
