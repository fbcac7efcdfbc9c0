/**
 * Where the local cluster's binaries are: envtest's convention, one folder (`KUBEBUILDER_ASSETS`)
 * holding them, so a user with `setup-envtest` can point at its download (which holds etcd and
 * kube-apiserver; the rest is then looked up in gpuops's own build folder). The default folder is
 * the one `scripts/k8s/build.sh` builds into: `~/.cache/gpuops/k8s/<version>-<os>-<arch>/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** Kubernetes release scripts/k8s/build.sh builds (keep equal to its KUBERNETES). */
export const KUBERNETES_VERSION = '1.37.2';

/** Every binary the local cluster starts. */
export const BINARIES = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
  'source-controller',
  'kustomize-controller',
] as const;
/** The name of one binary scripts/k8s/build.sh builds ({@link BINARIES}). */
export type Binary = (typeof BINARIES)[number];

const goArch = (a: string) => (a === 'x64' ? 'amd64' : a === 'arm64' ? 'arm64' : a);

/** The folder scripts/k8s/build.sh builds into (`GPUOPS_K8S_ASSETS` overrides it, as it does the script's). */
export function defaultAssetsDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.GPUOPS_K8S_ASSETS ??
    path.join(
      homedir(),
      '.cache',
      'gpuops',
      'k8s',
      `${KUBERNETES_VERSION}-${process.platform}-${goArch(process.arch)}`,
    )
  );
}

/** The folders searched, in order: `KUBEBUILDER_ASSETS` when set, then {@link defaultAssetsDir}. */
export function assetFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...(env.KUBEBUILDER_ASSETS ? [env.KUBEBUILDER_ASSETS] : []), defaultAssetsDir(env)];
}

/** The binaries and folders a cluster without Flux needs. */
export const CORE = ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kwok'];

/** Path of each binary of `needed` (default: all and Flux's CRDs), or those missing from every folder. */
export function findAssets(
  env: NodeJS.ProcessEnv = process.env,
  needed: readonly string[] = [...BINARIES, 'crds'],
):
  | { ok: true; path: (b: string) => string; crds: string; versions: string }
  | { ok: false; missing: string[]; folders: string[] } {
  const folders = assetFolders(env);
  const found = new Map<string, string>();
  for (const b of needed) {
    const dir = folders.find((f) => existsSync(path.join(f, b)));
    if (dir) found.set(b, path.join(dir, b));
  }
  const missing = needed.filter((b) => !found.has(b));
  if (missing.length > 0) return { ok: false, missing, folders };
  const versionsFile = path.join(defaultAssetsDir(env), 'versions.txt');
  return {
    ok: true,
    path: (b) => found.get(b)!,
    crds: found.get('crds') ?? '',
    versions: existsSync(versionsFile) ? readFileSync(versionsFile, 'utf8').trim() : 'unknown',
  };
}
