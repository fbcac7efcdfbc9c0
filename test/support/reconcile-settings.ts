import { join } from 'node:path';
import { settingsWith, type Settings } from '../../src/config/settings.js';
import type { Harness } from './reconcile-harness.js';

/**
 * The connection settings `gpuops run` would resolve for `h` (the defaults of every flag, and
 * `settingsWith`'s), for `createReconciler`, which composes its own adapters from them: `h`'s bare
 * repo and cluster, the `git` provider (a GitHub address that cannot resolve), no Prometheus and no
 * dcgm-exporter, and the SQLite file `dbFile`. Writes the admin kubeconfig of `h`'s simulated
 * cluster to `<repo root>/kubeconfig` and names it.
 */
export function settingsFor(h: Harness, dbFile = join(h.repo.root, 'state.db')): Settings {
  const kubeconfig = join(h.repo.root, 'kubeconfig');
  h.sim.writeKubeconfig(kubeconfig);
  return settingsWith({
    repoUrl: h.repo.url,
    cluster: h.cluster,
    provider: 'git',
    githubApiUrl: 'https://api.github.invalid',
    kubeconfig,
    database: `sqlite:${dbFile}`,
  });
}
