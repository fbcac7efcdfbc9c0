/**
 * The long-running controller (`gpuops run`), composed from injected parts so that tests need no
 * Git repository: leader election over a Lease, the health and metrics server, and the loop that
 * runs one reconcile pass at a time while this replica leads. A clean stop lets the pass in flight
 * finish, releases the Lease, closes the health server and then the reconciler (database).
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Settings } from '../config/index.js';
import type { LeaseApi } from '../cluster/index.js';
import type { HealthCause } from '../status/index.js';
import {
  controllerCauses,
  initialHealthState,
  notLive,
  type ControllerHealthState,
} from './controller-health.js';
import { startHealthServer, type StatusPages } from './health.js';
import { LeaderElector } from './leader-election.js';
import { redactUrl } from './log.js';
import { runLoop } from './loop.js';
import type { PassSummary } from '../pass/index.js';
import { PassWaker, runCrossingTrigger } from './crossing-trigger.js';
import type { UtilizationSource } from '../metrics/index.js';
import type { Watchlist } from '../scaling/index.js';
import { createControllerMetrics, type ControllerMetrics } from './metrics.js';
import { NotLeadingError, type LeaderFence } from './write-fence.js';

/** Everything {@link startController} needs. Times in seconds. */
export interface ControllerOptions {
  /** This replica's name in the Lease (`holderIdentity`). */
  identity: string;
  /** The `coordination.k8s.io/v1` Lease, already bound to its namespace and name. */
  leaseApi: LeaseApi;
  /** How long a renewal holds the Lease; client-go default 15. */
  leaseDurationSeconds: number;
  /** How often the leader renews and the others retry; client-go default 2. */
  retryPeriodSeconds: number;
  /** Time between the end of one pass and the start of the next. */
  intervalSeconds: number;
  /** Longest wait after repeated failures (default: the larger of 300 and the interval). */
  maxBackoffSeconds?: number;
  /**
   * `/healthz` answers 503 once this leader's passes have all failed (3 or more) for this long
   * (default: the larger of 600 and 10 intervals), so the kubelet restarts it.
   */
  unhealthyAfterSeconds?: number;
  /** Port of `/healthz`, `/readyz`, `/metrics`; 0 picks a free one. */
  healthPort: number;
  /**
   * Listen address of the health server (default `0.0.0.0`, as a Pod's probes need; `gpuops run`
   * passes `--health-address`, see `cli/health-address.ts`).
   */
  healthHost?: string;
  /** One reconcile pass (the reconciler's `pass`). */
  pass: () => Promise<PassSummary>;
  /** Work after each pass, off its time (the reconciler's `afterPass`; `LoopOptions.afterPass`). */
  afterPass?: () => Promise<void>;
  /**
   * The status page served at `/` (and `/status.json`) of the health port (absent: no page), given
   * what only the running controller knows (`RunningController.healthCauses`).
   */
  statusPage?: (controllerCauses: () => HealthCause[]) => StatusPages;
  /** Closes the reconciler's adapters (database) after the last pass. */
  close?: () => Promise<void>;
  /** The reconciler's write fence (`createLeaderFence`), bound here to this replica's leader election. */
  fence?: LeaderFence;
  /**
   * The crossing trigger (`crossing-trigger.ts`): read `source` every `intervalSeconds` while
   * leading and start a pass as soon as an algorithm leaves its band; absent: periodic passes only.
   */
  trigger?: { source: UtilizationSource; intervalSeconds: number };
  log: Logger;
  metrics?: ControllerMetrics;
}

/** A started controller. */
export interface RunningController {
  /** The health server's port. */
  port: number;
  metrics: ControllerMetrics;
  isLeader(): boolean;
  /** What only the controller knows for the status page: API server unreachable, passes failing. */
  healthCauses(): HealthCause[];
  /** Resolves with the number of passes run once the controller has stopped (by `stop`). */
  done: Promise<number>;
  /**
   * Stops: no new pass starts, the pass in flight finishes, the Lease is released (the other
   * replica takes it within one retry period), the health server and the reconciler close.
   * Safe to call more than once. Resolves with the number of passes run.
   */
  stop(): Promise<number>;
}

/**
 * Starts leader election, the health server and the loop.
 * @throws the health server's listen error (e.g. EADDRINUSE); nothing is left running then
 */
