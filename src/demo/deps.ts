/**
 * The adapters of the demo's reconcile passes, built the way `createReconciler` builds them from
 * settings (`--provider git --repo-url <origin> --kubeconfig <sim> --dcgm-url <pages>
 * --database sqlite:<file>`), except for the clock: passes read the simulated cluster's clock,
 * and the benchmark runner's waits move it ahead (see {@link simulatedClock}).
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { RunnerClock } from '../benchmark/clock.js';
import { loadWorkloadTemplates } from '../benchmark/load-templates.js';
import type { BenchmarkProgress } from '../benchmark/runner.js';
import { createKubeJobApi } from '../cluster/jobs.js';
import { createKubeClient } from '../cluster/kube-client.js';
import { createClusterPatcher } from '../cluster/patch.js';
import type { ReconcileDeps } from '../controller/reconcile.js';
import { GitPullRequestHost } from '../gitops/git-host.js';
import { WorkingCopy } from '../gitops/working-copy.js';
import { DcgmScrapeSource } from '../metrics/dcgm-scrape.js';
import { loadDefaultPolicy } from '../spec/load.js';
import { openStore } from '../store/index.js';
import { sleep } from '../util/retry.js';
import type { DemoCluster } from './cluster.js';

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
 * Opens the database and the working copy and builds the reconcile adapters. The caller closes
 * `store`. @throws Error when the database or the clone cannot be opened
 */
export async function buildDemoDeps(o: DemoDepsOptions): Promise<ReconcileDeps> {
  const store = await openStore(o.database);
  try {
    const clock = simulatedClock(o.demo);
    const kc = o.demo.kubeConfig;
    const workingCopy = await WorkingCopy.open({
      repoUrl: o.origin,
      baseBranch: 'main',
      dir: path.join(o.cacheDir, 'gitops'),
    });
    const host = new GitPullRequestHost({
      store,
      cluster: o.cluster,
      base: 'main',
      now: () => clock.now(),
      log: o.log,
    });
    return {
      cluster: o.cluster,
      kube: createKubeClient(kc),
      jobs: createKubeJobApi(kc),
      patcher: createClusterPatcher(kc),
      workingCopy,
      host,
      store,
      metrics: new DcgmScrapeSource({ targets: o.demo.dcgmTargets, now: () => clock.now() }),
      defaults: await loadDefaultPolicy(),
      templates: loadWorkloadTemplates(),
      dryRun: false,
      clock,
      log: o.log,
      onBenchmarkProgress: o.onBenchmarkProgress,
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
