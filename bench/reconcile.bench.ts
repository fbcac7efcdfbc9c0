/**
 * Issue 8 and 14: a full warm reconcile pass at fleet scale — 2,000 GPU nodes, ~20,000 pods,
 * 1,000 algorithms — against the simulated cluster over HTTP, a GitOps repo that already holds the
 * merged pools and placement output, benchmarks stored in SQLite (and, the same world, in
 * PostgreSQL) and one canned Prometheus answer (see `reconcile-fleet.ts`); then the same at one
 * tenth of the size and at five times it (10,000 GPU nodes / ~100,000 pods / 5,000 algorithms;
 * `GPUOPS_BENCH_BIG=0` leaves it out, `=only` measures it alone). Each world runs its passes in a forked process
 * (`reconcile-pass.ts`: first, warm, then nothing changed `GPUOPS_BENCH_REPEAT` times at full size,
 * default 5, reported as median and spread; once at the other sizes) on the compiled code in `dist/` (rebuilt first when older than `src/`),
 * so peak RSS is the controller's alone; beside each pass, in that process, the floor
 * (`floor.ts`): the I/O the pass cannot avoid. `GPUOPS_BENCH_CPU_PROF=DIR` writes a CPU profile of
 * each pass (`DIR/<store>-<GPU nodes>-<pass>.cpuprofile`).
 *
 * Targets (issues 8 and 14, on a 2-core machine): warm pass < 2 s and ≤ 2× its floor, nothing
 * changed ≤ 1.5× its floor, peak RSS < 400 MB, first pass in a fresh process ≤ 3× the warm one,
 * Kubernetes API requests per pass that do not grow with the fleet beyond list pages, at most
 * one commit per changed subject, and nothing written by a pass with nothing changed.
 */
import { execFileSync, fork } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import pg from 'pg';
import ts from 'typescript';
import { DEFAULT_PAGE_SIZE } from '../src/cluster/kube-client.js';
import ensureDist from '../test/support/build-dist.js';
import { startTestPostgres } from '../test/store/postgres-server.js';
import { buildWorld, type World, type WorldConnection, type WorldSize } from './reconcile-fleet.js';
import type { PassReport, PeakReport, ServerCounts } from './reconcile-pass.js';
import type { Figure } from './run.js';

const FULL: WorldSize = { gpuNodes: 2000, algorithms: 1000 };
const TENTH: WorldSize = { gpuNodes: 200, algorithms: 100 };
const BIG: WorldSize = { gpuNodes: 10000, algorithms: 5000 };
const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Measured {
  world: World['counts'];
  /**
   * `unchanged`: the nothing-changed run with the median wall time, its commits, pushes and PR
   * writes the most of any run (each must write nothing).
   */
  passes: Record<'first' | 'warm' | 'unchanged', PassReport>;
  /** Every nothing-changed run (`GPUOPS_BENCH_REPEAT`, default 5), in order. */
  unchangedRuns: PassReport[];
  /** Steady runs (every GPU's utilisation moved a little; `steady` of {@link measure}), in order. */
  steadyRuns: PassReport[];
  /** The crossing on the metrics side → its pass written, when steady runs were asked for. */
  crossing: PassReport | null;
  peak: PeakReport;
}

/**
 * The pass process as plain JavaScript: `reconcile-pass.ts`, `floor.ts` and `decision-digest.ts` transpiled (types
 * erased, nothing else) into `.tmp/bench/`, loading the controller from `dist/`. No tsx in it.
 */
function compiledPass(): { file: string; env: NodeJS.ProcessEnv } {
  ensureDist();
  const out = path.join(ROOT, '.tmp/bench');
  mkdirSync(out, { recursive: true });
  for (const name of ['reconcile-pass', 'floor', 'decision-digest']) {
    const source = readFileSync(path.join(ROOT, 'bench', `${name}.ts`), 'utf8');
    const js = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    }).outputText;
    writeFileSync(path.join(out, `${name}.mjs`), js);
  }
  return {
    file: path.join(out, 'reconcile-pass.mjs'),
    env: {
      ...process.env,
      GPUOPS_BENCH_CODE: pathToFileURL(path.join(ROOT, 'dist/')).href,
      GPUOPS_BENCH_FLOOR: pathToFileURL(path.join(out, 'floor.mjs')).href,
      GPUOPS_BENCH_DIGEST: pathToFileURL(path.join(out, 'decision-digest.mjs')).href,
    },
  };
}