export async function startController(opts: ControllerOptions): Promise<RunningController> {
  const log = opts.log;
  const metrics = opts.metrics ?? createControllerMetrics();
  metrics.leader.set(0);
  const ac = new AbortController();
  let lastPassOk: boolean | undefined;
  let loopAlive = true;
  const state = initialHealthState(Date.now());
  const unhealthyAfter = opts.unhealthyAfterSeconds ?? Math.max(600, 10 * opts.intervalSeconds);
  const healthState = () => withElection(state, elector);
  const elector = electorOf(opts, (leading) => {
    metrics.leader.set(leading ? 1 : 0);
    // A new leader's readiness starts fresh; a follower is ready while it is alive.
    lastPassOk = undefined;
    Object.assign(state, { since: Date.now(), passFailures: 0, passError: null });
  });

  const health = await listen(
    opts,
    metrics,
    {
      live: () => loopAlive && notLive(healthState(), Date.now(), unhealthyAfter) === null,
      liveProblem: () =>
        loopAlive ? notLive(healthState(), Date.now(), unhealthyAfter) : 'the controller loop crashed',
      ready: () => loopAlive && !ac.signal.aborted && (!elector.isLeader() || lastPassOk !== false),
    },
    () => controllerCauses(healthState(), Date.now()),
  );
  elector.start();
  opts.fence?.bind(() => elector.isLeader(), opts.identity);

  const waker = opts.trigger ? new PassWaker() : null;
  let watch: Watchlist | null = null;
  const loop = runLoop({
    pass: () =>
      passRecorded(opts, state, () => elector.isLeader()).then((s) => {
        watch = s.watch ?? null;
        return s;
      }),
    intervalSeconds: opts.intervalSeconds,
    maxBackoffSeconds: opts.maxBackoffSeconds ?? Math.max(300, opts.intervalSeconds),
    isLeader: () => elector.isLeader(),
    log,
    metrics,
    signal: ac.signal,
    onPass: (ok) => {
      lastPassOk = ok;
    },
    ...(waker ? { sleep: (ms: number, signal: AbortSignal) => waker.sleep(ms, signal) } : {}),
    ...(opts.afterPass ? { afterPass: opts.afterPass } : {}),
  }).catch((err: unknown) => {
    loopAlive = false;
    log.fatal({ err }, 'controller loop crashed');
    return 0;
  });

  const trigger =
    opts.trigger && waker
      ? startTrigger(opts.trigger, waker, { watchlist: () => watch, elector, log, signal: ac.signal })
      : null;

  let resolveDone!: (n: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const parts = { abort: () => ac.abort(), loop, trigger, elector, metrics, health };
  let stopping: Promise<number> | undefined;
  const stop = (): Promise<number> =>
    (stopping ??= stopInOrder(opts, parts).then((n) => {
      resolveDone(n);
      return n;
    }));
  return {
    port: health.port,
    metrics,
    isLeader: () => elector.isLeader(),
    healthCauses: () => controllerCauses(healthState(), Date.now()),
    done,
    stop,
  };
}

/** The health `state` with the leader election's standing read now (leading, failures, error). */
function withElection(state: ControllerHealthState, elector: LeaderElector): ControllerHealthState {
  const f = elector.failures();
  state.leading = elector.isLeader();
  state.electionFailures = f.count;
  state.electionFailingSince = f.since;
  state.electionError = f.error;
  return state;
}

/**
 * The health server (`/healthz`, `/readyz`, `/metrics` and the status page) on `opts.healthHost`
 * (default `0.0.0.0`) and `opts.healthPort`.
 * @throws the listen error (e.g. EADDRINUSE)
 */
async function listen(
  opts: Pick<ControllerOptions, 'healthHost' | 'healthPort' | 'statusPage' | 'identity' | 'log'>,
  metrics: ControllerMetrics,
  probes: Parameters<typeof startHealthServer>[0],
  controllerCauses: () => HealthCause[],
): Promise<{ port: number; close(): Promise<void> }> {
  const host = opts.healthHost ?? '0.0.0.0';
  const statusPage = opts.statusPage?.(controllerCauses);
  const health = await startHealthServer(probes, metrics.registry, opts.healthPort, host, statusPage);
  opts.log.info({ host, port: health.port, identity: opts.identity }, 'health server listening');
  return health;
}

/** Leader election on `opts.leaseApi`; `onChange` is told (and the log says) when this replica leads or follows. */
function electorOf(
  opts: Pick<
    ControllerOptions,
    'leaseApi' | 'identity' | 'leaseDurationSeconds' | 'retryPeriodSeconds' | 'log'
  >,
  onChange: (leading: boolean) => void,
): LeaderElector {
  const { identity, leaseDurationSeconds, retryPeriodSeconds, log } = opts;
  return new LeaderElector(
    opts.leaseApi,
    { identity, leaseDurationSeconds, retryPeriodSeconds },
    log,
    (leading) => {
      onChange(leading);
      log.info({ identity, leading }, leading ? 'leading' : 'following');
    },
  );
}

/**
 * One pass of `opts.pass`, its outcome recorded in the health `state` (failures and their error,
 * the last good pass); a pass that lost the Lease says so in the log.
 * @throws what the pass throws
 */
async function passRecorded(
  opts: Pick<ControllerOptions, 'pass' | 'identity' | 'log'>,
  state: ControllerHealthState,
  isLeader: () => boolean,
): Promise<PassSummary> {
  const log = opts.log;
  const s = await opts.pass().catch((err: unknown) => {
    if (err instanceof NotLeadingError)
      log.warn({ identity: opts.identity, refused: err.write }, 'pass aborted: lost the leader Lease');
    state.passFailures++;
    state.passError = err instanceof Error ? err.message : String(err);
    throw err;
  });
  Object.assign(state, { passFailures: 0, passError: null, lastPassOkAt: Date.now() });
  if (!isLeader()) log.warn({ identity: opts.identity }, 'lost the leader Lease during a pass');
  return s;
}

/** The crossing trigger while leading; its failure leaves periodic passes going. */
function startTrigger(
  trigger: NonNullable<ControllerOptions['trigger']>,
  waker: PassWaker,
  ctx: { watchlist: () => Watchlist | null; elector: LeaderElector; log: Logger; signal: AbortSignal },
): Promise<number> {
  return runCrossingTrigger({
    source: trigger.source,
    intervalSeconds: trigger.intervalSeconds,
    watchlist: ctx.watchlist,
    onCrossing: () => waker.wake(),
    active: () => ctx.elector.isLeader(),
    now: () => Date.now(),
    log: ctx.log,
    signal: ctx.signal,
  }).catch((err: unknown) => {
    ctx.log.error({ err }, 'crossing trigger stopped; periodic passes go on');
    return 0;
  });
}

/**
 * A clean stop, in the reverse order of start: no new pass, the pass in flight and the trigger
 * finish, the Lease is released, the health server closes, then `opts.close` (the parts started
 * before the controller). Resolves with the number of passes run.
 */
async function stopInOrder(
  opts: Pick<ControllerOptions, 'identity' | 'close' | 'log'>,
  parts: {
    abort: () => void;
    loop: Promise<number>;
    trigger: Promise<number> | null;
    elector: LeaderElector;
    metrics: ControllerMetrics;
    health: { close(): Promise<void> };
  },
): Promise<number> {
  const log = opts.log;
  log.info({ identity: opts.identity }, 'stopping: waiting for the pass in flight');
  parts.abort();
  const passes = await parts.loop;
  await parts.trigger;
  await parts.elector.release();
  parts.metrics.leader.set(0);
  await parts.health.close();
  try {
    await opts.close?.();
  } catch (err) {
    log.error({ err }, 'could not close the reconciler');
  }
  log.info({ identity: opts.identity, passes }, 'stopped');
  return passes;
}

/** Defaults of `gpuops run`'s own flags, from the Pod's downward API when present. */
export interface RunDefaults {
  leaseNamespace: string;
  leaseName: string;
  identity: string;
}

/**
 * `--lease-namespace` defaults to `POD_NAMESPACE` or `gpuops-system`; `--lease-name` to
 * `gpuops-<cluster>`; `--identity` to `POD_NAME` or `<hostname>-<pid>` (unique per process, as
 * client-go recommends).
 */
export function runDefaults(
  cluster: string,
  env: NodeJS.ProcessEnv,
  host = hostname(),
  pid = process.pid,
): RunDefaults {
  return {
    leaseNamespace: env.POD_NAMESPACE || 'gpuops-system',
    leaseName: `gpuops-${cluster}`,
    identity: env.POD_NAME || `${host}-${pid}`,
  };
}

/**
 * A copy of the settings safe to log: the GitHub, GitLab and Gitea tokens only as `[Redacted]` (or absent), and
 * credentials removed from every URL setting (`postgres://u:p@h` → `postgres://***@h`, `?password=***`).
 */
export function loggableSettings(s: Settings): Record<string, unknown> {
  return {
    ...s,
    githubToken: s.githubToken ? '[Redacted]' : undefined,
    gitlabToken: s.gitlabToken ? '[Redacted]' : undefined,
    giteaToken: s.giteaToken ? '[Redacted]' : undefined,
    repoUrl: s.repoUrl ? redactUrl(s.repoUrl) : undefined,
    database: redactUrl(s.database),
    prometheusUrl: s.prometheusUrl ? redactUrl(s.prometheusUrl) : undefined,
    dcgmUrl: s.dcgmUrl.map(redactUrl),
    githubApiUrl: redactUrl(s.githubApiUrl),
    ...(s.gitlabUrl ? { gitlabUrl: redactUrl(s.gitlabUrl) } : {}),
    ...(s.giteaUrl ? { giteaUrl: redactUrl(s.giteaUrl) } : {}),
  };
}
