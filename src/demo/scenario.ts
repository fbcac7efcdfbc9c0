/**
 * The demo scenario: the whole method on one machine, no network. A simulated cluster (the mixed
 * fleet), a local GitOps repo (a bare "origin" seeded with `examples/gitops-repo`), a SQLite
 * database, and the real reconcile pass, driven through the four steps of docs/design.md ("The
 * method"). Between passes a "person" merges gpuops's branches into `main` with real git and an
 * Argo CD-like sync applies `clusters/<cluster>/` to the simulated cluster, so every decision takes
 * effect:
 *
 * 1. pools labelled (one test node, the others unused; the traps stay out);
 * 2. benchmarks run as Jobs on the test node (simulated minutes in real seconds);
 * 3. algorithms placed by run time; empty pools get an unused node for their first replica;
 * 4. offered load rises → scale-up; rises further → the pool is full → an unused node moves into
 *    it; falls → scale-down; the node it moved, now empty, goes back to `unused` after
 *    `pools.returnAfterSeconds` (pools shrink as well as grow).
 *
 * `runDemo` returns the final state (typed), which `gpuops demo` prints and the end-to-end test
 * asserts. Events go to `onEvent` as they happen.
 */
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino, type Logger } from 'pino';
import type { BenchmarkProgress } from '../benchmark/index.js';
import { reconcileOnce, type PassResult, type ReconcileDeps } from '../pass/index.js';
import type { ScalingDecision } from '../scaling/index.js';
import { servingAlgorithm } from '../sim/index.js';
import { pullRequestRef } from '../change-sets/index.js';
import type { SpecError } from '../definitions/index.js';
import type { PullRequestRecord, Store } from '../store/index.js';
import { simBackend, type DemoBackend, type DemoView } from './backend.js';
import { startDemoCluster } from './cluster.js';
import { buildDemoDeps, type DemoGitLab } from './deps.js';
import { demoGitLabOf, mergeRequestsOf, startDemoGitLab, type DemoMergeRequest } from './gitlab.js';
import type { DemoListener } from './events.js';
import { createOrigin, listFiles, mergeBranch, syncCheckout } from './git-origin.js';
import { makeDirs } from '../disk/index.js';
import { GPUOPS, MANAGED_BY, NVIDIA } from '../util/index.js';
import { decisionLine, leftOutLines, replicas } from './lines.js';

/** The example GitOps repo the demo seeds its origin with. */
export const EXAMPLES_DIR = fileURLToPath(new URL('../../examples/gitops-repo/', import.meta.url));

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Folder for the repo, the database, the log and checkouts; must be empty or absent. */
  dir: string;
  /**
   * Simulated seconds per real second between waits; default 5. Waits (benchmarks, cooldowns)
   * move the simulated clock ahead instead, so the demo's run time hardly depends on it.
   */
  speed?: number;
  /** Cluster name, the folder under `clusters/`; default `demo`. */
  cluster?: string;
  /** Seed of the GitOps repo; default {@link EXAMPLES_DIR}. */
  examples?: string;
  /**
   * Where the pull requests go: `git` (default; branches recorded in the database) or `gitlab`
   * (merge requests on a local GitLab stand-in, `src/sim/forges/gitlab.ts`, merged by the demo's
   * reviewer as GitLab's Merge button would).
   */
  provider?: 'git' | 'gitlab';
  onEvent?: DemoListener;
  /**
   * Run on the real control plane (src/local-cluster; `gpuops demo --real`) instead of the
   * simulated cluster: `startReal` starts it and gives the backend and the pass's adapters.
   */
  real?: RealDemoStarter;
}

/** Starts the real-cluster backend of the demo (src/demo/real-backend.ts) for an origin repo. */
export type RealDemoStarter = (o: {
  cluster: string;
  origin: string;
  database: string;
  cacheDir: string;
  log: Logger;
  onBenchmarkProgress: (p: BenchmarkProgress) => void;
  /** The GitLab stand-in to open merge requests on (`--provider gitlab`); absent: branches. */
  gitlab?: DemoGitLab;
}) => Promise<{ backend: DemoBackend; deps: ReconcileDeps }>;

