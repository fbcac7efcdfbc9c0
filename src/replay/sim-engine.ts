/**
 * One simulated engine of a replay: the real controller — `reconcileOnce`, the pass `gpuops run`
 * makes, with the real scaling rules and the real write-back to a local Git repo — against the
 * simulated cluster on a simulated clock, the trace's offered load fed through the simulator's
 * load model as a load schedule.
 *
 * Set-up: a bare "origin" repo with one Algorithm (1 GPU per pod, placed on `short-task`, so no
 * benchmark runs) and a Policy choosing the mode and engine; a fleet of one GPU product (see
 * `fleet.ts`); a warm-up with the trace's first load, where every pull request is merged at once,
 * so gpuops sorts the nodes into pools and places the algorithm. Then the clock runs through the
 * trace in ticks of `hpaSyncSeconds` (15 s):
 * - a reconcile pass every `passIntervalSeconds` (30 s);
 * - pods take `startupSeconds` (60 s) from binding to Ready (the simulated kubelet);
 * - what dcgm-exporter shows (and the HPA reads) lags the offered load by `sampleDelaySeconds`
 *   (15 s; the schedule is shifted by it), as a scrape and Prometheus do;
 * - a pull request is merged `mergeDelaySeconds` (10 min) after gpuops opened it, then
 *   `clusters/<cluster>/` is applied as Argo CD would (`applyGitOpsFolder`), as the demo does.
 * After every tick the allocation (pods bound, pods Ready, `spec.replicas`) and node pool labels
 * are read from the simulator's store. The passes read the cluster as `gpuops run` does, from the
 * watch-driven cache (caught up with the simulator before each pass, `cache-barrier.ts`), and the
 * dcgm-exporter pages in-process (`inProcessDcgmFetch`: the route's page text, no socket).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { ReconcileDeps } from '../pass/index.js';
import type { DemoCluster } from '../demo/index.js';
import { buildDemoDeps, createOrigin } from '../demo/index.js';
import {
  defaultControllers,
  nodeGpuCount,
  dcgmRoute,
  DcgmPages,
  inProcessDcgmFetch,
  startSimCluster,
  type SimCluster,
  type KubeObject,
  LoadModel,
} from '../sim/index.js';
import { startRunCache, type RunCache } from '../compose/index.js';
import { cacheCaughtUp } from './cache-barrier.js';
import { replayFleet } from './fleet.js';
import type { ReplaySettings } from './replay-settings.js';
import { profiled } from './sim-profile.js';
import { seedRepo } from './sim-repo.js';
import { HPA_SYNC_SECONDS, REPLAY_CLUSTER, Run, type SimRunResult } from './sim-run.js';
import type { Trace } from './trace.js';
import { makeDirs } from '../disk/index.js';

/** The simulated engines. */
export type SimEngine = 'hpa' | 'gpuops-patch' | 'gpuops-pr';

/** What one simulated engine did over the trace. */
export interface SimEngineResult extends SimRunResult {
  engine: SimEngine;
  /** CPU seconds of the engine's process and the processes it started (git), set-up included. */
  cpuSeconds: number;
}

/**
 * CPU seconds used so far by this process and its ended child processes (Linux `/proc/self/stat`
 * utime + stime + cutime + cstime); elsewhere this process only (`process.cpuUsage`).
 */
export function processCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14–17 of proc(5) (utime, stime, cutime, cstime); `fields` starts at field 3.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
}

/**
 * Replays `trace` with one simulated engine in `dir` (created; holds the repo, the database and
 * checkouts), calling `onProgress` with the share replayed after each step. Always stops the simulated cluster and closes the database.
 * @throws Error when the algorithm never runs during the warm-up, or git / the database fail
 */
