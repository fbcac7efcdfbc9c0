/**
 * Cluster access for the commands that need one piece of it (`benchmark`, `run`'s leader Lease),
 * built here like every other adapter (`compose.ts` builds a pass's whole set).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import {
  createKubeJobApi,
  type JobApi,
  loadKubeConfig,
  kubeLeaseApi,
  type LeaseApi,
} from '../cluster/index.js';

/**
 * The cluster access `--kubeconfig` names (then `KUBECONFIG`, `~/.kube/config`, in-cluster).
 * @throws UsageError when a given file does not exist; Error when there is no access at all
 */
export function kubeConfigOf(kubeconfig: string | undefined): KubeConfig {
  return loadKubeConfig(kubeconfig);
}

/** Benchmark Jobs on the cluster of `kc` (`cluster/jobs.ts`). */
export function jobApiOf(kc: KubeConfig): JobApi {
  return createKubeJobApi(kc);
}

/** The leader Lease `namespace/name` on the cluster of `kc` (coordination.k8s.io/v1). */
export function leaseApiOf(kc: KubeConfig, namespace: string, name: string): LeaseApi {
  return kubeLeaseApi(kc, namespace, name);
}