/** A node of the simulated cluster at the end. */
export interface DemoNode {
  name: string;
  /** `gpuops.dev/pool`, or null. */
  pool: string | null;
  gpuProduct: string | null;
  /** Allocatable whole GPUs. */
  gpus: number;
}

/** An algorithm at the end. */
export interface DemoAlgorithm {
  name: string;
  namespace: string;
  pool: string | null;
  /** Median benchmark run time (simulated seconds), or null. */
  benchmarkSeconds: number | null;
  /** `spec.replicas` of its Deployment at `main`, or null when it has none. */
  replicasInGit: number | null;
  /** Its pods Running and Ready in the simulated cluster, and the nodes they run on. */
  readyPods: number;
  podNodes: string[];
  /** Algorithm utilisation of the last pass (percent), or null without data. */
  utilization: number | null;
  /** The last scaling decision: action and machine reason. */
  lastDecision: string | null;
}

/** A Deployment in the simulated cluster at the end. */
export interface DemoDeployment {
  namespace: string;
  name: string;
  /** `spec.replicas`. */
  replicas: number;
  /** The pool its pods are pinned to (`nodeSelector`), or null. */
  pool: string | null;
}

/** A Service gpuops wrote (an algorithm whose container declares ports), in the simulated cluster at the end. */
export interface DemoService {
  namespace: string;
  name: string;
  /** `name port→targetPort`, e.g. `http 8000→http`. */
  ports: string[];
  /** Running and Ready pods its selector picks: its endpoints. */
  readyPods: number;
}

/** The demo's final state. */
export interface DemoResult {
  cluster: string;
  dir: string;
  /** The bare "origin" repository. */
  origin: string;
  /** `sqlite:<path>` of the database. */
  database: string;
  logFile: string;
  nodes: DemoNode[];
  /** Whether it ran on the real control plane (`gpuops demo --real`) rather than the simulator. */
  real: boolean;
  /** The node labelled `test`. */
  testNode: string | null;
  /** Nodes a scaling decision moved from `unused` into a pool, in order. */
  movedNodes: { node: string; pool: string; algorithm: string }[];
  /** Nodes the pools pull request returned to `unused` after they stayed empty (`ReturnedIdle`), in order. */
  returnedNodes: string[];
  algorithms: DemoAlgorithm[];
  /** Deployments gpuops manages in the simulated cluster at the end. */
  deployments: DemoDeployment[];
  /** Services gpuops manages in the simulated cluster at the end. */
  services: DemoService[];
  /** Every pull request (branch) gpuops recorded, newest first. */
  prs: PullRequestRecord[];
  /** `git` or `gitlab` (see {@link DemoOptions.provider}). */
  provider: 'git' | 'gitlab';
  /** With `gitlab`: the merge requests the stand-in holds, by iid; empty otherwise. */
  mergeRequests: DemoMergeRequest[];
  /** Errors of the specs that do not validate (reported, never placed). */
  specErrors: SpecError[];
  /** Files under `clusters/<cluster>/` at `main`. */
  mainFiles: string[];
  /** Reconcile passes run. */
  passes: number;
  /** What the last pass (run right after the last change) wrote: `<branch> <action>`; empty when nothing. */
  lastPassWrites: string[];
  /** Simulated time the demo took (seconds) and real time (milliseconds). */
  simulatedSeconds: number;
  elapsedMs: number;
}

/** Passes a step may take before the demo gives up (each pass is short; this is a safety net). */
const MAX_PASSES_PER_STEP = 8;
/**
 * Simulated seconds the clock moves ahead before each pass of the scaling step: the demo policy's
 * scale-up cooldown (30 s) passes in one interval, its scale-down cooldown and stabilisation
 * window (60 s, 120 s) in one and two.
 */
