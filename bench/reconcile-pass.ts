/**
 * The process the reconcile bench measures (forked by `reconcile.bench.ts`, so its peak RSS is the
 * controller's own): builds the adapters on the world's connection (argv[2], JSON) with
 * `compose/compose.ts` as `gpuops reconcile` does, then runs three passes and reports each one to the parent:
 * 1. `first`: a dry run in the fresh process (module loading and JIT warm-up included);
 * 2. `warm`: the real pass over a warm GitOps repo (writes only what scaling changed);
 * 3. `unchanged`: the same again with nothing changed (must write nothing), `GPUOPS_BENCH_REPEAT`
 *    times (the parent sets it; default 1), so the parent can report the median and the spread.
 * Kubernetes and Prometheus request counts are read from the parent over IPC around each pass;
 * on PostgreSQL, the statements the store sent (every `pg` client query, BEGIN/COMMIT included).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import pg from 'pg';
import { pino } from 'pino';
import type * as ClockModule from '../src/benchmark/clock.js';
import type * as ClusterCacheModule from '../src/compose/cluster-cache.js';
import type * as ComposeModule from '../src/compose/compose.js';
import type * as SettingsModule from '../src/config/settings.js';
import type * as ReadSnapshotModule from '../src/cluster/read-snapshot.js';
import type * as ReconcileModule from '../src/pass/reconcile.js';
import type * as GitHostModule from '../src/git-hosts/git-host.js';
import type { PullRequestHost } from '../src/git-hosts/pr-host.js';
import type * as WorkingCopyModule from '../src/working-copy/working-copy.js';
import type * as StoreModule from '../src/store/index.js';
import type { Store } from '../src/store/types.js';
import type * as FloorModule from './floor.js';
import type * as DigestModule from './decision-digest.js';
import type * as CrossingTriggerModule from '../src/controller/crossing-trigger.js';
import type { Watchlist } from '../src/scaling/crossing-watch.js';
import type { FloorTimes } from './floor.js';
import type { WorldConnection } from './reconcile-fleet.js';

/**
 * Where the controller's code is loaded from: `GPUOPS_BENCH_CODE` (the compiled `dist/`, as
 * `reconcile.bench.ts` runs it), else the sources next to this file (under tsx).
 */
const CODE = process.env.GPUOPS_BENCH_CODE ?? new URL('../src/', import.meta.url).href;
const FLOOR = process.env.GPUOPS_BENCH_FLOOR ?? new URL('./floor.js', import.meta.url).href;
const DIGEST = process.env.GPUOPS_BENCH_DIGEST ?? new URL('./decision-digest.js', import.meta.url).href;
const load = <T>(module: string): Promise<T> => import(new URL(module, CODE).href) as Promise<T>;

/** Requests the parent's servers answered so far. */
export interface ServerCounts {
  kube: number;
  kubeByVerb: Record<string, number>;
  /** By `VERB path` (`LIST /api/v1/pods`, `GET /apis`), as the simulated cluster counts them. */
  kubeByPath: Record<string, number>;
  prometheus: number;
  /** Bytes of Prometheus answers sent. */
  prometheusBytes: number;
  /** Milliseconds the fake Prometheus (the parent process) spent rendering and sending answers. */
  prometheusAnswerMs: number;
}

