/**
 * RBAC for the simulated API server (opt-in, `startSimCluster({ rbac: true })`): authorisation by
 * the Role, ClusterRole, RoleBinding and ClusterRoleBinding objects in the store, as
 * kube-apiserver's RBAC authorizer decides (https://kubernetes.io/docs/reference/access-authn-authz/rbac/),
 * of the users the bearer-token authenticator (`authn.ts`) names. A denied request gets the API
 * server's 403 `Status` (reason `Forbidden`, the same message wording); every request a
 * ServiceAccount makes is recorded as (verb, group, resource, namespace), so a test can check that
 * a role grants nothing its holder never uses.
 *
 * Tokens: the kubeconfig's admin token is a cluster admin (`system:masters`); tokens from
 * {@link SimRbac.issueToken} are ServiceAccounts; anything else is 401 Unauthorized (authn.ts).
 * Discovery (`/api`, `/apis`, `/version`) is open to every authenticated user, as the
 * `system:discovery` ClusterRole makes it.
 */
import type { IncomingMessage } from 'node:http';
import type { Authenticator, SimUser } from './authn.js';
import { parsePath } from './rest-target.js';
import type { MemoryStore } from './store.js';
import { SimApiError, type KubeObject } from './types.js';

export { ADMIN_TOKEN, serviceAccountUser, type SimUser } from './authn.js';

/** The attributes RBAC decides on (kube-apiserver's `authorizer.Attributes`, resource requests). */
export interface RequestAttributes {
  verb: string;
  /** API group, '' for core. */
  group: string;
  /** Plural resource, with `/subresource` when the request names one (`deployments/scale`). */
  resource: string;
  /** '' for cluster-scoped objects and for lists across all namespaces. */
  namespace: string;
  /** '' for collection requests. */
  name: string;
}

