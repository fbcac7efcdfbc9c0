/** The kubeconfig that points a Kubernetes client at the simulated cluster. */
import { stringify } from 'yaml';
import { ADMIN_TOKEN } from './authn.js';

/** Name of the cluster, user and context in the kubeconfig. */
export const SIM_CONTEXT = 'gpuops-sim';

/** Name of the kubeconfig's plain-HTTP cluster entry (no context uses it). */
export const SIM_HTTP_CLUSTER = 'gpuops-sim-http';

/** Where the simulated API server answers. */
export interface SimEndpoints {
  /** Plain HTTP base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The same port over TLS, e.g. `https://127.0.0.1:40123`. */
  tlsUrl: string;
  /** The serving certificate (PEM), self-signed: the CA to trust. */
  ca: string;
}

/**
 * Kubeconfig YAML for the simulator at `at`, authenticating with `token`. The context
 * `gpuops-sim` uses the TLS endpoint with the serving certificate as `certificate-authority-data`
 * (kubectl sends a token only over TLS). The first cluster entry, `gpuops-sim-http`, is the plain
 * HTTP endpoint for curl and scripts that read the first `server:` and send
 * `Authorization: Bearer <token>` themselves; `insecure-skip-tls-verify: true` there because
 * @kubernetes/client-node refuses plain HTTP otherwise.
 * @param token the bearer token; the default is the simulator's default admin token (`authn.ts`)
 * @param plain the context uses the plain-HTTP entry instead (for a test's HTTP proxy in front;
 *   client-node sends the token over plain HTTP, kubectl does not)
 */
export function renderKubeconfig(
  at: SimEndpoints,
  namespace = 'default',
  token = ADMIN_TOKEN,
  plain = false,
): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: SIM_HTTP_CLUSTER, cluster: { server: at.url, 'insecure-skip-tls-verify': true } },
      {
        name: SIM_CONTEXT,
        cluster: {
          server: at.tlsUrl,
          'certificate-authority-data': Buffer.from(at.ca).toString('base64'),
        },
      },
    ],
    users: [{ name: SIM_CONTEXT, user: { token } }],
    contexts: [
      {
        name: SIM_CONTEXT,
        context: { cluster: plain ? SIM_HTTP_CLUSTER : SIM_CONTEXT, user: SIM_CONTEXT, namespace },
      },
    ],
    'current-context': SIM_CONTEXT,
    preferences: {},
  });
}