const SCALING_INTERVAL_SECONDS = 60;
/**
 * Simulated seconds the clock moves ahead before each pass of the benchmark step: passes never
 * wait for a benchmark Job, so the demo lets simulated time pass between them (the examples'
 * longest benchmark, 1500 s, ends within three intervals, while resnet50-infer does its three
 * runs one after the other).
 */
const BENCHMARK_INTERVAL_SECONDS = 520;
const KIND_ORDER: Record<string, number> = { pools: 0, placement: 1, scale: 2 };

function checkDir(dir: string): void {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new Error(`${dir}: the demo folder must be empty or absent (it holds a fresh repo and database)`);
  }
  makeDirs(dir);
}

/**
 * Runs the demo scenario (see the module comment) and returns the final state. Always stops the
 * simulated cluster and closes the database, also on failure.
 * @throws Error when `dir` is not empty, or a step does not reach its goal within
 *   {@link MAX_PASSES_PER_STEP} passes (the message names the step and the last decisions)
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const started = Date.now();
  const dir = path.resolve(options.dir);
  checkDir(dir);
  const cluster = options.cluster ?? 'demo';
  const emit = options.onEvent ?? (() => {});
  const origin = path.join(dir, 'origin.git');
  const dbFile = path.join(dir, 'gpuops.db');
  const logFile = path.join(dir, 'gpuops.log');
  const reviewer = path.join(dir, 'reviewer');
  const log: Logger = pino({ level: 'info' }, pino.destination({ dest: logFile, sync: true, mkdir: true }));

  await createOrigin(origin, options.examples ?? EXAMPLES_DIR);
  const provider = options.provider ?? 'git';
  const gitlab = provider === 'gitlab' ? await startDemoGitLab() : null;
  const forge = gitlab ? { gitlab: demoGitLabOf(gitlab) } : {};
  const shownCached = new Set<string>();
  const onBenchmarkProgress = (p: BenchmarkProgress) => {
    // A stored result is told once, not on every pass.
    if (p.phase === 'cached' && shownCached.has(p.message)) return;
    if (p.phase === 'cached') shownCached.add(p.message);
    emit(progressEvent(p));
  };
  const database = `sqlite:${dbFile}`;
  const cacheDir = path.join(dir, 'cache');
  let backend: DemoBackend | undefined;
  let deps: ReconcileDeps | undefined;
  try {
    if (options.real) {
      ({ backend, deps } = await options.real({
        cluster,
        origin,
        database,
        cacheDir,
        log,
        onBenchmarkProgress,
        ...forge,
      }));
    } else {
      const demo = await startDemoCluster({ speed: options.speed ?? 5 });
      backend = simBackend(demo);
      deps = await buildDemoDeps({
        cluster,
        demo,
        origin,
        database,
        cacheDir,
        log,
        onBenchmarkProgress,
        ...forge,
      });
    }
    const simStart = backend.now().getTime();
    const onMerged = gitlab ? (branch: string) => void gitlab.mergeByBranch(branch) : undefined;
    const run = new Scenario(deps, backend, { cluster, origin, reviewer, emit, onMerged });
    await run.all();
    const final = await run.finalState();
    return {
      cluster,
      dir,
      origin,
      database,
      logFile,
      ...final,
      real: options.real !== undefined,
      provider,
      mergeRequests: gitlab ? mergeRequestsOf(gitlab) : [],
      passes: run.passes,
      lastPassWrites: run.lastPassWrites,
      simulatedSeconds: Math.round((backend.now().getTime() - simStart) / 1000),
      elapsedMs: Date.now() - started,
    };
  } finally {
    await deps?.store.close();
    await backend?.close();
    await gitlab?.close();
    log.flush();
  }
}

/** `pull request`, or with a host's number `merge request !3 <url>` / `pull request #3 <url>`. */
function requestName(pr: { number: number | null; url: string | null } | null): string {
  if (!pr || pr.number === null) return 'pull request';
  const ref = pullRequestRef(pr);
  return `${ref.startsWith('!') ? 'merge request' : 'pull request'} ${ref}${pr.url ? ` ${pr.url}` : ''}`;
}

