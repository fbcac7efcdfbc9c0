/**
 * The composition root (`src/compose/`): the one place that turns connection settings into the adapters of a
 * reconcile pass (database, cluster client, benchmark Jobs, patcher, working copy, pull-request
 * host, GPU metrics source, clock, logger, default policy, templates). `gpuops run`, `reconcile`,
 * the demo, the replay, the benches and the test harness all call {@link compose}, each with its
 * own overrides, so that a new adapter or option is wired once.
 */
import os from 'node:os';
import path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { systemClock, type RunnerClock, loadWorkloadTemplates } from '../benchmark/index.js';
import type { BenchmarkProgress } from '../benchmark/index.js';
import {
  createKubeJobApi,
  createKubeClient,
  loadKubeConfig,
  createClusterPatcher,
  createStandbyPods,
  type StandbyPods,
  type StandbyPodsOptions,
} from '../cluster/index.js';
import type { ClusterSource } from '../cluster/index.js';
import type { Settings } from '../config/index.js';
import { createReconcilerMemory } from '../plan/index.js';
import type { LoopTiming } from '../scaling/index.js';
import { reconcileOnce, type ReconcileDeps, type Reconciler, type WriteFence } from '../pass/index.js';
import { fencedHost, fencedJobs, fencedPatcher } from '../controller/index.js';
import { openGitOps } from './git.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import type { GitAuthor, WorkingCopy } from '../working-copy/index.js';
import type { DcgmTarget, UtilizationSource } from '../metrics/index.js';
import { loadDefaultPolicy } from '../definitions/index.js';
import { openStore } from '../store/index.js';
import { passOpensReadOnly } from './store.js';
import type { StatusStore, Store } from '../store/index.js';
import { metricsSettingsOf, utilizationSource } from './metrics.js';

/**
 * What a caller supplies instead of building it from settings. Every field is optional; a given
 * `store` is the caller's to close, one that `compose` opened is closed by `close()`.
 */
export interface ComposeOverrides {
  store?: Store;
  /** Cluster access (the simulated cluster's, a ServiceAccount's); default from `--kubeconfig`. */
  kubeConfig?: KubeConfig;
  /**
   * How passes read the cluster (`gpuops run`: the watch-driven cache); default: list every pass.
   */
  clusterRead?: ClusterSource;
  /** `gpuops run`'s loop delays, which the scaling windows follow (`ReconcileDeps.loop`). */
  loop?: LoopTiming;
  workingCopy?: WorkingCopy;
  host?: PullRequestHost;
  /** The utilisation source; `null` for none. Default from `--prometheus-url` / `--dcgm-url`. */
  metrics?: UtilizationSource | null;
  /** dcgm-exporter endpoints with their node names, used when `metrics` is not given. */
  dcgmTargets?: DcgmTarget[];
  /** How `dcgmTargets` are fetched (default the global `fetch`; the replay's engines: in-process). */
  dcgmFetch?: typeof fetch;
  /** Time of the pass and the benchmark runner's waits; default the system clock. */
  clock?: RunnerClock;
  /** Default: silent. */
  log?: Logger;
  /** Folder of the GitOps repo clone; default `$GPUOPS_CACHE_DIR` or `~/.cache/gpuops`. */
  cacheDir?: string;
  /** Commit author of the working copy; default gpuops's own. */
  author?: GitAuthor;
  /** Environment read for `GPUOPS_CACHE_DIR` and `GPUOPS_PROMETHEUS_TOKEN`; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  onBenchmarkProgress?: (p: BenchmarkProgress) => void;
  /** Options of the standby pods adapter (tests point the runtime's wake call at a local server). */
  standbyPods?: StandbyPodsOptions;
  /**
   * `gpuops run`'s leadership check: checked right before every push, pull-request call, cluster
   * patch and benchmark Job write, and before each pass's write phase (`write-fence.ts`).
   */
  fence?: WriteFence;
}

/** The composed adapters and how to release what `compose` opened. */
export interface Composed {
  deps: ReconcileDeps;
  /** Closes the database when `compose` opened it (a given store stays open). */
  close(): Promise<void>;
}

/**
 * Builds the adapters of a reconcile pass from settings, overrides first.
 * @throws Error naming the setting when one is missing or wrong (`--repo-url`, `GITHUB_TOKEN` with
 *   `--provider github`, `--kubeconfig`); GitOpsError when the clone fails. Nothing stays open then.
 */