/** One request of a ServiceAccount, as recorded. */
export interface AccessRecord extends Omit<RequestAttributes, 'name'> {
  username: string;
  allowed: boolean;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

/** The RBAC side of a running simulated cluster. */
export interface SimRbac {
  /** A bearer token for ServiceAccount `namespace/name` (the object itself need not exist). */
  issueToken(namespace: string, name: string): string;
  /** Every distinct request a ServiceAccount made, allowed or not, in first-seen order. */
  records(): AccessRecord[];
}

/** The verb of a request (kube-apiserver's request info): get/list/watch/create/update/patch/delete/deletecollection. */
export function requestVerb(method: string, url: URL, hasName: boolean): string {
  const watch = url.searchParams.get('watch');
  switch (method) {
    case 'GET':
    case 'HEAD':
      if (watch === 'true' || watch === '1') return 'watch';
      return hasName ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return hasName ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** Whether a rule allows the request (rbac `RuleAllows`: verb, group, resource, resourceNames). */
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  const has = (list: string[] | undefined, v: string) => (list ?? []).some((x) => x === '*' || x === v);
  if (!has(rule.verbs, a.verb) || !has(rule.apiGroups, a.group)) return false;
  const [, sub] = a.resource.split('/');
  const resourceOk = (rule.resources ?? []).some(
    (r) => r === '*' || r === a.resource || (sub !== undefined && r === `*/${sub}`),
  );
  if (!resourceOk) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (a.name !== '' && names.includes(a.name));
}

function subjectMatches(s: Subject, user: SimUser): boolean {
  if (s.kind === 'User') return s.name === user.username;
  if (s.kind === 'Group') return s.name !== undefined && user.groups.includes(s.name);
  if (s.kind === 'ServiceAccount')
    return user.username === `system:serviceaccount:${s.namespace ?? ''}:${s.name ?? ''}`;
  return false;
}

const rulesOf = (o: KubeObject | undefined): PolicyRule[] =>
  Array.isArray(o?.rules) ? (o.rules as PolicyRule[]) : [];
const subjectsOf = (o: KubeObject): Subject[] => (Array.isArray(o.subjects) ? (o.subjects as Subject[]) : []);
const roleRefOf = (o: KubeObject): { kind?: string; name?: string } =>
  (o.roleRef as { kind?: string; name?: string } | undefined) ?? {};

/**
 * Whether `user` may do `a`, from the RBAC objects in `store`: a ClusterRoleBinding's ClusterRole
 * applies everywhere; a RoleBinding's Role or ClusterRole applies only in the binding's namespace
 * (so a cluster-scoped request or a list across all namespaces needs a ClusterRoleBinding).
 */
export function authorize(store: MemoryStore, user: SimUser, a: RequestAttributes): boolean {
  if (user.groups.includes('system:masters')) return true;
  for (const b of store.list('clusterrolebindings')) {
    if (!subjectsOf(b).some((s) => subjectMatches(s, user))) continue;
    const ref = roleRefOf(b);
    if (ref.kind !== 'ClusterRole' || !ref.name) continue;
    if (rulesOf(store.get('clusterroles', undefined, ref.name)).some((r) => ruleAllows(r, a))) return true;
  }
  if (a.namespace === '') return false;
  for (const b of store.list('rolebindings', a.namespace)) {
    if (!subjectsOf(b).some((s) => subjectMatches(s, user))) continue;
    const ref = roleRefOf(b);
    if (!ref.name) continue;
    const role =
      ref.kind === 'ClusterRole'
        ? store.get('clusterroles', undefined, ref.name)
        : ref.kind === 'Role'
          ? store.get('roles', a.namespace, ref.name)
          : undefined;
    if (rulesOf(role).some((r) => ruleAllows(r, a))) return true;
  }
  return false;
}

/** kube-apiserver's wording of a 403 (`forbiddenMessage` in apiserver's `responsewriters`). */
export function forbidden(user: SimUser, a: RequestAttributes): SimApiError {
  const [resource, sub] = a.resource.split('/');
  const qualified = `${resource}${a.group ? `.${a.group}` : ''}`;
  const what = a.name ? `${qualified} "${a.name}"` : qualified;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  const res = sub ? `${resource}/${sub}` : resource;
  return new SimApiError(
    403,
    'Forbidden',
    `${what} is forbidden: User "${user.username}" cannot ${a.verb} resource "${res}" in API group "${a.group}" ${scope}`,
    { ...(a.name ? { name: a.name } : {}), group: a.group, kind: resource },
  );
}

/** The authorizer and access log of one simulated cluster (authentication: `authn.ts`). */
export class RbacGate implements SimRbac {
  private readonly seen = new Map<string, AccessRecord>();

  constructor(
    private readonly store: MemoryStore,
    private readonly authn: Authenticator,
  ) {}

  issueToken(namespace: string, name: string): string {
    return this.authn.issueToken(namespace, name);
  }

  records(): AccessRecord[] {
    return [...this.seen.values()];
  }

  /**
   * Authorises one authenticated request: resource requests by the RBAC objects; discovery and
   * other paths pass. @throws SimApiError 403
   */
  check(user: SimUser, req: IncomingMessage, url: URL): void {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const t = parsePath(path)?.target;
    if (!t) return; // discovery: system:discovery allows every authenticated user
    const a: RequestAttributes = {
      verb: requestVerb(req.method ?? 'GET', url, t.name !== undefined),
      group: t.info.group,
      resource: t.sub ? `${t.info.resource}/${t.sub}` : t.info.resource,
      namespace: t.namespace ?? '',
      name: t.name ?? '',
    };
    const allowed = authorize(this.store, user, a);
    if (user.username.startsWith('system:serviceaccount:')) {
      const record: AccessRecord = {
        username: user.username,
        verb: a.verb,
        group: a.group,
        resource: a.resource,
        namespace: a.namespace,
        allowed,
      };
      const key = JSON.stringify(record);
      if (!this.seen.has(key)) this.seen.set(key, record);
    }
    if (!allowed) throw forbidden(user, a);
  }
}

/**
 * The NamespaceLifecycle admission plugin's rule (opt-in, `namespaceLifecycle: true`): an object
 * cannot be created in a namespace that does not exist (404 `namespaces "x" not found`). Without
 * it the simulator creates missing namespaces on the fly, which hides a missing Namespace.
 * @throws SimApiError 404
 */
export function checkNamespaceExists(store: MemoryStore, req: IncomingMessage, url: URL): void {
  const method = req.method ?? 'GET';
  if (method !== 'POST' && method !== 'PUT' && method !== 'PATCH') return;
  const t = parsePath(url.pathname.replace(/\/+$/, '') || '/')?.target;
  if (!t || !t.info.namespaced || t.namespace === undefined) return;
  if (!store.get('namespaces', undefined, t.namespace))
    throw new SimApiError(404, 'NotFound', `namespaces "${t.namespace}" not found`);
}