function progressEvent(p: BenchmarkProgress): Parameters<DemoListener>[0] {
  const what = `benchmark ${p.algorithm} run ${p.run}/${p.runs}`;
  const t = `${Math.round(p.elapsedSeconds)} s`;
  switch (p.phase) {
    case 'running':
      return { kind: 'progress', key: p.algorithm, text: `${what}: running for ${t} (simulated)` };
    case 'succeeded':
      return { kind: 'progress', key: p.algorithm, text: `${what}: ${p.message}`, done: true };
    case 'failed':
      return { kind: 'problem', text: `${what}: ${p.message}` };
    case 'cached':
      return { kind: 'line', text: `benchmark ${p.algorithm}: ${p.message}` };
    default:
      return { kind: 'progress', key: p.algorithm, text: `${what}: ${p.message}` };
  }
}

interface ScenarioContext {
  cluster: string;
  origin: string;
  reviewer: string;
  emit: DemoListener;
  /** Called after the reviewer merged a branch: the host marks its pull request merged. */
  onMerged?: (branch: string) => void;
}

/** The steps, with what each pass reported so far (to print only what changed). */
class Scenario {
  passes = 0;
  last: PassResult | null = null;
  lastPassWrites: string[] = [];
  private readonly store: Store;
  private readonly movedNodes: DemoResult['movedNodes'] = [];
  private readonly returnedNodes: string[] = [];
  private shownPlacements = new Map<string, string>();
  private shownDecisions = new Map<string, string>();
  private shownErrors = false;
  private shownLeftOut = '';
  private view: DemoView = { nodes: [], pods: [], deployments: [], services: [] };

  constructor(
    private readonly deps: ReconcileDeps,
    private readonly demo: DemoBackend,
    private readonly ctx: ScenarioContext,
  ) {
    this.store = deps.store;
  }

  private line(text: string): void {
    this.ctx.emit({ kind: 'line', text });
  }

  /** The whole method: set-up, then its four steps, each awaited until the cluster shows it done. */
  async all(): Promise<void> {
    const { emit } = this.ctx;
    emit({
      kind: 'step',
      step: 0,
      title: 'Setting up',
      detail: `${this.demo.describe()}; a GitOps repo with 3 example algorithms`,
    });

    emit({
      kind: 'step',
      step: 1,
      title: 'Sort GPU nodes into pools',
      detail: 'gpuops takes a snapshot, proposes pool labels as a pull request; it is merged and synced',
    });
    await this.until('the test node is labelled', () => this.nodesInPool('test').length > 0);

    emit({
      kind: 'step',
      step: 2,
      title: 'Benchmark every algorithm on the test node',
      detail:
        'each benchmark is a Kubernetes Job pinned to the test node; its measured run time decides the pool, proposed as a pull request',
    });
    await this.until(
      'every valid algorithm has a benchmark result',
      () => this.last !== null && this.last.plan.placements.every((p) => p.reason !== 'BenchmarkPending'),
      BENCHMARK_INTERVAL_SECONDS,
      false,
    );

    emit({
      kind: 'step',
      step: 3,
      title: 'Place algorithms by run time',
      detail:
        'the placement pull requests are merged and synced; an empty pool gets an unused node for its first replica',
    });
    await this.until('every placed algorithm runs', () => {
      const placed = this.last?.plan.placements.filter((p) => p.pool !== null) ?? [];
      return placed.length > 0 && placed.every((p) => this.servingPods(p.algorithm).length >= 1);
    });

    const svc = 'resnet50-infer';
    await this.scaleUpAndDown(svc);
    await this.returnEmptiedNode(svc);
    await this.lastPass();
  }