/** Runs the pass process against one connection of a built world, the nothing-changed pass `repeat` times. */
/**
 * Changes `n` algorithm pods on the API server (a label, in bursts of 10 a tick apart) and returns
 * each pod's key and the time (ms since the epoch) it was changed: the cache's latency is measured
 * against these in the pass process.
 */
async function changePods(world: World, n: number): Promise<[string, number][]> {
  const pods = world.sim.store.list('pods', 'algorithms').slice(0, n);
  const out: [string, number][] = [];
  const run = Date.now(); // a value of its own each run: an update that changes nothing sends no event
  for (const [i, p] of pods.entries()) {
    const next = structuredClone(p);
    next.metadata.labels = { ...next.metadata.labels, 'bench.gpuops.dev/change': `${run}-${i}` };
    world.sim.store.update('pods', next);
    out.push([`${p.metadata.namespace}/${p.metadata.name}`, Date.now()]);
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 1));
  }
  return out;
}

export async function measure(
  world: World,
  conn: WorldConnection,
  repeat = 1,
  steady = 0,
): Promise<Measured> {
  const profDir = process.env.GPUOPS_BENCH_CPU_PROF;
  if (profDir) mkdirSync(profDir, { recursive: true });
  const pass = compiledPass();
  // The pass process profiles each pass itself (GPUOPS_BENCH_CPU_PROF, see `reconcile-pass.ts`).
  const child = fork(pass.file, [JSON.stringify(conn)], {
    execArgv: [], // not the bench's own `--import tsx`: the pass process runs plain JavaScript
    env: { ...pass.env, GPUOPS_BENCH_REPEAT: String(repeat), GPUOPS_BENCH_STEADY: String(steady) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const passes: Partial<Measured['passes']> = {};
  const unchangedRuns: PassReport[] = [];
  const steadyRuns: PassReport[] = [];
  let crossing: PassReport | null = null;
  let peak: PeakReport | undefined;
  type Ask = {
    ask: number;
    changePods?: number;
    moveMetrics?: number;
    evaluatedAt?: number;
    cross?: string[];
    value?: number;
  };
  await new Promise<void>((resolve, reject) => {
    child.on('message', (m: Ask | PassReport | PeakReport) => {
      if ('ask' in m && m.moveMetrics !== undefined) {
        world.moveMetrics(m.moveMetrics, m.evaluatedAt);
        child.send({ id: m.ask, at: Date.now() });
      } else if ('ask' in m && m.cross !== undefined) {
        world.setMetrics(new Set(m.cross), m.value ?? 99);
        child.send({ id: m.ask, at: Date.now() });
      } else if ('ask' in m && m.changePods !== undefined) {
        void changePods(world, m.changePods).then((changes) => child.send({ id: m.ask, changes }));
      } else if ('ask' in m) {
        const r = world.sim.requests();
        const counts: ServerCounts = {
          kube: r.total,
          kubeByVerb: r.byVerb,
          kubeByPath: r.byPath,
          prometheus: world.prometheusRequests(),
          prometheusBytes: world.prometheusBytes(),
          prometheusAnswerMs: world.prometheusAnswerMs(),
        };
        child.send({ id: m.ask, counts });
      } else if (m.pass === 'done') peak = m;
      else if (m.pass === 'unchanged') unchangedRuns.push(m);
      else if (m.pass === 'steady') steadyRuns.push(m);
      else if (m.pass === 'crossing') crossing = m;
      else passes[m.pass] = m;
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`reconcile pass process exited with ${code}`)),
    );
  });
  if (!passes.first || !passes.warm || unchangedRuns.length === 0 || !peak)
    throw new Error('reconcile pass process reported too few passes');
  const byWall = [...unchangedRuns].sort((a, b) => a.wallMs - b.wallMs);
  const most = (key: 'commits' | 'pushes' | 'prWrites') => Math.max(...unchangedRuns.map((r) => r[key]));
  passes.unchanged = {
    ...byWall[(byWall.length - 1) >> 1]!,
    commits: most('commits'),
    pushes: most('pushes'),
    prWrites: most('prWrites'),
  };
  return {
    world: world.counts,
    passes: passes as Measured['passes'],
    unchangedRuns,
    steadyRuns,
    crossing,
    peak,
  };
}

/** Nothing-changed runs at full size: `GPUOPS_BENCH_REPEAT`, default 5. */
function fullRepeat(): number {
  const n = Number(process.env.GPUOPS_BENCH_REPEAT ?? 5);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`GPUOPS_BENCH_REPEAT must be a whole number ≥ 1, got ${n}`);
  return n;
}

/** Median (the lower middle one of an even count), min and max of `values`. */
export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[(sorted.length - 1) >> 1]!, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** `median` with its spread for a figure's name, e.g. `median of 5, 2410–2630 ms`. */
function spreadText(values: readonly number[], unit: string, digits = 0): string {
  const { min, max } = spread(values);
  return `median of ${values.length}, ${min.toFixed(digits)}–${max.toFixed(digits)}${unit}`;
}

/** Builds a world, measures it on SQLite (and PostgreSQL when given), and tears it down. */
export async function measureSize(
  size: WorldSize,
  postgresUrl?: string,
  repeat = 1,
  alsoListing = false,
): Promise<{ sqlite: Measured; postgres: Measured | null; listing: Measured | null }> {
  const world = await buildWorld(size, postgresUrl);
  try {
    // The one-shot commands' listing passes on their own copy of the warm repo and database, taken
    // before any pass writes, so each source starts alike.
    const listingConn = alsoListing ? copyConnection(world.connection, 'list') : null;
    const sqlite = await measure(world, world.connection, repeat);
    const postgres = world.postgres ? await measure(world, world.postgres, repeat) : null;
    const listing = listingConn ? await measure(world, { ...listingConn, source: 'list' }, repeat) : null;
    return { sqlite, postgres, listing };
  } finally {
    await world.close();
  }
}

/** A copy of a SQLite connection's repo (bare clone) and database file, beside them. */
function copyConnection(conn: WorldConnection, suffix: string): WorldConnection {
  const repoUrl = `${conn.repoUrl.replace(/\.git$/, '')}-${suffix}.git`;
  execFileSync('git', ['clone', '-q', '--bare', conn.repoUrl, repoUrl]);
  const db = conn.database.replace(/^sqlite:/, '');
  copyFileSync(db, `${db}-${suffix}`);
  return { ...conn, repoUrl, database: `sqlite:${db}-${suffix}`, cacheDir: `${conn.cacheDir}-${suffix}` };
}

/**
 * List pages a snapshot needs: Nodes, live Pods (Succeeded/Failed filtered by the server) and
 * ReplicaSets (the world has none: one empty page).
 */
function listPages(nodes: number, pods: number): number {
  const pages = (n: number) => Math.max(1, Math.ceil(n / DEFAULT_PAGE_SIZE));
  return pages(nodes) + pages(pods) + pages(0);
}

/** A throw-away PostgreSQL (as the Store tests start it) and a fresh schema in it. */
export async function startPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = await startTestPostgres();
  const schema = `bench_${process.pid}`;
  const sql = async (text: string) => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    try {
      await c.query(text);
    } finally {
      await c.end();
    }
  };
  await sql(`CREATE SCHEMA ${schema}`);
  const sep = server.url.includes('?') ? '&' : '?';
  return {
    url: `${server.url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    stop: async () => {
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await server.stop();
    },
  };
}

/**
 * Figures of one store's passes at full size: wall, CPU, floors and their ratios; the
 * nothing-changed pass as the median of its runs with the spread in the name, each ratio taken
 * run by run (the pass and the floor measured right after it) before the median.
 */
function passFigures(label: string, m: Measured): Figure[] {
  const { warm } = m.passes;
  const runs = m.unchangedRuns;
  const wf = warm.floor!;
  const wall = runs.map((r) => r.wallMs);
  const cpu = runs.map((r) => r.cpuMs);
  const floorWall = runs.map((r) => r.floor!.totalMs);
  const floorCpu = runs.map((r) => r.floor!.cpuMs);
  const wallRatio = runs.map((r) => r.wallMs / r.floor!.totalMs);
  const cpuRatio = runs.map((r) => r.cpuMs / r.floor!.cpuMs);
  const statements = runs.map((r) => r.statements).filter((n): n is number => n !== null);
  return [
    { name: `${label} warm pass (10 subjects): wall time`, value: warm.wallMs, unit: 'ms', target: 2000 },
    { name: `${label} warm pass: CPU time`, value: warm.cpuMs, unit: 'ms' },
    {
      name: `${label} warm pass: floor (reads ${fmt(wf.readMs)} + 10 commits, 1 push ${fmt(wf.writeMs)}; CPU ${fmt(wf.cpuMs)})`,
      value: wf.totalMs,
      unit: 'ms',
    },
    { name: `${label} warm pass ÷ floor`, value: warm.wallMs / wf.totalMs, unit: '×', target: 1.2 },
    { name: `${label} warm pass CPU ÷ floor CPU`, value: warm.cpuMs / wf.cpuMs, unit: '×' },
    ...(warm.statements === null
      ? []
      : [{ name: `${label} warm pass: PostgreSQL statements`, value: warm.statements, unit: 'statements' }]),
    {
      name: `${label} pass, nothing changed: wall time (${spreadText(wall, ' ms')})`,
      value: spread(wall).median,
      unit: 'ms',
      target: 300,
    },
    {
      name: `${label} pass, nothing changed: CPU time (${spreadText(cpu, ' ms')})`,
      value: spread(cpu).median,
      unit: 'ms',
    },
    {
      name: `${label} pass, nothing changed: git fetches`,
      value: m.passes.unchanged.fetches,
      unit: 'fetches',
    },
    {
      name: `${label} pass, nothing changed: floor (reads; ${spreadText(floorWall, ' ms')}; CPU ${spreadText(floorCpu, ' ms')})`,
      value: spread(floorWall).median,
      unit: 'ms',
    },
    {
      name: `${label} pass, nothing changed ÷ floor (${spreadText(wallRatio, '×', 2)})`,
      value: spread(wallRatio).median,
      unit: '×',
      target: 1.5,
    },
    {
      name: `${label} pass, nothing changed: CPU ÷ floor CPU (${spreadText(cpuRatio, '×', 2)})`,
      value: spread(cpuRatio).median,
      unit: '×',
    },
    ...(statements.length === 0
      ? []
      : [
          {
            name: `${label} pass, nothing changed: PostgreSQL statements (${spreadText(statements, '')})`,
            value: spread(statements).median,
            unit: 'statements',
          },
        ]),
    { name: `${label} pass process: peak RSS`, value: m.peak.peakRssMb, unit: 'MB', target: 400 },
    {
      name: `${label} pass process: peak RSS over the first and warm passes, before any floor`,
      value: warm.peakRssBeforeFloorMb,
      unit: 'MB',
    },
  ];
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;

/**
 * The size of the pass's Prometheus answer (issue 26: scoped to the algorithms' namespaces, it
 * grows with the managed pods, not with the fleet's GPUs).
 */
function promAnswerFigure(label: string, m: Measured): Figure {
  return {
    name: `${label}: Prometheus answer, scoped to the algorithms' namespaces (unscoped: ${(m.world.unscopedAnswerBytes / 2 ** 20).toFixed(1)} MB for the fleet's ${m.world.gpus} GPUs)`,
    value: m.passes.warm.prometheusBytes / 2 ** 20,
    unit: 'MB',
  };
}

/**
 * The watch-driven cache's figures (issue 26): list calls and API requests per steady-state pass
 * (none beyond the watch streams), its sync time, the heap it holds per 1,000 pods, and the time
 * from a pod's change on the API server to the cache showing it.
 */
function cacheFigures(label: string, m: Measured): Figure[] {
  const c = m.peak.cache;
  if (!c) return [];
  const steady = [m.passes.warm, ...m.unchangedRuns];
  const lat = spread(c.latenciesMs.filter((x) => Number.isFinite(x)));
  const missed = c.latenciesMs.filter((x) => !Number.isFinite(x)).length;
  return [
    {
      name: `${label} on the cluster cache: list calls per pass (most of ${steady.length} passes after sync)`,
      value: Math.max(...steady.map((p) => p.kubeByVerb.list ?? 0)),
      unit: 'calls',
      target: 1,
    },
    {
      name: `${label} on the cluster cache: Kubernetes API requests per pass beyond the watch streams (most)`,
      value: Math.max(...steady.map((p) => p.kubeRequests - (p.kubeByVerb.watch ?? 0))),
      unit: 'requests',
      target: 1,
    },
    {
      name: `${label} cluster cache: first sync (paged lists of ${c.pods} pods)`,
      value: c.syncMs,
      unit: 'ms',
    },
    {
      name: `${label} cluster cache: live heap per 1,000 pods (${c.liveHeapMb.toFixed(0)} MB for ${c.pods} pods and the nodes)`,
      value: (c.liveHeapMb / c.pods) * 1000,
      unit: 'MB',
    },
    {
      name: `${label} cluster cache: pod change → cache, median of ${c.latenciesMs.length} changes${missed ? ` (${missed} never seen)` : ''}`,
      value: lat.median,
      unit: 'ms',
    },
    { name: `${label} cluster cache: pod change → cache, max`, value: lat.max, unit: 'ms' },
  ];
}

/** Each world's passes on stderr as soon as they are measured. */
function report(label: string, m: Measured | null): void {
  if (m)
    process.stderr.write(`reconcile bench (${label}): ${JSON.stringify({ ...m.passes, peak: m.peak })}\n`);
}

/** The big world's own figures (`GPUOPS_BENCH_BIG=only` measures it alone, to look at it). */
function bigFigures(big: Measured): Figure[] {
  const b = big.world;
  const { warm, unchanged } = big.passes;
  return [
    {
      name: `reconcile big (${b.gpuNodes} GPU nodes / ${b.pods} pods / ${b.algorithms} algorithms) warm pass (${warm.changedSubjects} subjects): wall time`,
      value: warm.wallMs,
      unit: 'ms',
      target: 3000,
    },
    { name: 'reconcile big warm pass: CPU time', value: warm.cpuMs, unit: 'ms' },
    // ~1 % of algorithms over max: none means the utilisation reading failed (e.g. its 10 s
    // deadline on a loaded machine) and every decision held, so the pass wrote nothing.
    { name: 'reconcile big warm pass: changed subjects', value: warm.changedSubjects, unit: 'subjects' },
    { name: 'reconcile big warm pass ÷ its floor', value: warm.wallMs / warm.floor!.totalMs, unit: '×' },
    {
      name: 'reconcile big pass, nothing changed: wall time',
      value: unchanged.wallMs,
      unit: 'ms',
      target: 1000,
    },
    { name: 'reconcile big pass, nothing changed: CPU time', value: unchanged.cpuMs, unit: 'ms' },
    {
      name: 'reconcile big pass, nothing changed ÷ its floor',
      value: unchanged.wallMs / unchanged.floor!.totalMs,
      unit: '×',
      target: 1.5,
    },
    promAnswerFigure('reconcile big warm pass', big),
    { name: 'reconcile big pass process: peak RSS', value: big.peak.peakRssMb, unit: 'MB', target: 600 },
    ...cacheFigures('reconcile big', big),
    {
      name: 'reconcile big pass process: peak RSS over the first and warm passes, before any floor',
      value: warm.peakRssBeforeFloorMb,
      unit: 'MB',
    },
  ];
}

export default async function bench(): Promise<Figure[]> {
  if (process.env.GPUOPS_BENCH_BIG === 'only') {
    const big = (await measureSize(BIG)).sqlite;
    report('big', big);
    return bigFigures(big);
  }
  const postgres = await startPostgres();
  let full: Awaited<ReturnType<typeof measureSize>>;
  try {
    full = await measureSize(FULL, postgres.url, fullRepeat(), true);
  } finally {
    await postgres.stop();
  }
  report('full, SQLite', full.sqlite);
  report('full, PostgreSQL', full.postgres);
  report('full, SQLite, listing (one-shot commands)', full.listing);
  const tenth = (await measureSize(TENTH)).sqlite;
  report('tenth', tenth);
  // The big world is on paper only: when it cannot be built here (memory), the rest still counts.
  let big: Measured | null = null;
  if (process.env.GPUOPS_BENCH_BIG !== '0') {
    try {
      big = (await measureSize(BIG)).sqlite;
      report('big', big);
    } catch (err) {
      process.stderr.write(`reconcile bench (big): ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  const f = full.sqlite;
  const w = f.world;
  const at = `${w.gpuNodes} GPU nodes / ${w.pods} pods / ${w.algorithms} algorithms`;
  const warm = f.passes.warm;
  const same = f.passes.unchanged;
  // Requests beyond list pages (per-node or per-object calls) must be none at either size; on the
  // cache, none beyond its watch streams (a watch that reconnected is one).
  const beyond = (m: Measured, p: PassReport) =>
    m.peak.cache
      ? p.kubeRequests - (p.kubeByVerb.watch ?? 0)
      : p.kubeRequests - listPages(m.world.nodes, m.world.pods);
  const listing = full.listing;
  const figures: Figure[] = [
    ...passFigures(`reconcile (${at}), SQLite:`, f),
    ...(full.postgres ? passFigures('reconcile, same world, PostgreSQL:', full.postgres) : []),
    {
      name: 'reconcile first pass in a fresh process (dry run, modules already loaded)',
      value: f.passes.first.wallMs,
      unit: 'ms',
    },
    { name: 'reconcile pass process: loading the controller modules', value: f.peak.loadMs, unit: 'ms' },
    {
      name: 'reconcile first pass (incl. module loading) ÷ warm pass',
      value: (f.passes.first.wallMs + f.peak.loadMs) / warm.wallMs,
      unit: '×',
      target: 3,
    },
    { name: 'reconcile warm pass: Kubernetes API requests', value: warm.kubeRequests, unit: 'requests' },
    {
      name: 'reconcile warm pass: API requests beyond list pages (on the cache: beyond the watch streams)',
      value: beyond(f, warm),
      unit: 'requests',
      target: 1,
    },
    {
      name: 'reconcile warm pass: Prometheus requests',
      value: warm.prometheusRequests,
      unit: 'requests',
      target: 2,
    },
    promAnswerFigure('reconcile warm pass', f),
    ...cacheFigures('reconcile', f),
    ...(listing
      ? [
          {
            name: `reconcile one-shot (listing, as plan and reconcile --once) pass, nothing changed: wall time (target: the latest listing figure before the cache, docs/performance.md; ${spreadText(
              listing.unchangedRuns.map((r) => r.wallMs),
              ' ms',
            )})`,
            value: spread(listing.unchangedRuns.map((r) => r.wallMs)).median,
            unit: 'ms',
            target: 1500,
          },
          {
            name: 'reconcile one-shot (listing) warm pass: wall time',
            value: listing.passes.warm.wallMs,
            unit: 'ms',
          },
          {
            name: 'reconcile one-shot (listing) warm pass: API requests beyond list pages',
            value: beyond(listing, listing.passes.warm),
            unit: 'requests',
            target: 1,
          },
        ]
      : []),
    { name: 'reconcile warm pass: changed subjects', value: warm.changedSubjects, unit: 'subjects' },
    { name: 'reconcile warm pass: git commits', value: warm.commits, unit: 'commits' },
    {
      name: 'reconcile warm pass: commits beyond one per changed subject',
      value: Math.max(0, warm.commits - warm.changedSubjects),
      unit: 'commits',
      target: 1,
    },
    { name: 'reconcile pass, nothing changed: git commits', value: same.commits, unit: 'commits', target: 1 },
    { name: 'reconcile pass, nothing changed: git pushes', value: same.pushes, unit: 'pushes', target: 1 },
    {
      name: 'reconcile pass, nothing changed: writing PR calls',
      value: same.prWrites,
      unit: 'calls',
      target: 1,
    },
    // Memory: what the process holds between passes, and what it peaks at, against one tenth.
    {
      name: 'reconcile pass process: live heap before the first pass',
      value: f.peak.liveHeapBeforeMb,
      unit: 'MB',
    },
    {
      name: 'reconcile pass process: live heap after the nothing-changed pass',
      value: same.liveHeapMb,
      unit: 'MB',
    },
    {
      name: 'reconcile live heap held between passes (after − before)',
      value: same.liveHeapMb - f.peak.liveHeapBeforeMb,
      unit: 'MB',
    },
    {
      name: `reconcile warm pass at one tenth (${tenth.world.gpuNodes} GPU nodes): wall time`,
      value: tenth.passes.warm.wallMs,
      unit: 'ms',
    },
    {
      name: 'reconcile warm pass at one tenth: API requests beyond the watch streams',
      value: beyond(tenth, tenth.passes.warm),
      unit: 'requests',
      target: 1,
    },
    { name: 'reconcile pass process at one tenth: peak RSS', value: tenth.peak.peakRssMb, unit: 'MB' },
    {
      name: 'reconcile peak RSS growth, full − tenth (10× the fleet)',
      value: f.peak.peakRssMb - tenth.peak.peakRssMb,
      unit: 'MB',
    },
    {
      name: 'reconcile live heap held between passes at one tenth (after − before)',
      value: tenth.passes.unchanged.liveHeapMb - tenth.peak.liveHeapBeforeMb,
      unit: 'MB',
    },
    // Linear growth: 10× the fleet costs at most ~10× the time (fixed costs make it less).
    {
      name: 'reconcile warm pass growth, full / tenth (10× the fleet)',
      value: warm.wallMs / tenth.passes.warm.wallMs,
      unit: '×',
      target: 12,
    },
  ];
  if (big) {
    figures.push(
      ...bigFigures(big),
      {
        name: 'reconcile warm pass growth, big / full (5× the fleet)',
        value: big.passes.warm.wallMs / warm.wallMs,
        unit: '×',
        target: 6,
      },
      {
        name: 'reconcile warm pass CPU growth, big / full (5× the fleet)',
        value: big.passes.warm.cpuMs / warm.cpuMs,
        unit: '×',
      },
    );
  }
  return figures;
}
