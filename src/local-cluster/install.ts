/**
 * gpuops installed on the local cluster as a platform team installs it: the ServiceAccount and
 * RBAC objects of templates/install (or one of its components) applied exactly as shipped, and a
 * token for the ServiceAccount from the TokenRequest API (what `kubectl create token` does and
 * what a pod's projected token is), so gpuops runs with the rights the install gives and no more.
 */
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeObject } from '../cluster/index.js';
import { kubeObjectApi, readKustomizeTree } from '../gitops-apply/index.js';
import { httpsRequest } from './control-plane.js';
import { kubeconfigText } from './credentials.js';

/** templates/install. */
export const INSTALL_DIR = fileURLToPath(new URL('../../templates/install/', import.meta.url));
/** gpuops's ServiceAccount in the shipped install. */
export const GPUOPS_SA = { namespace: 'gpuops-system', name: 'gpuops' } as const;

const RBAC_KINDS = new Set([
  'Namespace',
  'ServiceAccount',
  'ClusterRole',
  'ClusterRoleBinding',
  'Role',
  'RoleBinding',
]);

/**
 * Applies the Namespace, ServiceAccount and RBAC objects of a kustomize folder (templates/install
 * or `components/<name>`) with server-side apply as `kubectl`; returns them.
 * @throws Error naming the folder when it does not build
 */
export async function installGpuopsRbac(kc: KubeConfig, dir = INSTALL_DIR): Promise<KubeObject[]> {
  const tree = readKustomizeTree(dir);
  if (tree.errors.length > 0)
    throw new Error(`${dir}: ${tree.errors.map((e) => JSON.stringify(e)).join('; ')}`);
  const objects = tree.manifests.map((m) => m.object).filter((o) => RBAC_KINDS.has(o.kind));
  const api = kubeObjectApi(kc);
  for (const o of objects) await api.apply(o, 'kubectl', true);
  return objects;
}

/** Where a token is asked for: the API server, its CA and an admin token. */
export interface TokenIssuer {
  server: string;
  ca: string;
  adminToken: string;
  caFile: string;
}

/**
 * A kubeconfig (text) for `namespace/name` with a TokenRequest token valid for `seconds`.
 * @throws Error with the API server's answer when the request is refused
 */
export async function serviceAccountKubeconfig(
  issuer: TokenIssuer,
  account: { namespace: string; name: string } = GPUOPS_SA,
  seconds = 7200,
): Promise<string> {
  const url = `${issuer.server}/api/v1/namespaces/${account.namespace}/serviceaccounts/${account.name}/token`;
  const body = {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: seconds },
  };
  const res = await httpsRequest(url, issuer.ca, issuer.adminToken, 'POST', {
    type: 'application/json',
    text: JSON.stringify(body),
  });
  if (res.status !== 201)
    throw new Error(`TokenRequest ${account.namespace}/${account.name}: ${res.status} ${res.body}`);
  const token = (JSON.parse(res.body) as { status: { token: string } }).status.token;
  return kubeconfigText(issuer.server, issuer.caFile, token, `${account.namespace}:${account.name}`);
}

/** The issuer of a started local cluster. */
export const issuerOf = (c: {
  server: string;
  credentials: { ca: string; caFile: string; tokens: { admin: string } };
}): TokenIssuer => ({
  server: c.server,
  ca: c.credentials.ca,
  caFile: c.credentials.caFile,
  adminToken: c.credentials.tokens.admin,
});