  /** Step 4: `svc` scales up past its pool (an unused node moves in), then back down to one replica. */
  private async scaleUpAndDown(svc: string): Promise<void> {
    const { emit } = this.ctx;
    emit({
      kind: 'step',
      step: 4,
      title: 'Scale by GPU utilisation',
      detail: 'the demo raises and lowers the offered load; gpuops reads dcgm-exporter pages and decides',
    });
    this.demo.load.setLoad('bert-train', 260);
    // Counted before the first scale-up: its pool's first node is the smallest T4 that fits one
    // replica (the product first, then the smallest node), so the first scale-up already moves a
    // node in.
    const moved = this.movedNodes.length;
    this.setLoad(svc, 90, 'its one replica (1 GPU) is 90 % busy, above the max of 80 %');
    await this.until(`${svc} scales up`, () => this.servingPods(svc).length >= 2, SCALING_INTERVAL_SECONDS);
    this.setLoad(svc, 380, 'more than its pool can serve: it grows until the pool is full');
    await this.until(
      `an unused node moves into the pool of ${svc}`,
      () => this.movedNodes.length > moved && this.servingPods(svc).length >= 5,
      SCALING_INTERVAL_SECONDS,
    );
    const n = this.servingPods(svc).length;
    this.setLoad(
      svc,
      20,
      `${replicas(n)} ${n === 1 ? 'is' : 'are'} ${Math.round(20 / n)} % busy, below the min of 30 %`,
    );
    // Down to its one replica: the node moved in for the peak is then empty.
    await this.until(
      `${svc} scales down`,
      () => this.servingPods(svc).length === 1,
      SCALING_INTERVAL_SECONDS,
    );
  }

  /** The node moved in for the peak of `svc`, empty after the scale-down, goes back to unused. */
  private async returnEmptiedNode(svc: string): Promise<void> {
    // Pools shrink: a node moved in for the peak holds no pod now; after returnAfterSeconds it goes
    // back. Which one empties is the ReplicaSet controller's choice: kube-controller-manager deletes
    // first from the node that holds most replicas ("doubled up"), the simulator the newest pod.
    const emptied = this.emptiedNode(svc);
    const m = this.servingPods(svc).length;
    this.setLoad(
      svc,
      50 * m,
      `${replicas(m)} ${m === 1 ? 'is' : 'are'} 50 % busy, inside 30–80 %: no more scaling`,
    );
    await this.cycle(true);
    const wait = this.deps.defaults.spec.pools.returnAfterSeconds;
    this.line(`${wait} simulated seconds later, ${emptied} has held no GPU pod since the scale-down`);
    await this.demo.advance(wait);
    await this.until(`${emptied} goes back to unused`, () => this.nodesInPool('unused').includes(emptied));
  }

  /** One more pass: level-triggered, it should find nothing to write; what it wrote is kept. */
  private async lastPass(): Promise<void> {
    // One more pass right away: it sees the result, and (level-triggered) writes nothing new.
    await this.cycle(false);
    const writes =
      this.last?.writeBack.filter((w) => w.action !== 'unchanged' && w.action !== 'in-base') ?? [];
    this.lastPassWrites = writes.map((w) => `${w.branch} ${w.action}`);
    this.line(
      writes.length === 0
        ? 'a last pass reads the result and has nothing to change: no commit, no pull request'
        : `a last pass still wrote: ${writes.map((w) => `${w.branch} ${w.action}`).join(', ')}`,
    );
  }

  /**
   * The node moved into the pool of `algorithm` (last moved first) that holds none of its pods now.
   * @throws Error when every such node still holds one
   */
  private emptiedNode(algorithm: string): string {
    const busy = new Set(this.servingPods(algorithm).map((p) => p.node));
    const empty = this.movedNodes.filter((m) => m.algorithm === algorithm && !busy.has(m.node));
    if (empty.length === 0)
      throw new Error(
        `demo: after the scale-down every node moved into the pool of ${algorithm} holds a replica`,
      );
    return empty.at(-1)!.node;
  }

