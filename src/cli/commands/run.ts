import { InvalidArgumentError, type Command } from 'commander';
import { settingsSecrets } from '../../config/index.js';
import {
  createLogger,
  loggableSettings,
  runDefaults,
  type RunningController,
} from '../../controller/index.js';
import { startRunningController, type RunPlan } from '../../compose/index.js';
import type { Settings } from '../../config/index.js';
import type { Logger } from 'pino';
import { healthAddress } from '../health-address.js';
import { newClusterRefusal } from '../cluster-choice.js';
import { addConnectionOptions, resolveSettings, UsageError } from '../settings.js';

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
  addRunOptions(cmd).action(runAction);
}

/** `gpuops run`'s own flags: the loop, the trigger, the health server and the Lease. */
function addRunOptions(cmd: Command): Command {
  return cmd
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
    .option('--new-cluster', 'accept a --cluster the repo and the database have never seen (a new cluster)');
}

/** The action of `gpuops run`: settings, the running controller, then the signals that stop it. */
async function runAction(flags: RunFlags & Record<string, unknown>): Promise<void> {
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
  const log = createLogger(flags.logLevel, undefined, { secrets: settingsSecrets(settings) });
  const plan = runPlan(flags, settings, health, log);
  log.info(
    {
      settings: loggableSettings(settings),
      identity: plan.identity,
      lease: `${plan.leaseNamespace}/${plan.leaseName}`,
      intervalSeconds: plan.intervalSeconds,
      leaseDurationSeconds: plan.leaseDurationSeconds,
      retryPeriodSeconds: plan.retryPeriodSeconds,
    },
    'starting gpuops run',
  );
  const controller = await startRunningController(plan).catch((err: unknown) => {
    // A usage error (a missing --kubeconfig file, an unknown --cluster) is one line and exit 2,
    // as in every command.
    if (err instanceof UsageError) throw err;
    log.fatal({ err }, 'gpuops run could not start');
    return null;
  });
  if (controller === null) {
    process.exitCode = 1;
    return;
  }
  await untilStopped(controller, log);
  process.exitCode = 0;
  // Kept-alive client sockets must not hold the process after a clean stop.
  setTimeout(() => process.exit(0), 2000).unref();
}

/** The running controller's plan from `gpuops run`'s flags, the Lease defaulting from the Pod. */
function runPlan(
  flags: RunFlags,
  settings: Settings,
  health: { host: string; port: number },
  log: Logger,
): RunPlan {
  const defaults = runDefaults(settings.cluster, process.env);
  return {
    settings,
    log,
    identity: flags.identity ?? defaults.identity,
    leaseNamespace: flags.leaseNamespace ?? defaults.leaseNamespace,
    leaseName: flags.leaseName ?? defaults.leaseName,
    leaseDurationSeconds: flags.leaseDuration,
    retryPeriodSeconds: flags.retryPeriod,
    intervalSeconds: flags.interval,
    ...(flags.maxBackoff !== undefined ? { maxBackoffSeconds: flags.maxBackoff } : {}),
    watchSeconds: flags.watch ? flags.watchInterval : null,
    health,
    // Before the Lease: a mistyped --cluster must never lead beside the real controller.
    checkCluster: (known) => {
      const refusal = newClusterRefusal(settings.cluster, known, flags.newCluster === true);
      if (refusal !== null) throw new UsageError(refusal);
    },
  };
}

/**
 * Resolves once the controller has stopped: the first SIGTERM or SIGINT stops it cleanly, a second
 * exits at once with 1.
 */
async function untilStopped(controller: RunningController, log: Logger): Promise<void> {
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
}
