/**
 * The running controller (`gpuops run`), composed in one place: the watch-driven cluster cache,
 * the reconciler on it, the status page's own store, the fleet gauges, and — last — leader election
 * over the Lease, the pages and health server and the loop (`startController`). Every part is
 * recorded as it starts and closes in the reverse order ({@link createClosers}): on a clean stop
 * after the loop, the Lease and the health server; at once when a later part cannot start.
 */
import type { LoopTiming } from '../scaling/index.js';
import type { Logger } from 'pino';
import type { Settings } from '../config/index.js';
import {
  createControllerMetrics,
  registerFleetGauges,
  startController,
  type RunningController,
  createLeaderFence,
} from '../controller/index.js';
import { renderStatusHtml, loadStatusView } from '../status/index.js';
import type { StatusView } from '../status/index.js';
import type { StatusStore, Store } from '../store/index.js';
import { statusStoreOf } from '../store/index.js';
import { startRunCache } from './cluster-cache.js';
import { createReconciler, type KnownClusters } from './compose.js';
import { createClosers, type Closers } from './closers.js';
import { kubeConfigOf, leaseApiOf } from './kube.js';
import { dryRunDatabase, openDatabase, openExistingStore } from './store.js';

/** What `gpuops run` decided from its flags and settings. Times in seconds. */
export interface RunPlan {
  settings: Settings;
  log: Logger;
  /** This replica in the Lease (`holderIdentity`). */
  identity: string;
  leaseNamespace: string;
  leaseName: string;
  leaseDurationSeconds: number;
  retryPeriodSeconds: number;
  intervalSeconds: number;
  maxBackoffSeconds?: number;
  /** Seconds between the crossing trigger's readings; null for periodic passes only (`--no-watch`). */
  watchSeconds: number | null;
  /** Where the pages, `/healthz`, `/readyz` and `/metrics` listen. */
  health: { host: string; port: number };
  /**
   * Throws to refuse the clusters the repo and the database know, before the Lease is taken: a
   * mistyped `--cluster` must never lead beside the real controller.
   */
  checkCluster(known: KnownClusters): void;
}

/**
 * Starts every part of the running controller.
 * @throws what the first part that cannot start throws (no cluster access, the reconciler cannot
 *   be built, `checkCluster`'s refusal, the port taken); every part started before it is closed then
 */
export async function startRunningController(plan: RunPlan): Promise<RunningController> {
  const closers = createClosers((part, err) => plan.log.error({ err, part }, `could not close the ${part}`));
  try {
    return await startParts(plan, closers);
  } catch (err) {
    await closers.close();
    throw err;
  }
}

async function startParts(plan: RunPlan, closers: Closers): Promise<RunningController> {
  const { settings, log } = plan;
  const kc = kubeConfigOf(settings.kubeconfig);
  const metrics = createControllerMetrics();
  // Passes read the cluster from a watch-driven cache (list once, then watch), not by listing.
  const runCache = await startRunCache(kc, log, { registry: metrics.registry });
  closers.add('watch cache', () => runCache.stop());
  // Only the leader writes: checked right before every write, not only when a pass starts.
  const fence = createLeaderFence();
  // A dry run creates no database file: without one its passes read an empty in-memory one.
  const reconciler = await createReconciler(
    settings.dryRun ? { ...settings, database: dryRunDatabase(settings.database) } : settings,
    log,
    { clusterRead: runCache.clusterRead, fence: fence.check, loop: loopTiming(plan) },
  );
  closers.add('reconciler', () => reconciler.close());
  plan.checkCluster(await reconciler.knownClusters());
  const pageStore = await openPageStore(settings, log);
  if (pageStore) {
    closers.add('status store', () => pageStore.close());
    registerFleetGauges(metrics.registry, async () => ({
      fleet: await pageStore.fleetStatus(settings.cluster),
      openPullRequests: (await pageStore.pullRequestHistory(settings.cluster)).filter(
        (c) => c.state === 'open',
      ),
    }));
  }
  return startController({
    metrics,
    identity: plan.identity,
    leaseApi: leaseApiOf(kc, plan.leaseNamespace, plan.leaseName),
    leaseDurationSeconds: plan.leaseDurationSeconds,
    retryPeriodSeconds: plan.retryPeriodSeconds,
    intervalSeconds: plan.intervalSeconds,
    ...(plan.maxBackoffSeconds !== undefined ? { maxBackoffSeconds: plan.maxBackoffSeconds } : {}),
    healthPort: plan.health.port,
    healthHost: plan.health.host,
    pass: () => reconciler.pass(),
    ...(reconciler.afterPass ? { afterPass: () => reconciler.afterPass!() } : {}),
    fence,
    close: () => closers.close(),
    ...(plan.watchSeconds !== null && reconciler.metrics
      ? { trigger: { source: reconciler.metrics, intervalSeconds: plan.watchSeconds } }
      : {}),
    ...(pageStore
      ? {
          statusPage: (controllerCauses) =>
            statusPagesOf(() =>
              loadStatusView(pageStore, settings.cluster, new Date(), {
                cache: runCache.cache.state(),
                // Said first: an unreachable API server explains the other causes.
                healthCauses: controllerCauses(),
              }),
            ),
        }
      : {}),
    log,
  });
}

/**
 * The status page reads the database through its own connection; a pass never waits for it. With
 * `--dry-run` it only reads a database that exists already (dry-run writes nothing), and none
 * means no page.
 * @throws StoreError when the database cannot be opened (not in a dry run)
 */
async function openPageStore(settings: Settings, log: Logger): Promise<(Store & StatusStore) | null> {
  if (!settings.dryRun) return openDatabase(settings.database).then(statusStoreOf);
  return openExistingStore(settings.database).catch((err: unknown) => {
    log.warn({ err }, 'no status page: no database to read');
    return null;
  });
}

/** The status page and its JSON (`/status.json`), each request reading the view afresh. */
function statusPagesOf(view: () => Promise<StatusView>): {
  html(): Promise<string>;
  json(): Promise<string>;
} {
  return {
    html: async () => renderStatusHtml(await view()),
    json: async () => `${JSON.stringify(await view(), null, 2)}\n`,
  };
}

/** The scaling windows follow this loop's delays: its signal's interval and its reaction. */
function loopTiming(plan: Pick<RunPlan, 'watchSeconds' | 'intervalSeconds'>): LoopTiming {
  const every = plan.watchSeconds ?? plan.intervalSeconds;
  return { sampleSeconds: every, reactionSeconds: every };
}