  private setLoad(algorithm: string, load: number, why: string): void {
    this.demo.load.setLoad(algorithm, load);
    this.line(`offered load of ${algorithm} set to ${load} GPU-percent: ${why}`);
  }

  /** Runs cycles (pass → merge → sync) until `done`, advancing simulated time by `advance` s before each. */
  private async until(what: string, done: () => boolean, advance = 0, merge = true): Promise<void> {
    for (let i = 0; i < MAX_PASSES_PER_STEP; i++) {
      if (advance > 0) await this.demo.advance(advance);
      await this.cycle(merge);
      if (done()) return;
    }
    const decisions = (this.last?.plan.scaling ?? []).map((d) => `${d.reason}: ${d.message}`).join('; ');
    throw new Error(
      `demo: ${what} did not happen within ${MAX_PASSES_PER_STEP} passes (last decisions: ${decisions || 'none'})`,
    );
  }

  /** One reconcile pass, then a person merges the open pull requests and Argo CD syncs. */
  private async cycle(merge: boolean): Promise<void> {
    this.passes++;
    const result = await reconcileOnce(this.deps);
    this.last = result;
    this.report(result);
    if (merge) {
      const merged = await this.mergeOpen();
      if (merged > 0) await this.sync();
      await this.demo.settle();
    }
    this.view = await this.demo.view();
  }

  private report(r: PassResult): void {
    const { plan } = r;
    if (!this.shownErrors && plan.errors.length > 0) {
      this.shownErrors = true;
      for (const e of plan.errors) {
        this.ctx.emit({
          kind: 'problem',
          text: `${e.file}:${e.line}:${e.column} ${e.field}: ${e.message} (a mistake on purpose: reported, never benchmarked or placed)`,
        });
      }
    }
    const changes = plan.pools.filter((p) => p.from !== p.to);
    if (changes.length > 0) {
      const byPool = new Map<string, string[]>();
      for (const p of changes.filter((x) => x.to !== null))
        byPool.set(p.to!, [...(byPool.get(p.to!) ?? []), p.node]);
      for (const [pool, nodes] of byPool) this.line(`pool ${pool}: ${nodes.join(', ')}`);
      for (const p of changes.filter((x) => x.reason === 'ReturnedIdle')) {
        this.line(`returned: ${p.node} (${p.reason}: ${p.message})`);
        if (!this.returnedNodes.includes(p.node)) this.returnedNodes.push(p.node);
      }
      const left = leftOutLines(
        plan.pools.filter((x) => x.to === null && x.reason !== 'NoGPU'),
        this.shownLeftOut,
      );
      this.shownLeftOut = left.key;
      for (const text of left.lines) this.line(text);
    }
    for (const p of plan.placements) {
      const key = `${p.pool}/${p.reason}`;
      if (this.shownPlacements.get(p.algorithm) === key || p.reason === 'BenchmarkPending') continue;
      this.shownPlacements.set(p.algorithm, key);
      this.line(`placement ${p.algorithm} → ${p.pool ?? 'none'} (${p.reason}: ${p.message})`);
    }
    for (const d of plan.scaling)
      this.reportDecision(d, plan.placements.find((p) => p.algorithm === d.algorithm)?.pool ?? null);
    for (const w of r.writeBack) {
      if (w.action === 'created' || w.action === 'updated')
        this.line(
          `${requestName(w.pullRequest)} ${w.action === 'created' ? 'opened' : 'updated'}: ${w.branch} (${describeFiles(w.files, this.ctx.cluster)})`,
        );
      else if (w.action === 'failed')
        this.ctx.emit({ kind: 'problem', text: `write-back ${w.branch}: ${w.message}` });
    }
  }