export async function compose(settings: Settings, o: ComposeOverrides = {}): Promise<Composed> {
  const env = o.env ?? process.env;
  const clock = o.clock ?? systemClock;
  const log = o.log ?? pino({ level: 'silent' });
  const store = o.store ?? (await openStore(settings.database, { readOnly: passOpensReadOnly(settings) }));
  const close = async () => {
    if (!o.store) await store.close();
  };
  const fenced = <T>(adapter: T, wrap: (a: T, f: WriteFence) => T): T =>
    o.fence ? wrap(adapter, o.fence) : adapter;
  try {
    const kc = o.kubeConfig ?? loadKubeConfig(settings.kubeconfig);
    const { workingCopy, host } = await openGitOps(settings, {
      store,
      now: () => clock.now(),
      log,
      cacheDir: o.cacheDir ?? env.GPUOPS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'gpuops'),
      ...(o.author ? { author: o.author } : {}),
      ...(o.fence ? { beforePush: () => o.fence!('push') } : {}),
      ...(o.workingCopy ? { workingCopy: o.workingCopy } : {}),
      ...(o.host ? { host: o.host } : {}),
    });
    const metrics =
      o.metrics !== undefined
        ? o.metrics
        : utilizationSource(
            {
              ...metricsSettingsOf(settings, env),
              ...(o.dcgmTargets ? { dcgmTargets: o.dcgmTargets } : {}),
              ...(o.dcgmFetch ? { dcgmFetch: o.dcgmFetch } : {}),
            },
            () => clock.now(),
          );
    const deps: ReconcileDeps = {
      cluster: settings.cluster,
      kube: createKubeClient(kc),
      ...(o.clusterRead ? { clusterRead: o.clusterRead } : {}),
      jobs: fenced(createKubeJobApi(kc), fencedJobs),
      patcher: fenced(createClusterPatcher(kc, { dryRun: settings.dryRun }), fencedPatcher),
      standby: fenced(createStandbyPods(kc, o.standbyPods), fencedStandbyPods),
      workingCopy,
      host: fenced(host, fencedHost),
      store,
      metrics,
      defaults: await loadDefaultPolicy(),
      templates: loadWorkloadTemplates(),
      dryRun: settings.dryRun,
      clock,
      log,
      // Every reconciler remembers its last pass; one that makes a single pass starts empty.
      memory: createReconcilerMemory(),
      ...(o.loop ? { loop: o.loop } : {}),
      ...(o.onBenchmarkProgress ? { onBenchmarkProgress: o.onBenchmarkProgress } : {}),
      ...(o.fence ? { fence: o.fence } : {}),
    };
    return { deps, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The standby pods adapter with `fence` checked before each pod's change, as `fencedPatcher`: a
 * refusal is that pod's failed result (the adapter never throws), the pod left as it is.
 */
function fencedStandbyPods(pods: StandbyPods, fence: WriteFence): StandbyPods {
  return {
    async apply(actions) {
      const out = [];
      for (const a of actions) {
        try {
          fence(`${a.kind} of pod ${a.namespace}/${a.pod}`);
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          out.push({ kind: a.kind, namespace: a.namespace, pod: a.pod, ok: false, message: why });
          continue;
        }
        out.push(...(await pods.apply([a])));
      }
      return out;
    },
  };
}

/** The clusters the GitOps repo (folders under `clusters/` on the base branch) and the database know, each sorted. */
export interface KnownClusters {
  repo: string[];
  database: string[];
}

/** A reconciler that can also say which clusters its repo and database have seen. */
export interface ComposedReconciler extends Reconciler {
  /** @throws GitOpsError when the base branch cannot be read; StoreError when the database read fails */
  knownClusters(): Promise<KnownClusters>;
}

/**
 * The clusters `deps`'s repo and database know: the folder names under `clusters/` at the base
 * branch's head (paths only, no content read) and the clusters the database holds anything of.
 */
export async function knownClusters(
  deps: Pick<ReconcileDeps, 'workingCopy' | 'store'>,
): Promise<KnownClusters> {
  const folders = new Set<string>();
  for (const p of await deps.workingCopy.listPaths('clusters/')) {
    const parts = p.split('/');
    if (parts.length >= 3) folders.add(parts[1]!);
  }
  const store = deps.store as Partial<Pick<StatusStore, 'clusters'>>;
  const database = typeof store.clusters === 'function' ? await store.clusters() : [];
  return { repo: [...folders].sort(), database: [...database].sort() };
}

/**
 * A reconciler on the adapters {@link compose} builds from settings: `gpuops reconcile` and
 * `gpuops run` use it.
 * @throws as {@link compose}
 */
export async function createReconciler(
  settings: Settings,
  log: Logger,
  options: Omit<ComposeOverrides, 'log'> = {},
): Promise<ComposedReconciler> {
  const { deps, close } = await compose(settings, { ...options, log });
  return {
    pass: () => reconcileOnce(deps),
    afterPass: async () => {
      const ck = await deps.store.checkpoint?.();
      // A reader that holds the log (a long `gpuops status`) keeps a PASSIVE checkpoint from
      // copying every page; the next pass's checkpoint copies the rest.
      if (ck && (ck.busy || ck.copiedPages < ck.logPages))
        log.debug({ ...ck }, 'database checkpoint left pages in the log (a reader held it)');
    },
    close,
    knownClusters: () => knownClusters(deps),
    metrics: deps.metrics,
  };
}
