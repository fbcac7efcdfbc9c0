/**
 * What the admission policy tests on the real control plane share: the install's Flux applier
 * (its ServiceAccount, RBAC and first namespace `algorithms`, without Flux's own objects) and an
 * admission policy file applied as shipped, a ServiceAccount's TokenRequest token, and a create as
 * a given token with the API server's answer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/cluster/object.js';
import { httpsRequest } from '../../src/local-cluster/control-plane.js';
import { issuerOf, serviceAccountKubeconfig } from '../../src/local-cluster/install.js';
import { INSTALL, type RealHarness } from './harness.js';

/** The objects of a file of templates/install. */
export const loadInstall = (file: string): KubeObject[] =>
  parseAllDocuments(readFileSync(path.join(INSTALL, file), 'utf8')).map((d) => d.toJS() as KubeObject);

/** A TokenRequest token of ServiceAccount `namespace/name`. */
export async function tokenOf(h: RealHarness, namespace: string, name: string): Promise<string> {
  const kubeconfig = JSON.parse(await serviceAccountKubeconfig(issuerOf(h.local), { namespace, name })) as {
    users: { user: { token: string } }[];
  };
  return kubeconfig.users[0]!.user.token;
}

/**
 * Applies the Flux applier's objects (flux-kustomization.yaml without Flux's own) and the admission
 * policy `file` as the admin; returns the applier ServiceAccount's token.
 */
export async function installApplierWith(h: RealHarness, file: string): Promise<string> {
  const applier = loadInstall('flux-kustomization.yaml').filter(
    (o) => !o.apiVersion.includes('toolkit.fluxcd.io'),
  );
  await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'flux-system' } });
  for (const o of [...applier, ...loadInstall(file)]) await h.apply(o);
  return tokenOf(h, 'flux-system', 'gpuops-applier');
}

/**
 * POSTs `object` to `/apis/<groupVersion>/namespaces/<its namespace>/<resources>` (e.g. `apps/v1`,
 * `daemonsets`) as `token`: the status and, when refused, the API server's message.
 */
export async function createAs(
  h: RealHarness,
  groupVersion: string,
  resources: string,
  object: { metadata: { namespace?: string } },
  token: string,
): Promise<{ status: number; message: string }> {
  const res = await httpsRequest(
    `${h.local.server}/apis/${groupVersion}/namespaces/${object.metadata.namespace}/${resources}`,
    h.local.credentials.ca,
    token,
    'POST',
    { type: 'application/json', text: JSON.stringify(object) },
  );
  return { status: res.status, message: res.status === 201 ? '' : (JSON.parse(res.body).message as string) };
}
