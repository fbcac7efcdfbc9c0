/**
 * The clock of one simulated engine (see `sim-engine.ts`): the warm-up, where every pull request
 * is merged at once, then the trace in ticks of the HPA's sync period (15 s) with a reconcile pass
 * every `passIntervalSeconds`, pull requests merged `mergeDelaySeconds` after they were opened and
 * applied as Argo CD would; after every tick the allocation and the node pool labels are read from
 * the simulator's store.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { reconcileOnce, type ReconcileDeps } from '../pass/index.js';
import type { DemoCluster } from '../demo/index.js';
import { mergeBranch, syncCheckout } from '../demo/index.js';
import { applyGitOpsFolder } from '../gitops-apply/index.js';
import { controllerOf, holdsResources, podGpus, servingAlgorithm } from '../sim/index.js';
import type { SimCluster, KubeObject, Resource } from '../sim/index.js';
import type { AllocationPoint, ReplayEvent } from './figures.js';
import type { PolicyEngine } from './replay-policy.js';
import type { ReplaySettings } from './replay-settings.js';
import { REPLAY_ALGORITHM, REPLAY_NAMESPACE } from './sim-repo.js';
import { instantSeconds, offeredLoad, type Trace } from './trace.js';
import { GPUOPS } from '../util/index.js';

/** The cluster the replay's controller writes for (its folder in the repo: `clusters/replay/`). */
export const REPLAY_CLUSTER = 'replay';
const POOL_LABEL = GPUOPS.pool;
/** The HPA's sync period and the replay's tick (seconds). */
export const HPA_SYNC_SECONDS = 15;

/** What one run of the clock gave (see `SimEngineResult`, less the CPU time). */
export interface SimRunResult {
  engine: PolicyEngine;
  points: AllocationPoint[];
  events: ReplayEvent[];
  nodeRelabels: number;
  passes: number;
  /** Real milliseconds of the reconcile passes (sum) and of the whole engine. */
  passMs: number;
  wallSeconds: number;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The stored objects of `resource` (in `namespace`), read-only: without copying when the store
 * can (`scan`; the replay reads them after every tick), else a copy (`list`).
 */
function readObjects(sim: SimCluster, resource: Resource, namespace?: string): readonly KubeObject[] {
  return sim.store.scan?.(resource, namespace) ?? sim.store.list(resource, namespace);
}

/** Reads the allocation of the replayed algorithm from the simulator's store. */
function allocation(sim: SimCluster): Omit<AllocationPoint, 't'> {
  let allocated = 0;
  let ready = 0;
  for (const p of readObjects(sim, 'pods', REPLAY_NAMESPACE)) {
    if (p.metadata.labels?.[GPUOPS.algorithm] !== REPLAY_ALGORITHM) continue;
    if (controllerOf(p)?.kind === 'Job') continue;
    if (holdsResources(p)) allocated += podGpus(p);
    if (servingAlgorithm(p) === REPLAY_ALGORITHM) ready += podGpus(p);
  }
  const d = readObjects(sim, 'deployments', REPLAY_NAMESPACE).find(
    (x) => x.metadata.name === REPLAY_ALGORITHM,
  );
  const replicas = typeof d?.spec?.replicas === 'number' ? d.spec.replicas : 0;
  return { allocated, ready, replicas };
}

function poolLabels(sim: SimCluster): Map<string, string> {
  return new Map(
    readObjects(sim, 'nodes').map((n) => [n.metadata.name, n.metadata.labels?.[POOL_LABEL] ?? '']),
  );
}

/**
 * One engine's run over the simulated cluster (see the module comment): {@link Run.all} replays
 * the warm-up and the whole trace and returns the allocation points, events and figures.
 */
export class Run {
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
    private readonly engine: PolicyEngine,
    private readonly s: ReplaySettings,
    private readonly deps: ReconcileDeps,
    private readonly cluster: DemoCluster,
    private readonly origin: string,
    private readonly reviewer: string,
    private readonly started: number,
    /** Called after each step with the share of the trace replayed (0..1). */
    private readonly onProgress?: (fraction: number) => void,
    /** Awaited before each pass (the watch cache catching up with the simulator, `cache-barrier.ts`). */
    private readonly beforePass?: () => Promise<void>,
  ) {
    this.labels = poolLabels(cluster.sim);
  }

  private get nowMs(): number {
    return this.cluster.sim.clock.now().getTime();
  }

  async all(): Promise<SimRunResult> {
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
    await this.beforePass?.();
    const t = Date.now();
    await reconcileOnce(this.deps);
    this.passMs += Date.now() - t;
    this.passes++;
    await tick();
  }

  /** Merges the open pull requests opened at least `delaySeconds` ago, then syncs as Argo CD would. */
  private async merge(delaySeconds: number): Promise<void> {
    const store = this.deps.store;
    const open = (await store.pullRequests(REPLAY_CLUSTER)).filter((p) => p.state === 'open');
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
    const folder = path.join(this.reviewer, 'clusters', REPLAY_CLUSTER);
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
