/**
 * Finding cluster access the way kubectl does: `--kubeconfig`, then the files listed in
 * `KUBECONFIG` merged by kubectl's rules, then `~/.kube/config`, then the in-cluster service
 * account.
 *
 * Merge rules, from the Kubernetes docs ("Organizing Cluster Access Using kubeconfig Files",
 * merging kubeconfig files) and client-go's `ClientConfigLoadingRules.Load`: empty names in the
 * list are ignored; files that do not exist are skipped; a file that cannot be read or parsed is an
 * error naming it; the first file to set a cluster, user or context of a given name wins, and the
 * first file to set `current-context` wins. client-node's own `mergeConfig` differs (the last
 * `current-context` wins, a repeated name throws), so the merge is done here.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { UsageError } from '../config/index.js';

/** Where the in-cluster service account token is mounted. */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** Sources of a kubeconfig, for {@link loadKubeConfig}; the defaults read the process. */
export interface KubeConfigSources {
  env?: NodeJS.ProcessEnv;
  home?: string;
  exists?: (file: string) => boolean;
}

/**
 * Loads cluster access, first match wins: `file` (the `--kubeconfig` flag), the `KUBECONFIG`
 * variable (several files joined with `:`, merged as kubectl merges them, see the module doc),
 * `~/.kube/config`, then the in-cluster service account (`KUBERNETES_SERVICE_HOST` and the mounted
 * token).
 *
 * @throws UsageError (exit 2) when the named `file` does not exist, or when none of the files in
 *   `KUBECONFIG` exists, naming them; Error naming the file for a file that cannot be parsed; Error
 *   listing where it looked when nothing is found
 */
export function loadKubeConfig(file?: string, sources: KubeConfigSources = {}): KubeConfig {
  const env = sources.env ?? process.env;
  const home = sources.home ?? homedir();
  const exists = sources.exists ?? existsSync;
  if (file) {
    if (!exists(file)) throw new UsageError(`--kubeconfig: no file at ${file}`);
    return loadFile(file);
  }
  const listed = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  if (listed.length > 0) {
    const present = listed.filter((f) => exists(f));
    if (present.length === 0) {
      throw new UsageError(`KUBECONFIG: none of its files exists: ${listed.join(', ')}`);
    }
    return mergeKubeConfigs(present.map(loadFile));
  }
  const homeConfig = path.join(home, '.kube', 'config');
  if (exists(homeConfig)) return loadFile(homeConfig);
  if (env.KUBERNETES_SERVICE_HOST && exists(SERVICE_ACCOUNT_TOKEN)) {
    const kc = new KubeConfig();
    kc.loadFromCluster();
    return kc;
  }
  throw new Error(
    `no cluster access: no --kubeconfig, KUBECONFIG unset, no ${homeConfig}, and not running in a Pod (${SERVICE_ACCOUNT_TOKEN})`,
  );
}

/**
 * Merges kubeconfigs in kubectl's order of precedence: the first to name a cluster, user or
 * context wins, and the first `current-context` set wins. Paths inside each file were already made
 * absolute against its own folder by `loadFromFile`.
 */
export function mergeKubeConfigs(configs: readonly KubeConfig[]): KubeConfig {
  const firstByName = <T extends { name: string }>(lists: (readonly T[])[]): T[] => {
    const seen = new Map<string, T>();
    for (const item of lists.flat()) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  const merged = new KubeConfig();
  merged.loadFromOptions({
    clusters: firstByName(configs.map((c) => c.getClusters())),
    users: firstByName(configs.map((c) => c.getUsers())),
    contexts: firstByName(configs.map((c) => c.getContexts())),
    currentContext: configs.map((c) => c.getCurrentContext()).find(Boolean) ?? '',
  });
  return merged;
}

/** One kubeconfig file. @throws Error naming the file when it cannot be read or parsed */
function loadFile(file: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new Error(`kubeconfig ${file}: ${(err as Error).message}`, { cause: err });
  }
  return kc;
}
