import { InvalidArgumentError, type Command } from 'commander';
import { kubeConfigOf, leaseApiOf } from '../../compose/kube.js';
import { settingsSecrets } from '../../config/secrets.js';
import { createLogger } from '../../controller/log.js';
import { createControllerMetrics, registerFleetGauges } from '../../controller/metrics.js';
import { createReconciler } from '../../compose/compose.js';
import { loggableSettings, runDefaults, startController } from '../../controller/run-controller.js';
import { createLeaderFence } from '../../controller/write-fence.js';
import { renderStatusHtml } from '../../status/html.js';
import { loadStatusView } from '../../status/load.js';
import type { StatusView } from '../../status/model.js';
import { statusStoreOf } from '../../store/index.js';
import { startRunCache } from '../../compose/cluster-cache.js';
import { healthAddress } from '../health-address.js';
import { newClusterRefusal } from '../cluster-choice.js';
import { dryRunDatabase, openDatabase, openExistingStore } from '../../compose/store.js';
import { addConnectionOptions, resolveSettings, UsageError } from '../settings.js';

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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function seconds(name: string, opts: { integer?: boolean; min?: number } = {}) {
  return (value: string): number => {
    const n = Number(value);
    const min = opts.min ?? 0;
    if (!Number.isFinite(n) || n <= min || (opts.integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(
        `${name} must be ${opts.integer ? 'a whole number of' : 'a number of'} seconds greater than ${min}, got ${JSON.stringify(value)}`,
      );
    }
    return n;
  };
}

function level(value: string): string {
  if (!LOG_LEVELS.includes(value))
    throw new InvalidArgumentError(
      `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(value)}`,
    );
  return value;
}

interface RunFlags {
  interval: number;
  /** Seconds between the crossing trigger's readings; false with `--no-watch`. */
  watch: boolean;
  watchInterval: number;
  maxBackoff?: number;
  healthAddress?: string;
  healthPort?: string;
  leaseNamespace?: string;
  leaseName?: string;
  identity?: string;
  leaseDuration: number;
  retryPeriod: number;
  newCluster?: boolean;
  logLevel: string;
}

/**
 * Registers `gpuops run`: the long-running controller. Exit 0 after a clean stop (SIGTERM or
 * SIGINT: the pass in flight finishes, the Lease is released, the health server and the database
 * close); 1 when it cannot start (no cluster access, the reconciler cannot be built, port taken);
 * 2 for usage errors (a `--cluster` the repo and the database have never seen without
 * `--new-cluster`, refused before the Lease is taken: `newClusterRefusal`). A second signal exits at once with 1.
 */
export function register(program: Command): void {
  const cmd = program
    .command('run')
    .description('run the controller: a reconcile pass every interval while holding the leader Lease');
  addConnectionOptions(cmd);
  cmd
    .option('--dry-run', 'decide and log; write nothing anywhere')
    .option('--interval <seconds>', 'time between reconcile passes', seconds('--interval'), 60)
    .option(
      '--watch-interval <seconds>',
      'read utilisation this often between passes and start a pass as soon as an algorithm leaves its band',
      seconds('--watch-interval'),
      5,
    )
    .option('--no-watch', 'periodic passes only: no reading between passes')
    .option(
      '--max-backoff <seconds>',
      'longest wait after failed passes (default: max(300, interval))',
      seconds('--max-backoff'),
    )
    .option(
      '--health-address <host:port>',
      'where the status page (/), /healthz, /readyz and /metrics listen: HOST:PORT, [IPv6]:PORT or :PORT (default: 0.0.0.0:8080 in a Pod, else 127.0.0.1:8080)',
    )
    .option('--health-port <port>', 'the port alone, on the default host (0: a free port)')
    .option(
      '--lease-namespace <ns>',
      'namespace of the leader Lease (default: POD_NAMESPACE or gpuops-system)',
    )
    .option('--lease-name <name>', 'name of the leader Lease (default: gpuops-<cluster>)')
    .option('--identity <id>', 'this replica in the Lease (default: POD_NAME or <hostname>-<pid>)')
    .option(
      '--lease-duration <seconds>',
      'how long a renewal holds the Lease',
      seconds('--lease-duration', { integer: true }),
      15,
    )
    .option(
      '--retry-period <seconds>',
      'how often the leader renews and others retry',
      seconds('--retry-period'),
      2,
    )
    .option('--log-level <level>', `log level: ${LOG_LEVELS.join(', ')}`, level, 'info')
    .option('--new-cluster', 'accept a --cluster the repo and the database have never seen (a new cluster)')
    .action(async (flags: RunFlags & Record<string, unknown>) => {
      if (flags.retryPeriod >= flags.leaseDuration) {
        process.stderr.write('gpuops run: --retry-period must be shorter than --lease-duration\n');
        process.exitCode = 2;
        return;
      }
      const settings = resolveSettings(flags);
      const health = healthAddress(flags, process.env);
      if (!settings.repoUrl) {
        throw new UsageError(
          '--repo-url: the GitOps repo remote is required (or GPUOPS_REPO_URL, or repoUrl in gpuops.yaml)',
        );
      }
      const defaults = runDefaults(settings.cluster, process.env);
      const identity = flags.identity ?? defaults.identity;
      const leaseNamespace = flags.leaseNamespace ?? defaults.leaseNamespace;
      const leaseName = flags.leaseName ?? defaults.leaseName;
      const log = createLogger(flags.logLevel, undefined, { secrets: settingsSecrets(settings) });
      log.info(
        {
          settings: loggableSettings(settings),
          identity,
          lease: `${leaseNamespace}/${leaseName}`,
          intervalSeconds: flags.interval,
          leaseDurationSeconds: flags.leaseDuration,
          retryPeriodSeconds: flags.retryPeriod,
        },
        'starting gpuops run',
      );

      let controller: Awaited<ReturnType<typeof startController>> | undefined;
      try {
        const kc = kubeConfigOf(settings.kubeconfig);
        const metrics = createControllerMetrics();
        // Passes read the cluster from a watch-driven cache (list once, then watch), not by listing.
        const runCache = await startRunCache(kc, log, { registry: metrics.registry });
        // Only the leader writes: checked right before every write, not only when a pass starts.
        const fence = createLeaderFence();
        // A dry run creates no database file: without one its passes read an empty in-memory one.
        const reconciler = await createReconciler(
          settings.dryRun ? { ...settings, database: dryRunDatabase(settings.database) } : settings,
          log,
          { clusterRead: runCache.clusterRead, fence: fence.check },
        ).catch(async (err: unknown) => {
          await runCache.stop();
          throw err;
        });
        // Before the Lease: a mistyped --cluster must never lead beside the real controller.
        const refusal = await reconciler
          .knownClusters()
          .then((known) => newClusterRefusal(settings.cluster, known, flags.newCluster === true))
          .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        if (refusal !== null) {
          await reconciler.close();
          await runCache.stop();
          throw typeof refusal === 'string' ? new UsageError(refusal) : refusal;
        }
        // The status page reads the database through its own connection; a pass never waits for it.
        // With --dry-run it only reads a database that exists already (dry-run writes nothing).
        const pageStore = await (
          settings.dryRun
            ? openExistingStore(settings.database)
            : openDatabase(settings.database).then(statusStoreOf)
        ).catch(async (err: unknown) => {
          if (!settings.dryRun) {
            await reconciler.close();
            await runCache.stop();
            throw err;
          }
          log.warn({ err }, 'no status page: no database to read');
          return null;
        });
        // The scaling windows follow this loop's delays: its signal's interval and its reaction.
        if (reconciler.carry)
          reconciler.carry.loop = flags.watch
            ? { sampleSeconds: flags.watchInterval, reactionSeconds: flags.watchInterval }
            : { sampleSeconds: flags.interval, reactionSeconds: flags.interval };
        const closeAll = async () => {
          await reconciler.close();
          await pageStore?.close();
          await runCache.stop();
        };
        if (pageStore)
          registerFleetGauges(metrics.registry, async () => ({
            fleet: await pageStore.fleetStatus(settings.cluster),
            openPullRequests: (await pageStore.pullRequestHistory(settings.cluster)).filter(
              (c) => c.state === 'open',
            ),
          }));
        try {
          controller = await startController({
            metrics,
            identity,
            leaseApi: leaseApiOf(kc, leaseNamespace, leaseName),
            leaseDurationSeconds: flags.leaseDuration,
            retryPeriodSeconds: flags.retryPeriod,
            intervalSeconds: flags.interval,
            ...(flags.maxBackoff !== undefined ? { maxBackoffSeconds: flags.maxBackoff } : {}),
            healthPort: health.port,
            healthHost: health.host,
            pass: () => reconciler.pass(),
            fence,
            close: closeAll,
            ...(flags.watch && reconciler.metrics
              ? { trigger: { source: reconciler.metrics, intervalSeconds: flags.watchInterval } }
              : {}),
            ...(pageStore
              ? {
                  statusPage: statusPagesOf(() =>
                    loadStatusView(pageStore, settings.cluster, new Date(), {
                      cache: runCache.cache.state(),
                      // Said first: an unreachable API server explains the other causes.
                      healthCauses: controller?.healthCauses() ?? [],
                    }),
                  ),
                }
              : {}),
            log,
          });
        } catch (err) {
          await closeAll();
          throw err;
        }
      } catch (err) {
        // A usage error (a missing --kubeconfig file, an unknown --cluster) is one line and exit 2,
        // as in every command.
        if (err instanceof UsageError) throw err;
        log.fatal({ err }, 'gpuops run could not start');
        process.exitCode = 1;
        return;
      }

      let signals = 0;
      const onSignal = (signal: NodeJS.Signals): void => {
        signals++;
        if (signals > 1) {
          log.warn({ signal }, 'second signal: exiting without a clean stop');
          process.exit(1);
        }
        log.info({ signal }, 'signal received: stopping');
        void controller.stop();
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      await controller.done;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.exitCode = 0;
      // Kept-alive client sockets must not hold the process after a clean stop.
      setTimeout(() => process.exit(0), 2000).unref();
    });
}
