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
 * are read from the simulator's store.
 */
import { writeFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { reconcileOnce, type ReconcileDeps } from '../controller/reconcile.js';
import type { DemoCluster } from '../demo/cluster.js';
import { buildDemoDeps } from '../demo/deps.js';
import { createOrigin, mergeBranch, syncCheckout } from '../demo/git-origin.js';
import { applyGitOpsFolder } from '../gitops-apply/index.js';
import { defaultControllers } from '../sim/controllers/index.js';
import { nodeGpuCount } from '../sim/controllers/kubelet.js';
import { controllerOf, holdsResources, podGpus } from '../sim/controllers/pods.js';
import { dcgmRoute } from '../sim/dcgm/route.js';
import { startSimCluster, type SimCluster } from '../sim/index.js';
import { LoadModel, servingAlgorithm } from '../sim/load-model.js';
import type { AllocationPoint, ReplayEvent } from './figures.js';
import { replayFleet } from './fleet.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';
import { makeDirs } from '../util/make-dirs.js';
import { replayPolicyText, userPolicyText } from './replay-policy.js';
import { GPUOPS } from '../util/vocabulary.js';

/** The algorithm the replay scales. */
export const REPLAY_ALGORITHM = 'sd-serve';
const NAMESPACE = 'algorithms';
const CLUSTER = 'replay';
const POOL_LABEL = GPUOPS.pool;

/** The modelled delays and thresholds; each default is documented in the README's replay section. */
export interface ReplaySettings {
  /** Pod start-up until Ready: image pull and model load (seconds); default 60. */
  startupSeconds: number;
  /** dcgm-exporter / Prometheus sample delay (seconds); default 15. */
  sampleDelaySeconds: number;
  /** Time between two reconcile passes (seconds); default 30. */
  passIntervalSeconds: number;
  /** PR mode: time until a person merges a pull request (seconds); default 600. */
  mergeDelaySeconds: number;
  /** Utilisation thresholds of the algorithm (percent); default 30 and 80 (the policy's). */
  min: number;
  max: number;
  /** The HPA's target utilisation (percent); default the middle of min and max. */
  hpaTarget: number;
  /** Simulated time before the trace starts, where pull requests merge at once (seconds); default 900. */
  warmupSeconds: number;
  /** GPUs per node of the fleet; default 8. */
  gpusPerNode: number;
  /** β of patch mode's headroom sizing (`scaling.headroomFactor`), fixed before the run; default 1. */
  headroomFactor: number;
  /** The HPA targets (percent) of the frontier; default 40, 45, …, 75. */
  hpaTargets: number[];
  /** The headroom factors of gpuops's frontier; default 0.5 … 2.5. */
  headroomFactors: number[];
  /**
   * The scale-down margins (`scaling.headroomDownMargin`, units of √load) the first-half choice
   * tries with every factor; default 0, 0.25, 0.5, 1, 2. Empty: only the policy's own margin.
   */
  headroomDownMargins: number[];
  /**
   * Text of a Policy document to replay with (`--policy FILE`): committed as `policies/user.yaml`,
   * after the replay's own `policies/replay.yaml`, so its fields win (mode and engine excepted:
   * each simulated engine sets them). Absent: the shipped defaults and `replay.yaml` (`replay-policy.ts`).
   */
  policyText?: string;
  /**
   * The model's tick (seconds); absent: the largest of at most 15 s that represents the delays
   * (`loopTick`). The simulated engines keep their 15 s tick and periodic passes.
   */
  tickSeconds?: number;
  /** gpuops passes on the crossing too (`--event-driven`, the model's trigger); absent: periodic passes only. */
  eventDriven?: boolean;
  /** The replay's own loop draws each new pod's start-up (seconds) from these (`--startup-latency-file`). */
  startupLatencies?: number[];
  /** The loop beside it that draws start-ups on pre-pulled images draws from these (`--loops-latency-file`). */
  loopsLatencies?: number[];
  /** Run the fast loop (and, with latencies, the drawn loop) beside the replay's own; default true. */
  loops?: boolean;
  /**
   * The fleet's shared warm standby: a claim's wake or switch (seconds, claimed → Ready in the
   * service; `--claim-seconds`); absent: `CLAIM_SECONDS` of `standby-run.ts`.
   */
  claimSeconds?: number;
}

/** Defaults of {@link ReplaySettings}. */
export const DEFAULT_REPLAY_SETTINGS: ReplaySettings = {
  startupSeconds: 60,
  sampleDelaySeconds: 15,
  passIntervalSeconds: 30,
  mergeDelaySeconds: 600,
  min: 30,
  max: 80,
  hpaTarget: 55,
  warmupSeconds: 900,
  gpusPerNode: 8,
  headroomFactor: 1,
  hpaTargets: [40, 45, 50, 55, 60, 65, 70, 75],
  headroomFactors: [0.5, 0.75, 1, 1.25, 1.5, 2, 2.5],
  headroomDownMargins: [0, 0.25, 0.5, 1, 2],
};

/** The simulated engines. */
export type SimEngine = 'hpa' | 'gpuops-patch' | 'gpuops-pr';

/** What one simulated engine did over the trace. */
export interface SimEngineResult {
  engine: SimEngine;
  points: AllocationPoint[];
  events: ReplayEvent[];
  nodeRelabels: number;
  passes: number;
  /** Real milliseconds of the reconcile passes (sum) and of the whole engine. */
  passMs: number;
  wallSeconds: number;
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

const HPA_SYNC_SECONDS = 15;

/**
 * Writes the repository a simulated engine starts from into `dir`: the replayed service's spec
 * (`algorithms/sd-serve.yaml`, 1 GPU per pod, `1..maxReplicas`) and the replay's policy
 * (`policies/replay.yaml`, and the user's `--policy` as `user.yaml`).
 */
export function seedRepo(dir: string, engine: SimEngine, s: ReplaySettings, maxReplicas: number): void {
  makeDirs(path.join(dir, 'algorithms'));
  makeDirs(path.join(dir, 'policies'));
  writeFileSync(
    path.join(dir, 'algorithms', `${REPLAY_ALGORITHM}.yaml`),
    [
      '# The replayed service: one GPU per pod, placed on the short-task pool (no benchmark).',
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata:',
      `  name: ${REPLAY_ALGORITHM}`,
      `  namespace: ${NAMESPACE}`,
      'spec:',
      '  image: registry.example.com/genai/stable-diffusion-serve:1.0',
      "  resources: { gpus: 1, cpu: '8', memory: 64Gi }",
      "  benchmark: { args: ['--bench'] }",
      '  scaling:',
      '    minReplicas: 1',
      `    maxReplicas: ${maxReplicas}`,
      `    utilization: { min: ${s.min}, max: ${s.max} }`,
      '  placement: { pool: short-task }',
      '',
    ].join('\n'),
  );
  writeFileSync(path.join(dir, 'policies', 'replay.yaml'), replayPolicyText(engine, s, maxReplicas));
  const user = userPolicyText(engine, s);
  if (user !== undefined) writeFileSync(path.join(dir, 'policies', 'user.yaml'), user);
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Reads the allocation of the replayed algorithm from the simulator's store. */
function allocation(sim: SimCluster): Omit<AllocationPoint, 't'> {
  let allocated = 0;
  let ready = 0;
  for (const p of sim.store.list('pods', NAMESPACE)) {
    if (p.metadata.labels?.[GPUOPS.algorithm] !== REPLAY_ALGORITHM) continue;
    if (controllerOf(p)?.kind === 'Job') continue;
    if (holdsResources(p)) allocated += podGpus(p);
    if (servingAlgorithm(p) === REPLAY_ALGORITHM) ready += podGpus(p);
  }
  const d = sim.store.get('deployments', NAMESPACE, REPLAY_ALGORITHM);
  const replicas = typeof d?.spec?.replicas === 'number' ? d.spec.replicas : 0;
  return { allocated, ready, replicas };
}

function poolLabels(sim: SimCluster): Map<string, string> {
  return new Map(
    sim.store.list('nodes').map((n) => [n.metadata.name, n.metadata.labels?.[POOL_LABEL] ?? '']),
  );
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

  const load = new LoadModel();
  const sim: SimCluster = await startSimCluster({
    nodes,
    controllers: defaultControllers({
      loadModel: load,
      startupSeconds: s.startupSeconds,
      hpaSyncSeconds: HPA_SYNC_SECONDS,
    }),
    routes: [dcgmRoute(() => sim, load)],
    // Time moves only when the replay advances it (a tiny real-time drift aside).
    speed: 1e-6,
    tickMs: 3_600_000,
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.kubeconfig());
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
  let deps: ReconcileDeps | undefined;
  try {
    deps = await buildDemoDeps({
      cluster: CLUSTER,
      demo: cluster,
      origin,
      database: `sqlite:${path.join(dir, 'gpuops.db')}`,
      cacheDir: path.join(dir, 'cache'),
      log: pino({ level: 'silent' }),
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
    ).all();
    return { ...r, cpuSeconds: processCpuSeconds() - cpuStart };
  } finally {
    await deps?.store.close();
    await cluster.close();
  }
}

class Run {
  private passes = 0;
  private passMs = 0;
  private readonly points: AllocationPoint[] = [];
  private readonly events: ReplayEvent[] = [];
  private relabels = 0;
  private labels: Map<string, string>;
  private readonly openSince = new Map<string, number>();
  private traceStartMs = 0;

  constructor(
    private readonly trace: Trace,
    private readonly engine: SimEngine,
    private readonly s: ReplaySettings,
    private readonly deps: ReconcileDeps,
    private readonly cluster: DemoCluster,
    private readonly origin: string,
    private readonly reviewer: string,
    private readonly started: number,
    /** Called after each step with the share of the trace replayed (0..1). */
    private readonly onProgress?: (fraction: number) => void,
  ) {
    this.labels = poolLabels(cluster.sim);
  }

  private get nowMs(): number {
    return this.cluster.sim.clock.now().getTime();
  }

  async all(): Promise<Omit<SimEngineResult, 'cpuSeconds'>> {
    const { sim, load } = this.cluster;
    const first = this.trace.instants[0]!;
    load.setLoad(REPLAY_ALGORITHM, offeredLoad(first));
    // Warm-up: pools, placement, first replicas; pull requests merge at once.
    const warmupEnd = this.nowMs + this.s.warmupSeconds * 1000;
    while (this.nowMs < warmupEnd) {
      sim.clock.advance(this.s.passIntervalSeconds);
      await this.pass();
      await this.merge(0);
    }
    if (allocation(sim).ready === 0)
      throw new Error(`replay ${this.engine}: ${REPLAY_ALGORITHM} has no Ready pod after the warm-up`);
    this.traceStartMs = this.nowMs;
    this.labels = poolLabels(sim);
    const t0 = first.t;
    load.setSchedule(
      REPLAY_ALGORITHM,
      this.trace.instants.map((x) => ({
        at: new Date(this.traceStartMs + (x.t - t0 + this.s.sampleDelaySeconds) * 1000),
        load: offeredLoad(x),
      })),
    );
    const last = this.trace.instants.length - 1;
    const endS = this.trace.instants[last]!.t - t0 + instantSeconds(this.trace, last);
    this.record(0);
    let nextPass = this.s.passIntervalSeconds;
    let nextTick = HPA_SYNC_SECONDS;
    let t = 0;
    while (t < endS) {
      const to = Math.min(nextPass, nextTick);
      sim.clock.advance(to - t);
      t = to;
      if (t >= nextTick) nextTick += HPA_SYNC_SECONDS;
      if (t >= nextPass) {
        nextPass += this.s.passIntervalSeconds;
        await this.pass();
      }
      if (this.engine === 'gpuops-pr' || this.openSince.size > 0) await this.merge(this.s.mergeDelaySeconds);
      await tick();
      await tick();
      this.record(t);
      this.onProgress?.(t / endS);
    }
    return {
      engine: this.engine,
      points: this.points,
      events: this.events,
      nodeRelabels: this.relabels,
      passes: this.passes,
      passMs: this.passMs,
      wallSeconds: (Date.now() - this.started) / 1000,
    };
  }

  private async pass(): Promise<void> {
    const t = Date.now();
    await reconcileOnce(this.deps);
    this.passMs += Date.now() - t;
    this.passes++;
    await tick();
  }

  /** Merges the open pull requests opened at least `delaySeconds` ago, then syncs as Argo CD would. */
  private async merge(delaySeconds: number): Promise<void> {
    const store = this.deps.store;
    const open = (await store.pullRequests(CLUSTER)).filter((p) => p.state === 'open');
    const now = this.nowMs;
    const openNames = new Set(open.map((p) => p.branch));
    for (const b of [...this.openSince.keys()]) if (!openNames.has(b)) this.openSince.delete(b);
    const due = [];
    for (const pr of open) {
      const since = this.openSince.get(pr.branch) ?? now;
      this.openSince.set(pr.branch, since);
      if (now - since >= delaySeconds * 1000) due.push(pr);
    }
    // Pools first, as a person merging the node moves before the workloads would.
    due.sort(
      (a, b) => (a.kind === 'pools' ? 0 : 1) - (b.kind === 'pools' ? 0 : 1) || (a.branch < b.branch ? -1 : 1),
    );
    let merged = 0;
    for (const pr of due) {
      const m = await mergeBranch(this.origin, this.reviewer, pr.branch);
      if (!m.merged) continue;
      merged++;
      this.openSince.delete(pr.branch);
      await store.upsertPullRequest({ ...pr, state: 'merged', updatedAt: new Date(now).toISOString() });
    }
    if (merged === 0) return;
    await syncCheckout(this.origin, this.reviewer);
    const folder = path.join(this.reviewer, 'clusters', CLUSTER);
    if (existsSync(folder))
      await applyGitOpsFolder(this.cluster.kubeConfig, folder, { fieldManager: 'argocd-controller' });
    await tick();
  }

  private record(t: number): void {
    const { sim } = this.cluster;
    const a = allocation(sim);
    const prev = this.points[this.points.length - 1];
    if (prev && prev.replicas !== a.replicas)
      this.events.push({ t, kind: 'scale', text: `${prev.replicas} → ${a.replicas}` });
    const labels = poolLabels(sim);
    for (const [node, pool] of labels) {
      const before = this.labels.get(node) ?? '';
      if (before === pool) continue;
      this.relabels++;
      this.events.push({ t, kind: 'relabel', text: `${node}: ${before || 'none'} → ${pool || 'none'}` });
    }
    this.labels = labels;
    if (prev && prev.allocated === a.allocated && prev.ready === a.ready && prev.replicas === a.replicas)
      return;
    this.points.push({ t, ...a });
  }
}

/** Debug aid: logs the real time of every adapter call slower than 20 ms. */
function profiled(deps: ReconcileDeps): ReconcileDeps {
  const wrap = <T extends object>(name: string, o: T): T =>
    new Proxy(o, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          const t = Date.now();
          const r = (v as (...a: unknown[]) => unknown).apply(target, args);
          if (r instanceof Promise)
            return r.finally(() => {
              const ms = Date.now() - t;
              if (ms > 20) process.stderr.write(`${name}.${String(prop)} ${ms} ms\n`);
            });
          return r;
        };
      },
    });
  return {
    ...deps,
    kube: wrap('kube', deps.kube),
    workingCopy: wrap('wc', deps.workingCopy),
    store: wrap('store', deps.store),
    host: wrap('host', deps.host),
    metrics: deps.metrics && wrap('metrics', deps.metrics),
    patcher: wrap('patcher', deps.patcher),
  };
}