  private reportDecision(d: ScalingDecision, pool: string | null): void {
    const key = `${d.action}/${d.reason}/${d.replicas.from}/${d.replicas.to}`;
    if (this.shownDecisions.get(d.algorithm) === key) return;
    this.shownDecisions.set(d.algorithm, key);
    if (d.reason === 'NotPlaced' || d.reason === 'PlacementPending') return; // the placement line says it
    this.line(decisionLine(d, pool));
  }

  /** Merges every open gpuops branch into main, pools first; a conflict leaves it for gpuops to rebuild. */
  private async mergeOpen(): Promise<number> {
    const open = (await this.store.pullRequests(this.ctx.cluster))
      .filter((p) => p.state === 'open')
      .sort(
        (a, b) => (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || (a.branch < b.branch ? -1 : 1),
      );
    let merged = 0;
    for (const pr of open) {
      const m = await mergeBranch(this.ctx.origin, this.ctx.reviewer, pr.branch);
      if (!m.merged) {
        this.line(`not merged: ${pr.branch}: ${m.message}; gpuops rebuilds it on main next pass`);
        continue;
      }
      merged++;
      this.ctx.onMerged?.(pr.branch);
      const now = this.deps.clock.now().toISOString();
      await this.store.upsertPullRequest({ ...pr, state: 'merged', updatedAt: now });
      const ref = pr.number === null ? '' : ` (${pullRequestRef(pr)})`;
      this.line(`merged ${pr.branch}${ref} into main (${m.commit.slice(0, 7)}): ${pr.title}`);
      if (pr.kind === 'scale') this.noteMovedNodes(pr.subject);
    }
    return merged;
  }

  /** Records the nodes the last decision for `algorithm` moved (the merged scale PR carries them). */
  private noteMovedNodes(algorithm: string): void {
    const d = this.last?.plan.scaling.find((x) => x.algorithm === algorithm);
    const pool = this.last?.plan.placements.find((p) => p.algorithm === algorithm)?.pool;
    if (!d || !pool) return;
    for (const node of d.nodes) {
      if (!this.movedNodes.some((m) => m.node === node)) this.movedNodes.push({ node, pool, algorithm });
    }
  }

  /** Applies `clusters/<cluster>/` at main, as the GitOps agent of the backend does. */
  private async sync(): Promise<void> {
    await syncCheckout(this.ctx.origin, this.ctx.reviewer);
    const folder = path.join(this.ctx.reviewer, 'clusters', this.ctx.cluster);
    if (!existsSync(folder)) return;
    const s = await this.demo.sync(folder);
    this.line(s.line);
    for (const text of s.problems) this.ctx.emit({ kind: 'problem', text });
  }

  nodesInPool(pool: string): string[] {
    return this.view.nodes
      .filter((n) => n.metadata.labels?.[GPUOPS.pool] === pool)
      .map((n) => n.metadata.name);
  }

  servingPods(algorithm: string): { name: string; node: string }[] {
    return this.view.pods
      .filter((p) => servingAlgorithm(p) === algorithm)
      .map((p) => ({ name: p.metadata.name, node: String(p.spec?.nodeName ?? '') }));
  }

  /** Reads the final state from the simulated cluster, the database and the repo. */
  async finalState(): Promise<
    Pick<
      DemoResult,
      | 'nodes'
      | 'testNode'
      | 'movedNodes'
      | 'returnedNodes'
      | 'algorithms'
      | 'deployments'
      | 'services'
      | 'prs'
      | 'specErrors'
      | 'mainFiles'
    >
  > {
    await syncCheckout(this.ctx.origin, this.ctx.reviewer);
    const prefix = `clusters/${this.ctx.cluster}/`;
    const mainFiles = await listFiles(this.ctx.reviewer, prefix);
    const nodes: DemoNode[] = this.view.nodes.map((n) => ({
      name: n.metadata.name,
      pool: n.metadata.labels?.[GPUOPS.pool] ?? null,
      gpuProduct: n.metadata.labels?.[NVIDIA.productLabel] ?? null,
      gpus: Number(n.status?.allocatable?.[NVIDIA.resource] ?? 0),
    }));
    const plan = this.last?.plan;
    const algorithms: DemoAlgorithm[] = (plan?.placements ?? []).map((p) => {
      const deployment = this.view.deployments.find(
        (d) => d.metadata.labels?.[GPUOPS.algorithm] === p.algorithm,
      );
      const pods = this.servingPods(p.algorithm);
      const d = plan?.scaling.find((x) => x.algorithm === p.algorithm);
      return {
        name: p.algorithm,
        namespace: deployment?.metadata.namespace ?? '',
        pool: p.pool,
        benchmarkSeconds: p.runTimeSeconds,
        replicasInGit: d ? d.replicas.to : null,
        readyPods: pods.length,
        podNodes: [...new Set(pods.map((x) => x.node))].sort(),
        utilization: d?.utilization ?? null,
        lastDecision: d ? `${d.action} ${d.reason}` : null,
      };
    });
    const deployments: DemoDeployment[] = this.view.deployments
      .filter((d) => d.metadata.labels?.[MANAGED_BY.key] === MANAGED_BY.value)
      .map((d) => ({
        namespace: d.metadata.namespace ?? '',
        name: d.metadata.name,
        replicas: Number(d.spec?.replicas ?? 0),
        pool: (d.spec?.template?.spec?.nodeSelector?.[GPUOPS.pool] as string | undefined) ?? null,
      }));
    const services: DemoService[] = this.view.services
      .filter((x) => x.metadata.labels?.[MANAGED_BY.key] === MANAGED_BY.value)
      .map((x) => ({
        namespace: x.metadata.namespace ?? '',
        name: x.metadata.name,
        ports: ((x.spec?.ports ?? []) as { name?: string; port: number; targetPort?: unknown }[]).map((p) =>
          `${p.name ?? ''} ${p.port}→${String(p.targetPort ?? p.port)}`.trim(),
        ),
        readyPods: endpointCount(x, this.view.pods),
      }));
    return {
      nodes,
      deployments,
      services,
      testNode: this.nodesInPool('test')[0] ?? null,
      movedNodes: this.movedNodes,
      returnedNodes: this.returnedNodes,
      algorithms,
      prs: await this.store.pullRequests(this.ctx.cluster),
      specErrors: plan?.errors ?? [],
      mainFiles,
    };
  }
}

/**
 * The files of a pull request: up to three by their path under `clusters/<cluster>/`
 * (`algorithms/resnet50-infer/deployment.yaml, algorithms/resnet50-infer/service.yaml`), more
 * by their count only.
 */
function describeFiles(files: readonly { path: string }[], cluster: string): string {
  const prefix = `clusters/${cluster}/`;
  if (files.length === 0 || files.length > 3) return `${files.length} file(s)`;
  return files.map((f) => (f.path.startsWith(prefix) ? f.path.slice(prefix.length) : f.path)).join(', ');
}

/**
 * The endpoints a Service would have, as the EndpointSlice controller counts them: the pods of
 * its namespace whose labels hold every key of `spec.selector`, Running, Ready and not deleting.
 */
function endpointCount(
  svc: { metadata: { namespace?: string }; spec?: Record<string, unknown> },
  pods: readonly {
    metadata: { namespace?: string; labels?: Record<string, string>; deletionTimestamp?: string };
    status?: Record<string, unknown>;
  }[],
): number {
  const selector = Object.entries((svc.spec?.selector ?? {}) as Record<string, string>);
  if (selector.length === 0) return 0;
  return pods.filter((p) => {
    if (p.metadata.namespace !== svc.metadata.namespace || p.metadata.deletionTimestamp) return false;
    if (!selector.every(([k, v]) => p.metadata.labels?.[k] === v)) return false;
    const conditions = (p.status?.conditions ?? []) as { type: string; status: string }[];
    return p.status?.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
  }).length;
}