export async function runSimEngine(
  trace: Trace,
  engine: SimEngine,
  s: ReplaySettings,
  dir: string,
  onProgress?: (fraction: number) => void,
): Promise<SimEngineResult> {
  const started = Date.now();
  const cpuStart = processCpuSeconds();
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  makeDirs(dir);
  const peak = Math.max(1, ...trace.instants.map((x) => x.values.length));
  const nodes = replayFleet({ staticPeakGpus: peak, gpusPerNode: s.gpusPerNode });
  // (nodes.length - 1) × gpusPerNode: `replayMaxReplicas` in run-replay.ts, which the model uses.
  const seed = path.join(dir, 'seed');
  seedRepo(seed, engine, s, (nodes.length - 1) * s.gpusPerNode);
  const origin = path.join(dir, 'origin.git');
  await createOrigin(origin, seed);
  rmSync(seed, { recursive: true, force: true });

  const { cluster, pages } = await startEngineCluster(nodes, s);
  const { sim, kubeConfig } = cluster;
  let deps: ReconcileDeps | undefined;
  let runCache: RunCache | undefined;
  try {
    // Passes read the cluster from `gpuops run`'s watch-driven cache (list once, then watch).
    runCache = await startRunCache(kubeConfig, pino({ level: 'silent' }));
    const cache = runCache.cache;
    deps = await buildDemoDeps({
      cluster: REPLAY_CLUSTER,
      demo: cluster,
      origin,
      database: `sqlite:${path.join(dir, 'gpuops.db')}`,
      cacheDir: path.join(dir, 'cache'),
      log: pino({ level: 'silent' }),
      dcgmFetch: inProcessDcgmFetch(pages),
      clusterRead: runCache.clusterRead,
    });
    if (process.env.GPUOPS_REPLAY_PROFILE) deps = profiled(deps);
    const r = await new Run(
      trace,
      engine,
      s,
      deps,
      cluster,
      origin,
      path.join(dir, 'reviewer'),
      started,
      onProgress,
      () => cacheCaughtUp(sim, cache),
    ).all();
    return { ...r, cpuSeconds: processCpuSeconds() - cpuStart };
  } finally {
    await deps?.store.close();
    await runCache?.stop();
    await cluster.close();
  }
}

/**
 * The simulated cluster of one engine: `nodes`, the simulated controllers with the replay's
 * start-ups, the dcgm-exporter route and the pages it renders (which the engine also reads
 * in-process), a clock that moves only when the replay advances it.
 */
async function startEngineCluster(
  nodes: KubeObject[],
  s: ReplaySettings,
): Promise<{ cluster: DemoCluster; pages: DcgmPages }> {
  const load = new LoadModel();
  // The engine reads its simulator's dcgm-exporter pages in-process: the same page text, parsed by
  // the same `DcgmScrapeSource`, without a socket (see `docs/replay.md`).
  const pages = new DcgmPages(() => sim, load);
  const sim: SimCluster = await startSimCluster({
    nodes,
    controllers: defaultControllers({
      loadModel: load,
      startupSeconds: s.startupSeconds,
      hpaSyncSeconds: HPA_SYNC_SECONDS,
    }),
    routes: [dcgmRoute(() => sim, load, pages)],
    // Time moves only when the replay advances it (a tiny real-time drift aside).
    speed: 1e-6,
    tickMs: 3_600_000,
  });
  const kubeConfig = new KubeConfig();
  // Plain HTTP on the loopback: the decisions are the same as over TLS, without a TLS handshake per
  // request on both ends of one process (the replay measures the controller, not its transport).
  kubeConfig.loadFromString(sim.kubeconfig({ plain: true }));
  const cluster: DemoCluster = {
    sim,
    load,
    kubeConfig,
    dcgmTargets: sim.store
      .list('nodes')
      .filter((n) => nodeGpuCount(n) > 0)
      .map((n) => ({
        url: `${sim.url}/dcgm/${encodeURIComponent(n.metadata.name)}/metrics`,
        node: n.metadata.name,
      })),
    close: () => sim.close(),
  };
  return { cluster, pages };
}
