/**
 * The adapters of the demo's reconcile passes, built by `compose/compose.ts` as `gpuops reconcile` builds them from
 * settings (`--provider git --repo-url <origin> --kubeconfig <sim> --dcgm-url <pages>
 * --database sqlite:<file>`), except for the clock: passes read the simulated cluster's clock,
 * and the benchmark runner's waits move it ahead (see {@link simulatedClock}).
 */
import type { Logger } from 'pino';
import type { RunnerClock, BenchmarkProgress } from '../benchmark/index.js';
import { compose } from '../compose/index.js';
import { settingsWith, type Settings } from '../config/index.js';
import type { ReconcileDeps } from '../pass/index.js';
import { sleep } from '../retry/index.js';
import type { DemoCluster } from './cluster.js';
import type { ClusterSource } from '../cluster/index.js';

/** The demo's GitLab stand-in, as the settings name it: `--gitlab-url`, `--gitlab-project`, `GITLAB_TOKEN`. */
export interface DemoGitLab {
  url: string;
  project: string;
  token: string;
}

/**
 * The settings of the demo's pull-request host: `--provider gitlab` against the stand-in, else
 * none (the plain git provider's default).
 */
export function demoHostSettings(gitlab: DemoGitLab | undefined): Partial<Settings> {
  return gitlab
    ? { provider: 'gitlab', gitlabUrl: gitlab.url, gitlabProject: gitlab.project, gitlabToken: gitlab.token }
    : {};
}

/** Inputs of {@link buildDemoDeps}. */
export interface DemoDepsOptions {
  cluster: string;
  demo: DemoCluster;
  /** Path of the bare origin repository. */
  origin: string;
  /** `sqlite:<path>`. */
  database: string;
  /** Folder of gpuops's working copy. */
  cacheDir: string;
  log: Logger;
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
  /**
   * A GitLab to open merge requests on (the demo's stand-in): composed as `--provider gitlab
   * --gitlab-url <url> --gitlab-project <project>` with its token as `GITLAB_TOKEN`. Absent: the
   * plain git provider.
   */
  gitlab?: DemoGitLab;
  /**
   * How the demo's dcgm-exporter pages are fetched (`--dcgm-url`); default over HTTP (the global
   * `fetch`). The replay's engines read them in-process (`inProcessDcgmFetch`).
   */
  dcgmFetch?: typeof fetch;
  /** How passes read the cluster (`gpuops run`'s watch-driven cache); default: list every pass. */
  clusterRead?: ClusterSource;
}

/** Real milliseconds a simulated wait takes (lets the event loop and the printer breathe). */
const REAL_PAUSE_MS = 10;

/**
 * A clock on simulated time: `now` is the cluster's; `sleep(s)` moves the simulated clock `s`
 * seconds ahead (the simulated controllers run at once) and pauses a few real milliseconds. So a
 * benchmark of 25 simulated minutes, polled every few simulated seconds, ends in about a second,
 * and its run time is still measured from the container's simulated start and finish.
 */
export function simulatedClock(demo: DemoCluster): RunnerClock {
  const { clock } = demo.sim;
  return {
    now: () => clock.now(),
    sleep: (seconds) => {
      clock.advance(seconds);
      return sleep(REAL_PAUSE_MS);
    },
  };
}

/**
 * Opens the database and the working copy and builds the reconcile adapters with `compose/compose.ts`,
 * from the settings `--provider git --repo-url <origin> --database <database> --cluster <cluster>`
 * (`--provider gitlab` against the GitLab stand-in with `gitlab`)
 * and the demo's own cluster access, dcgm pages and clock. The caller closes `store`.
 * @throws Error when the database or the clone cannot be opened
 */
export async function buildDemoDeps(o: DemoDepsOptions): Promise<ReconcileDeps> {
  const settings = settingsWith({
    repoUrl: o.origin,
    cluster: o.cluster,
    database: o.database,
    ...demoHostSettings(o.gitlab),
  });
  const { deps } = await compose(settings, {
    kubeConfig: o.demo.kubeConfig,
    dcgmTargets: o.demo.dcgmTargets,
    ...(o.dcgmFetch ? { dcgmFetch: o.dcgmFetch } : {}),
    ...(o.clusterRead ? { clusterRead: o.clusterRead } : {}),
    clock: simulatedClock(o.demo),
    cacheDir: o.cacheDir,
    log: o.log,
    ...(o.onBenchmarkProgress ? { onBenchmarkProgress: o.onBenchmarkProgress } : {}),
  });
  return deps;
}