/** What the pass process reports for one pass. */
export interface PassReport {
  /**
   * `steady`: every GPU's utilisation moved a little, no decision changed (issue 42);
   * `crossing`: one algorithm's pods went above its band on the metrics side; `wallMs` is from
   * that change to its pass written (the crossing trigger reading every second).
   */
  pass: 'first' | 'warm' | 'unchanged' | 'steady' | 'crossing';
  wallMs: number;
  /** The floor measured right after the pass (not for the dry-run `first`). */
  floor: FloorTimes | null;
  /** Heap still reachable after the pass (MB, after a full collection). */
  liveHeapMb: number;
  /**
   * Peak RSS of the process so far, read right after the pass and before its floor (MB): the
   * floor runs in this process too, and its own Prometheus decode may set the final peak.
   */
  peakRssBeforeFloorMb: number;
  cpuMs: number;
  kubeRequests: number;
  kubeByVerb: Record<string, number>;
  /** Requests of the pass by `VERB path`: what they were when there are more than the lists. */
  kubeByPath: Record<string, number>;
  /**
   * The checkpoint the controller loop runs after the pass, before it waits (`Store.checkpoint`;
   * SQLite): its wall time and the log's pages it found (the pass's writes); null on PostgreSQL.
   */
  checkpoint: { wallMs: number; logPages: number } | null;
  /** Statements sent to PostgreSQL during the pass; null on SQLite. */
  statements: number | null;
  prometheusRequests: number;
  /** Bytes of the Prometheus answers of the pass. */
  prometheusBytes: number;
  /**
   * Milliseconds the fake Prometheus spent answering the pass (render and synchronous send, in the
   * parent process on the same cores): inside the pass's wall time, not gpuops's own work.
   */
  prometheusAnswerMs: number;
  commits: number;
  pushes: number;
  fetches: number;
  /** PR writes: records created or updated, comments posted. */
  prWrites: number;
  /** Subjects whose files differ from Git (change sets). */
  changedSubjects: number;
  /** Write-back actions, e.g. `created` ×10. */
  actions: Record<string, number>;
  nodes: number;
  algorithms: number;
  errors: number;
  /**
   * Steady passes: the sha256 of what the pass decided and wrote (`decision-digest.ts`), computed
   * after the pass and its CPU time were measured.
   */
  digest?: string;
}

/** The cluster cache of a `cache` world (what `gpuops run` reads), measured in the pass process. */
export interface CacheReport {
  /** From start to every resource synced (the first paged lists), ms. */
  syncMs: number;
  /** Heap the synced cache holds (after − before, full collections), MB. */
  liveHeapMb: number;
  /** Pods the cache holds. */
  pods: number;
  /** Pod changes on the API server → the cache showing them, ms, one per change. */
  latenciesMs: number[];
}

/** The last message: peak RSS of this process over all passes. */
export interface PeakReport {
  pass: 'done';
  /** The cache's figures; null when the passes listed (`conn.source` = `list`). */
  cache: CacheReport | null;
  /** `process.resourceUsage().maxRSS`, MB. */
  peakRssMb: number;
  /** Milliseconds from process start to the controller's modules loaded. */
  loadMs: number;
  /** Heap reachable before the first pass (MB, after a full collection). */
  liveHeapBeforeMb: number;
}

/**
 * `GPUOPS_BENCH_CPU_PROF=DIR`: a CPU profile of each pass alone (not the floor, not the set-up),
 * written as `DIR/<store>-<nodes>[-list]-<pass>.cpuprofile` (`-list`: the one-shot listing world) (open it in Chrome DevTools or speedscope).
 * Returns a function that stops the profiler and writes the file; a no-op without the variable.
 */
