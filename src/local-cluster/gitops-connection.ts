/**
 * The GitOps repository as Flux sees it on the local cluster: the bare repository served by the
 * local Git HTTP server, and the shipped GitRepository and Kustomization pointing at it.
 * `reconcile()` is `flux reconcile kustomization --with-source`: the source fetches `main`, then
 * the Kustomization applies that revision; it resolves with the applied revision.
 */
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { kubeObjectApi } from '../gitops-apply/index.js';
import { FLUX_NAMESPACE, fluxObjects, LOCAL_CLUSTER_MANAGER, reconcileNow } from './flux.js';
import { startGitHttpServer } from './git-http.js';

/** A connected repository. */
export interface GitOpsConnection {
  /** The repository's URL on the local Git server. */
  url: string;
  /** Name of the Kustomization (`gpuops-<cluster>`). */
  kustomization: string;
  /** Fetches `main` and applies it; resolves with the revision applied (`main@sha1:<commit>`). */
  reconcile(): Promise<string>;
  close(): Promise<void>;
}

/** Serves `repo` and applies the Flux objects for `cluster` with `interval`. */
export async function connectGitOps(
  kc: KubeConfig,
  repo: string,
  cluster: string,
  interval: string,
): Promise<GitOpsConnection> {
  const git = await startGitHttpServer(path.dirname(repo));
  const url = `${git.url}/${path.basename(repo)}`;
  const api = kubeObjectApi(kc);
  await api.apply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: FLUX_NAMESPACE } },
    LOCAL_CLUSTER_MANAGER,
    true,
  );
  const objects = fluxObjects({ url, cluster, interval });
  for (const o of objects) await api.apply(o, LOCAL_CLUSTER_MANAGER, true);
  const source = objects.find((o) => o.kind === 'GitRepository')!;
  const kustomization = objects.find((o) => o.kind === 'Kustomization')!;
  return {
    url,
    kustomization: kustomization.metadata.name,
    reconcile: async () => {
      const s = await reconcileNow(kc, {
        apiVersion: source.apiVersion,
        kind: source.kind,
        name: source.metadata.name,
      });
      const fetched = (s.artifact as { revision?: string } | undefined)?.revision;
      const k = await reconcileNow(kc, {
        apiVersion: kustomization.apiVersion,
        kind: kustomization.kind,
        name: kustomization.metadata.name,
      });
      const ready = k.conditions?.find((c) => c.type === 'Ready');
      if (ready?.status !== 'True' || k.lastAppliedRevision !== fetched)
        throw new Error(
          `Flux Kustomization ${kustomization.metadata.name}: not applied (${fetched ?? 'no artifact'}): ${ready?.message ?? 'no Ready condition'}`,
        );
      return String(k.lastAppliedRevision);
    },
    close: git.close,
  };
}
