/**
 * The credentials of a local control plane, made at start into its folder (nothing is reused
 * between runs):
 * - the API server's serving certificate for 127.0.0.1 and localhost, its own CA (the simulator's
 *   `selfSignedCert`), which every client and the controller-manager's root CA publisher trust;
 * - the ServiceAccount token signing key (ECDSA P-256; `--service-account-signing-key-file` and
 *   `--service-account-key-file` of kube-apiserver, `--service-account-private-key-file` of
 *   kube-controller-manager);
 * - a static token file (`--token-auth-file`, CSV `token,user,uid,"groups"`) with one random
 *   token per user: the admin and the tools in `system:masters`, the controller-manager and the
 *   scheduler as the users RBAC's bootstrap roles bind (`system:kube-controller-manager`,
 *   `system:kube-scheduler`), so RBAC decides for them as on a kubeadm cluster.
 * - the front proxy's client certificate (`--proxy-client-cert-file`), its own CA
 *   (`--requestheader-client-ca-file`): kube-apiserver presents it when it forwards a request to
 *   an aggregated API server (the custom metrics API), which trusts the user it names in
 *   `X-Remote-User` only from a client with that certificate (the aggregation layer's set-up,
 *   https://kubernetes.io/docs/tasks/extend-kubernetes/configure-aggregation-layer/).
 * A kubeconfig per user points at the server with `certificate-authority`.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { selfSignedCert } from '../sim/index.js';

/** Users of the control plane and their RBAC identity. */
export const USERS = {
  admin: { user: 'gpuops-admin', groups: ['system:masters'] },
  controllerManager: { user: 'system:kube-controller-manager', groups: [] },
  scheduler: { user: 'system:kube-scheduler', groups: [] },
  kwok: { user: 'kwok', groups: ['system:masters'] },
  flux: { user: 'flux', groups: ['system:masters'] },
  metricsAdapter: { user: 'prometheus-adapter', groups: ['system:masters'] },
} as const;

/** A user of {@link USERS}. */
export type LocalUser = keyof typeof USERS;

/** Files written by {@link writeCredentials} (absolute paths). */
export interface Credentials {
  caFile: string;
  certFile: string;
  keyFile: string;
  saKeyFile: string;
  saPubFile: string;
  tokenFile: string;
  /** The front proxy's client certificate (its own CA) and key. */
  proxyCertFile: string;
  proxyKeyFile: string;
  /** PEM of the CA (the serving certificate). */
  ca: string;
  tokens: Record<LocalUser, string>;
  /** Kubeconfig file of each user. */
  kubeconfigs: Record<LocalUser, string>;
}

/** A kubeconfig (YAML is JSON's superset, so JSON) for `server` with a bearer token. */
export function kubeconfigText(server: string, caFile: string, token: string, user: string): string {
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'gpuops-local', cluster: { server, 'certificate-authority': caFile } }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: 'gpuops-local', context: { cluster: 'gpuops-local', user } }],
      'current-context': 'gpuops-local',
    },
    null,
    2,
  );
}

/** Writes every credential into `dir` for an API server at `server` (`https://127.0.0.1:PORT`). */
export function writeCredentials(dir: string, server: string): Credentials {
  const file = (name: string) => path.join(dir, name);
  const serving = selfSignedCert(['127.0.0.1', 'localhost']);
  writeFileSync(file('ca.crt'), serving.cert);
  writeFileSync(file('apiserver.key'), serving.key, { mode: 0o600 });
  const proxy = selfSignedCert(['front-proxy-client'], new Date(), 'clientAuth');
  writeFileSync(file('front-proxy.crt'), proxy.cert);
  writeFileSync(file('front-proxy.key'), proxy.key, { mode: 0o600 });
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  writeFileSync(file('sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, {
    mode: 0o600,
  });
  writeFileSync(file('sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }) as string);
  const tokens = {} as Record<LocalUser, string>;
  const kubeconfigs = {} as Record<LocalUser, string>;
  const rows: string[] = [];
  for (const [key, u] of Object.entries(USERS) as [LocalUser, (typeof USERS)[LocalUser]][]) {
    tokens[key] = randomBytes(24).toString('hex');
    rows.push(`${tokens[key]},${u.user},${u.user},"${u.groups.join(',')}"`);
    kubeconfigs[key] = file(`${key}.kubeconfig`);
    writeFileSync(kubeconfigs[key], kubeconfigText(server, file('ca.crt'), tokens[key], u.user), {
      mode: 0o600,
    });
  }
  writeFileSync(file('tokens.csv'), `${rows.join('\n')}\n`, { mode: 0o600 });
  return {
    caFile: file('ca.crt'),
    certFile: file('ca.crt'),
    keyFile: file('apiserver.key'),
    saKeyFile: file('sa.key'),
    saPubFile: file('sa.pub'),
    tokenFile: file('tokens.csv'),
    proxyCertFile: file('front-proxy.crt'),
    proxyKeyFile: file('front-proxy.key'),
    ca: serving.cert,
    tokens,
    kubeconfigs,
  };
}