async function profilePass(name: string): Promise<() => Promise<void>> {
  const dir = process.env.GPUOPS_BENCH_CPU_PROF;
  if (!dir) return async () => undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${dir}/${name}.cpuprofile`, JSON.stringify(profile));
    session.disconnect();
  };
}

/** Runs a full garbage collection and returns the heap still in use (MB). */
function liveHeapMb(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Times the nothing-changed pass is run (`GPUOPS_BENCH_REPEAT`, set by the parent; default 1). */
function benchRepeat(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GPUOPS_BENCH_REPEAT ?? 1);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`GPUOPS_BENCH_REPEAT must be a whole number ≥ 1, got ${n}`);
  return n;
}

/**
 * Counts the queries every `pg` client sends (the store's pool included: the same module is
 * loaded by `dist/`), read as a running total.
 */
function countPostgresStatements(): () => number {
  let n = 0;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    n++;
    return query.apply(this, args);
  };
  return () => n;
}

let asked = 0;
const waiting = new Map<number, (c: ServerCounts) => void>();
process.on(
  'message',
  (m: { id: number; counts?: ServerCounts; changes?: [string, number][]; at?: number }) => {
    if (m.at !== undefined) acked.get(m.id)?.(m.at);
    else if (m.changes) changed.get(m.id)?.(m.changes);
    else waiting.get(m.id)?.(m.counts!);
    waiting.delete(m.id);
    changed.delete(m.id);
    acked.delete(m.id);
  },
);
const acked = new Map<number, (at: number) => void>();
/** Asks the parent to move the metrics (or set some pods'); resolves with the time it did (ms). */
function metricsChange(
  change: { moveMetrics: number; evaluatedAt?: number } | { cross: string[]; value: number },
): Promise<number> {
  const id = ++asked;
  return new Promise((resolve) => {
    acked.set(id, resolve);
    process.send!({ ask: id, ...change });
  });
}
/** Whether pass `i` reads without the early utilisation read (`GPUOPS_BENCH_EARLY_READ`: `off`, `alternate`). */
function earlyReadOff(pass: PassReport['pass'], i: number, env: NodeJS.ProcessEnv = process.env): boolean {
  const mode = env.GPUOPS_BENCH_EARLY_READ;
  // On, off, off, on, …: the steady passes that store the samples (every other one) fall in both.
  return mode === 'off' || (mode === 'alternate' && pass === 'steady' && [1, 2].includes((i - 3) % 4));
}

/** Steady passes after the nothing-changed ones (`GPUOPS_BENCH_STEADY`, set by the parent; default 0). */
function steadyRepeat(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.GPUOPS_BENCH_STEADY ?? 0);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`GPUOPS_BENCH_STEADY must be a whole number ≥ 0, got ${n}`);
  return n;
}
/** Asks the parent to change `n` pods on the API server; resolves with each pod's key and when. */
function changePods(n: number): Promise<[string, number][]> {
  const id = ++asked;
  return new Promise((resolve) => {
    changed.set(id, resolve);
    process.send!({ ask: id, changePods: n });
  });
}
const changed = new Map<number, (c: [string, number][]) => void>();

function serverCounts(): Promise<ServerCounts> {
  const id = ++asked;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    process.send!({ ask: id });
  });
}

async function main(): Promise<void> {
  const conn = JSON.parse(process.argv[2]!) as WorldConnection;
  const [
    { systemClock },
    { compose },
    { settingsWith },
    { LIVE_PODS_FIELD_SELECTOR },
    { reconcileOnce },
    { GitPullRequestHost },
    { WorkingCopy },
    { openStore },
    { measureFloor, openFloorRepo },
    { startRunCache },
    { decidedPart, digestOf },
  ] = await Promise.all([
    load<typeof ClockModule>('benchmark/clock.js'),
    load<typeof ComposeModule>('compose/compose.js'),
    load<typeof SettingsModule>('config/settings.js'),
    load<typeof ReadSnapshotModule>('cluster/read-snapshot.js'),
    load<typeof ReconcileModule>('pass/reconcile.js'),
    load<typeof GitHostModule>('git-hosts/git-host.js'),
    load<typeof WorkingCopyModule>('working-copy/working-copy.js'),
    load<typeof StoreModule>('store/index.js'),
    import(FLOOR) as Promise<typeof FloorModule>,
    load<typeof ClusterCacheModule>('compose/cluster-cache.js'),
    import(DIGEST) as Promise<typeof DigestModule>,
  ]);
  const loadMs = performance.now();
  const storeKind = conn.database.startsWith('postgres') ? 'postgres' : 'sqlite';
  const statements = storeKind === 'postgres' ? countPostgresStatements() : null;
  const kc = new KubeConfig();
  kc.loadFromFile(conn.kubeconfig);
  const store = await openStore(conn.database, { keepSnapshots: 3 });
  let prWrites = 0;
  const counted = new Proxy(store, {
    get(target, key) {
      if (key === 'upsertPullRequest')
        return (pr: Parameters<Store['upsertPullRequest']>[0]) => {
          prWrites++;
          return target.upsertPullRequest(pr);
        };
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  const gitHost = new GitPullRequestHost({
    store: counted,
    cluster: conn.cluster,
    base: 'main',
    now: () => clock.now(),
  });
  const host: PullRequestHost = {
    name: gitHost.name,
    recordsPullRequests: gitHost.recordsPullRequests,
    findPullRequest: (h, b) => gitHost.findPullRequest(h, b),
    ensurePullRequest: (cs, found) => gitHost.ensurePullRequest(cs, found),
    listOpen: () => gitHost.listOpen(),
    comment: async (n, body) => {
      const r = await gitHost.comment(n, body);
      if (r === 'created') prWrites++;
      return r;
    },
  };
  let now = new Date(conn.now);
  const clock = { now: () => now, sleep: systemClock.sleep };
  const workingCopy = await WorkingCopy.open({
    repoUrl: conn.repoUrl,
    baseBranch: 'main',
    dir: `${conn.cacheDir}/gitops`,
  });
  // `cache`: the watch-driven cache `gpuops run` reads, synced before the passes (as `run` does);
  // `list`: the one-shot commands' lists.
  const useCache = (conn.source ?? 'cache') === 'cache';
  const seen = new Map<string, number>();
  const heapBeforeCache = liveHeapMb();
  let cacheReport: CacheReport | null = null;
  const t0 = performance.now();
  const runCache = useCache
    ? await startRunCache(kc, pino({ level: 'silent' }), {
        syncSeconds: 600,
        onEvent: (resource, type, key) => {
          if (resource === 'pods' && type === 'MODIFIED') seen.set(key, Date.now());
        },
      })
    : null;
  const cache = runCache?.cache ?? null;
  if (cache) {
    if (!cache.synced()) throw new Error('bench: the cluster cache did not sync in 600 s');
    cacheReport = {
      syncMs: performance.now() - t0,
      liveHeapMb: liveHeapMb() - heapBeforeCache,
      pods: cache.state().find((x) => x.resource === 'pods')!.objects,
      latenciesMs: [],
    };
    if (process.env.GPUOPS_BENCH_TRACE) {
      const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
      const m = process.memoryUsage();
      process.stderr.write(
        `cache synced: peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, rss ${mb(m.rss)}, heapTotal ${mb(m.heapTotal)}, live heap ${cacheReport.liveHeapMb.toFixed(0)} MB\n`,
      );
    }
  }
  // The composition `gpuops reconcile` uses, with the bench's counting store and host.
  const { deps } = await compose(
    settingsWith({ repoUrl: conn.repoUrl, cluster: conn.cluster, prometheusUrl: conn.prometheusUrl }),
    {
      store: counted,
      kubeConfig: kc,
      workingCopy,
      host,
      clock,
      log: pino({ level: 'silent' }),
      env: {},
      ...(runCache ? { clusterRead: runCache.clusterRead } : {}),
    },
  );

  // GPUOPS_BENCH_TRACE=1: time spent in each adapter call, per pass, on stderr; and where the
  // peak RSS grew: each rise of the process's maxRSS, sampled every 5 ms, is counted against the
  // adapter calls in flight then ("pass" when none: the pass's own code).
  const trace = new Map<string, number>();
  const rssGrowth = new Map<string, number>();
  const inFlight = new Map<string, number>();
  let rssSampler: NodeJS.Timeout | undefined;
  let tickRss = () => undefined as void;
  let atPeak = '';
  if (process.env.GPUOPS_BENCH_TRACE) {
    let lastMax = process.resourceUsage().maxRSS;
    // Also run at each call's start and end, so the growth of the synchronous code before a call
    // is counted against what was in flight while it ran, not against the call it then made.
    tickRss = () => {
      const max = process.resourceUsage().maxRSS;
      if (max <= lastMax) return;
      const active = [...inFlight].filter(([, n]) => n > 0).map(([k]) => k);
      const k = active.length === 0 ? 'pass' : active.sort().join('+');
      rssGrowth.set(k, (rssGrowth.get(k) ?? 0) + (max - lastMax) / 1024);
      lastMax = max;
      const m = process.memoryUsage();
      atPeak = `heapTotal ${(m.heapTotal / 2 ** 20).toFixed(0)} MB, heapUsed ${(m.heapUsed / 2 ** 20).toFixed(0)} MB, external ${(m.external / 2 ** 20).toFixed(0)} MB`;
    };
    rssSampler = setInterval(tickRss, 5);
    rssSampler.unref();
    const wrap = <T extends object>(name: string, target: T): T =>
      new Proxy(target, {
        get(t, key) {
          const v: unknown = Reflect.get(t, key);
          if (typeof v !== 'function') return v;
          return async (...args: unknown[]) => {
            const t0 = performance.now();
            const k = `${name}.${String(key)}`;
            tickRss();
            inFlight.set(k, (inFlight.get(k) ?? 0) + 1);
            try {
              return (await (v as (...a: unknown[]) => unknown).apply(t, args)) as unknown;
            } finally {
              tickRss();
              inFlight.set(k, inFlight.get(k)! - 1);
              trace.set(k, (trace.get(k) ?? 0) + performance.now() - t0);
            }
          };
        },
      });
    deps.kube = wrap('kube', deps.kube);
    deps.store = wrap('store', deps.store);
    deps.metrics = wrap('metrics', deps.metrics!);
    deps.host = wrap('host', deps.host);
    deps.workingCopy = wrap('git', workingCopy);
    if (deps.clusterRead) deps.clusterRead = wrap('cluster', deps.clusterRead);
  }

  const floorRepo = await openFloorRepo(conn.repoUrl);
  const liveHeapBeforeMb = liveHeapMb();
  const passes: PassReport['pass'][] = [
    'first',
    'warm',
    ...Array<'unchanged'>(benchRepeat()).fill('unchanged'),
    ...Array<'steady'>(steadyRepeat()).fill('steady'),
  ];
  let watch: Watchlist | undefined;
  for (const [i, pass] of passes.entries()) {
    // Every GPU's utilisation moves a little, as real values do from one pass to the next, and
    // Prometheus answers at the pass's time, as a real one evaluates at its own (moving) clock:
    // each sample's time moves with it (`GPUOPS_BENCH_METRICS_TIME=fixed`: one time throughout).
    if (pass === 'steady')
      await metricsChange({
        moveMetrics: 0.3,
        ...(process.env.GPUOPS_BENCH_METRICS_TIME === 'fixed' ? {} : { evaluatedAt: now.getTime() / 1000 }),
      });
    // GPUOPS_BENCH_EARLY_READ=off: no pass sends the last pass's query early (`pass/early-reading.ts`),
    // it reads after the specs as before 2026-12-07; `alternate`: half the steady passes (a paired
    // comparison under one load). The query is the same either way: the decisions are too.
    const earlyOff = earlyReadOff(pass, i);
    if (earlyOff) deps.memory.utilization = undefined;
    trace.clear();
    rssGrowth.clear();
    const before = await serverCounts();
    const wc0 = { ...workingCopy.counters };
    const pr0 = prWrites;
    const statements0 = statements?.() ?? 0;
    const stopProfile = await profilePass(
      `${storeKind}-${conn.gpuNodes ?? 0}${useCache ? '' : '-list'}-${pass}${i > 2 ? `-${i - 1}` : ''}`,
    );
    // After the profiler started: its own start (a session, an enable) is not the pass's CPU time.
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await reconcileOnce({ ...deps, dryRun: pass === 'first' });
    const wallMs = performance.now() - t0;
    watch = r.watch;
    const cpu = process.cpuUsage(cpu0);
    // As the loop does between passes (`controller/loop.ts`): off the pass's time.
    const ck0 = performance.now();
    const ck = (await store.checkpoint?.()) ?? null;
    const checkpoint = ck ? { wallMs: performance.now() - ck0, logPages: ck.logPages } : null;
    const passStatements = statements ? statements() - statements0 : null;
    tickRss();
    const peakRssBeforeFloorMb = process.resourceUsage().maxRSS / 1024;
    const passGrowth = [...rssGrowth];
    const passPeak = atPeak;
    await stopProfile();
    const after = await serverCounts();
    // The floor right after the pass, in the same process: the I/O it could not avoid.
    const floor =
      pass === 'first'
        ? null
        : await measureFloor({
            kc,
            podFieldSelector: LIVE_PODS_FIELD_SELECTOR,
            lists: !useCache,
            prometheusUrl: conn.prometheusUrl,
            prometheusQuery: conn.prometheusQuery,
            repo: floorRepo,
            baseBranch: 'main',
            changes: r.changeSets.map((c) => ({ branch: c.branch, message: c.title, files: c.files })),
          });
    const actions: Record<string, number> = {};
    for (const w of r.writeBack) actions[w.action] = (actions[w.action] ?? 0) + 1;
    const delta = (a: Record<string, number>, b: Record<string, number>) => {
      const out: Record<string, number> = {};
      for (const [k, n] of Object.entries(a)) if (n - (b[k] ?? 0) > 0) out[k] = n - (b[k] ?? 0);
      return out;
    };
    const byVerb = delta(after.kubeByVerb, before.kubeByVerb);
    const report: PassReport = {
      pass,
      wallMs,
      floor,
      liveHeapMb: 0,
      peakRssBeforeFloorMb,
      cpuMs: (cpu.user + cpu.system) / 1000,
      kubeRequests: after.kube - before.kube,
      kubeByVerb: byVerb,
      kubeByPath: delta(after.kubeByPath, before.kubeByPath),
      checkpoint,
      statements: passStatements,
      prometheusRequests: after.prometheus - before.prometheus,
      prometheusBytes: after.prometheusBytes - before.prometheusBytes,
      prometheusAnswerMs: after.prometheusAnswerMs - before.prometheusAnswerMs,
      commits: workingCopy.counters.commits - wc0.commits,
      pushes: workingCopy.counters.pushes - wc0.pushes,
      fetches: workingCopy.counters.fetches - wc0.fetches,
      prWrites: prWrites - pr0,
      changedSubjects: r.changeSets.length,
      actions,
      nodes: r.nodes,
      algorithms: r.algorithms,
      errors: r.errors,
    };
    if (pass === 'steady') report.digest = digestOf(decidedPart(r, report));
    report.liveHeapMb = liveHeapMb();
    process.send!(report);
    if (trace.size > 0) {
      const mem = Object.entries(process.memoryUsage()).map(
        ([k, b]) => `${k} ${(b / 2 ** 20).toFixed(0)} MB`,
      );
      const calls = [...trace].map(([k, ms]) => `${k} ${ms.toFixed(0)}`);
      // What the pass keeps alive: the heap after a full collection (the peak adds its garbage).
      const live = `live heap ${report.liveHeapMb.toFixed(0)} MB`;
      const grew = passGrowth.map(([k, mb]) => `${k} +${mb.toFixed(0)} MB`);
      // How much of the scaling step the reconciler's memory kept (`kept-inputs.ts`, `decision-memo.ts`).
      const { inputs, decisions } = deps.memory.scaling;
      const memo = `inputs kept ${inputs.kept}, decisions reused ${decisions.reused}, kept in band ${decisions.kept}, on kept facts ${decisions.again}`;
      const times = `wall ${wallMs.toFixed(0)} ms, CPU ${report.cpuMs.toFixed(0)} ms, fake Prometheus ${report.prometheusAnswerMs.toFixed(0)} ms`;
      process.stderr.write(
        `${pass}${earlyOff ? ' (early read off)' : ''}: ${times}; ${calls.join(', ')}; ${checkpoint ? `checkpoint after it ${checkpoint.wallMs.toFixed(0)} ms (${checkpoint.logPages} log pages); ` : ''}${mem.join(', ')}; ${live}; ${memo}; peak RSS grew in: ${grew.join(', ') || 'none'} (at its peak: ${passPeak})\n`,
      );
    }
    // The controller's next pass comes an interval later (inside the scale-up cooldown).
    now = new Date(now.getTime() + 30_000);
  }
  if (steadyRepeat() > 0 && watch) {
    const { runCrossingTrigger } = await load<typeof CrossingTriggerModule>('controller/crossing-trigger.js');
    process.send!(await crossing(watch, deps, reconcileOnce, runCrossingTrigger, workingCopy.counters));
  }
  if (cache && cacheReport) {
    // Pod changes on the API server → the cache showing them (the parent writes them in bursts).
    const changes = await changePods(1000);
    const deadline = Date.now() + 60_000;
    while (changes.some(([key, t]) => (seen.get(key) ?? 0) < t) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    cacheReport.latenciesMs = changes.map(([key, t]) => (seen.get(key) ?? Number.NaN) - t);
    await cache.stop();
  }
  await store.close();
  floorRepo.close();
  const done: PeakReport = {
    pass: 'done',
    cache: cacheReport,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    loadMs,
    liveHeapBeforeMb,
  };
  process.send!(done);
  process.disconnect();
}

/**
 * Issue 42: one algorithm in band goes to 99 % on the metrics side; the crossing trigger (every
 * second, the real one on the pass's source) wakes a pass, which writes the scale-up. The report's
 * `wallMs` is from the parent's change of the metrics to that pass written.
 */
async function crossing(
  watch: Watchlist,
  deps: Parameters<typeof ReconcileModule.reconcileOnce>[0],
  reconcileOnce: typeof ReconcileModule.reconcileOnce,
  runCrossingTrigger: typeof CrossingTriggerModule.runCrossingTrigger,
  counters: { commits: number; pushes: number },
): Promise<PassReport> {
  const target = watch.algorithms.find((a) => a.view.replicas < a.view.maxReplicas && a.pods.length > 0);
  if (!target) throw new Error('bench: no algorithm to cross its band');
  const c0 = { ...counters };
  const cpu0 = process.cpuUsage();
  const at = await metricsChange({ cross: target.pods.map((p) => `${target.namespace}/${p}`), value: 99 });
  const ac = new AbortController();
  let fired = 0;
  await runCrossingTrigger({
    source: deps.metrics!,
    intervalSeconds: 1,
    watchlist: () => watch,
    onCrossing: () => {
      fired = Date.now();
      ac.abort();
    },
    now: () => Date.now(),
    log: pino({ level: 'silent' }),
    signal: ac.signal,
  });
  const r = await reconcileOnce(deps);
  const wallMs = Date.now() - at;
  const cpu = process.cpuUsage(cpu0);
  const actions: Record<string, number> = {};
  for (const w of r.writeBack) actions[w.action] = (actions[w.action] ?? 0) + 1;
  const decided = r.plan.scaling.find((d) => d.algorithm === target.name);
  return {
    pass: 'crossing',
    wallMs,
    floor: null,
    liveHeapMb: 0,
    peakRssBeforeFloorMb: process.resourceUsage().maxRSS / 1024,
    cpuMs: (cpu.user + cpu.system) / 1000,
    kubeRequests: 0,
    kubeByVerb: {},
    kubeByPath: {
      [`detected after ${fired - at} ms: ${decided?.action ?? 'none'} ${decided?.reason ?? ''}`]: 1,
    },
    checkpoint: null,
    statements: null,
    prometheusRequests: 0,
    prometheusBytes: 0,
    prometheusAnswerMs: 0,
    commits: counters.commits - c0.commits,
    pushes: counters.pushes - c0.pushes,
    fetches: 0,
    prWrites: 0,
    changedSubjects: r.changeSets.length,
    actions,
    nodes: r.nodes,
    algorithms: r.algorithms,
    errors: r.errors,
  };
}

main().catch((err: unknown) => {
  process.stderr.write(
    `reconcile bench pass: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
