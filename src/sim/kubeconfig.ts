/** The kubeconfig that points a Kubernetes client at the simulated cluster. */
import { stringify } from 'yaml';

/** Name of the cluster, user and context in the kubeconfig. */
export const SIM_CONTEXT = 'gpuops-sim';

/**
 * Kubeconfig YAML for `server` (an `http://` URL). `insecure-skip-tls-verify: true` is required:
 * @kubernetes/client-node refuses plain HTTP otherwise.
 * @param token the bearer token; the default is the simulator's admin (see `rbac.ts`)
 */
export function renderKubeconfig(server: string, namespace = 'default', token = 'gpuops-sim'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: SIM_CONTEXT, cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: SIM_CONTEXT, user: { token } }],
    contexts: [{ name: SIM_CONTEXT, context: { cluster: SIM_CONTEXT, user: SIM_CONTEXT, namespace } }],
    'current-context': SIM_CONTEXT,
    preferences: {},
  });
}
