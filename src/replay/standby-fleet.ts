/**
 * A fleet of services sharing one pool's warm standby set (pure): gpuops on the fleet of nodes of
 * `fleet-nodes.ts`, but the pool's shared spare is held as standby pods that can become any of
 * the services (`scaling/rules/claim.ts`), not as extra replicas of each Deployment.
 * - Every pass decides every service with the real `decideInTurn`; the Ready standbys' GPUs count
 *   as free for it (a claim takes one), and while a standby is Ready the flap hold and scale-up
 *   cooldown follow a claim's delay and the scale-down windows are the policy's own
 *   (`claimPolicy`, through `claimDecider` as `gpuops run`'s pass applies it). As in `gpuops run`, each input carries the
 *   loop's delays (the cold start as the start-up), so the windows follow the loop
 *   (`withLoopWindows`), and a service's crossing trigger fires again when the hold its last pass
 *   decided ends (`DecisionClock.actionUntilMs`), not at the next periodic pass.
 * - A scale-up claims Ready standbys first (`planClaims`): the pod stays where it is bound and is
 *   Ready in the service `claimSeconds` later (at the next tick at least that far); the rest are
 *   cold pods (Pending, then the start-up). A scale-down gives claimed pods back first.
 * - The standby ReplicaSet keeps `standbyReplicas(ΣL)` pods (the highest target of the scale-down
 *   stabilisation window): a claim leaves it short and it backfills a cold pod; a pod given back
 *   makes it long and it deletes its surplus as the ReplicaSet controller ranks pods (not bound,
 *   not Ready, then the newest).
 * - Pending pods (a service's or the standby's) that the pool's free GPUs cannot hold move unused
 *   nodes in (whole nodes, in name order); an empty node returns by `returnIdlePools`. Standby
 *   pods, claimed or not, carry the standby's preferred pod affinity to the pool's busy nodes,
 *   which the scheduler model scores (`scheduler-score.ts`), so standbys and the replicas they
 *   draw pack onto busy nodes and the others can empty.
 * Standby GPUs count as allocated: the fleet's pod-level utilisation is Σ served ÷ (Σ the
 * services' allocated + the standby set's). Units: seconds, whole GPUs (1 GPU per pod).
 */
import type { Policy } from '../definitions/index.js';
import {
  claimsOf,
  decideInTurn,
  type Decide,
  decideOneTimed,
  standbyReplicas,
  type StandbyOffer,
  claimDecider,
  standbyHoldSeconds,
} from '../scaling/index.js';
import type { LoopDelays } from '../scaling/index.js';
import { computeFigures, type AllocationPoint } from './figures.js';
import { fleetFigures, type FleetFigures } from './fleet-model.js';
import { nodeFigures, type Meter } from './fleet-node-pools.js';
import type { NodeModelSettings } from './fleet-nodes.js';
import { createNodes, holdGpu, nodeCapacities, staticPoolNodes, type FleetNode } from './node-fleet.js';
import { moveNodes, returnNodes } from './node-moves.js';
import {
  nodeService,
  schedulePending,
  type NodePod,
  type NodeService,
  type PodHand,
} from './node-service.js';
import { modelTrigger, type ModelTrigger } from './model-trigger.js';
import type { Trace } from './trace.js';

const START = Date.parse('2026-01-01T00:00:00Z');

/** The standby set of a fleet replay. */
export interface StandbySettings {
  /** A claim's wake or switch (seconds): claimed → Ready in the service. */
  claimSeconds: number;
  /** β of the standby set: `standbyReplicas(ΣL, β)` standby pods. */
  standbyFactor: number;
}

/** The standby set as the fleet steps it: its pods and what it held. */
interface StandbySet {
  pods: NodePod[];
  serial: number;
  /** (time, target) of the passes within the scale-down stabilisation window. */
  targets: { t: number; n: number }[];
  gpuSeconds: number;
  claims: number;
  backfills: number;
  /** Its pods over time (one point per change): bound (`allocated`), Ready (`ready`), all (`replicas`). */
  points: AllocationPoint[];
}

/** The figures of the standby engine: the fleet's, the standby set's GPU-hours in the allocation, claims and backfills. */
export interface StandbyFigures extends FleetFigures {
  standby: { gpuHours: number; claims: number; backfills: number };
}

/**
 * gpuops with a shared warm standby set over `traces` on `nodeCount` nodes (see the module
 * comment): `policy` sizes each service (patch mode, headroom sizing), `sb` the standby set.
 * @throws Error when a trace is empty
 */
export function runStandbyOnNodes(
  traces: readonly Trace[],
  policy: Policy,
  s: NodeModelSettings,
  nodeCount: number,
  sb: StandbySettings,
  name: string,
): { figures: StandbyFigures; points: AllocationPoint[][]; standbyPoints: AllocationPoint[] } {
  const probe = traces.map((t, i) => nodeService(t, s, `s${i}`, []));
  const load0 = probe.reduce((a, m) => a + m.seen(0), 0) / 100;
  const warmStandby = standbyReplicas(load0, sb.standbyFactor, 1, s.max);
  const warm = probe.reduce((a, x) => a + x.pods.length, 0) + warmStandby;
  const nodes = createNodes(
    nodeCount,
    s.gpusPerNode,
    Math.min(nodeCount, staticPoolNodes(warm, s.gpusPerNode)),
  );
  const ms = traces.map((t, i) => nodeService(t, s, `s${i}`, nodes));
  const set: StandbySet = {
    pods: [],
    serial: 0,
    targets: [],
    gpuSeconds: 0,
    claims: 0,
    backfills: 0,
    points: [],
  };
  for (let i = 0; i < warmStandby; i++) set.pods.push(standbyPod(set, 0, -Infinity));
  const algorithms = new Map(ms.map((m) => [m.name, m.passInput(0, policy).algorithm] as const));
  const meter: Meter = { nodeSeconds: 0, peak: 0, moves: 0, returned: 0 };
  const endS = Math.max(...ms.map((m) => m.endS));
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const tick = s.tickSeconds ?? 15;
  const triggers = s.eventDriven ? ms.map(() => modelTrigger(policy, s)) : null;
  for (let t = 0; t < endS; t += tick) {
    const crossed =
      triggers !== null && t > 0 && ms.map((m, i) => crossing(m, triggers[i]!, t)).includes(true);
    if (t > 0 && (crossed || t % s.passIntervalSeconds === 0)) {
      const live = ms.filter((m) => t < m.endS);
      const { decisions, holds } = decideAll(live, set, nodes, policy, s, sb, t);
      triggers?.forEach((x, i) => x.decided(holds.get(ms[i]!.name) ?? Infinity));
      meter.moves += moveNodes(nodes, decisions, t).length;
      const hand = podHand(set, sb, tick);
      const byService = new Map(live.map((m) => [m.name, m]));
      for (const d of decisions) byService.get(d.algorithm)!.apply(d, t, hand);
      const poolLoad = live.reduce((a, m) => a + m.seen(t), 0) / 100;
      resizeStandby(set, standbyTarget(set, poolLoad, policy, s, sb, t), byName, t);
      meter.moves += moveForPending([...ms, set], nodes, t);
      schedulePending([...ms, set], nodes, 'short-task', s.scoring, s.startupSeconds, t, tick);
      meter.returned += returnNodes(nodes, decisions, algorithms, policy, t).length;
    }
    schedulePending([...ms, set], nodes, 'short-task', s.scoring, s.startupSeconds, t, tick);
    for (const m of ms) m.record(t);
    recordStandby(set, t);
    const dt = Math.min(tick, endS - t);
    set.gpuSeconds += set.pods.filter((p) => p.node !== null).length * dt;
    const held = nodes.filter((n) => n.pool === 'short-task').length;
    meter.nodeSeconds += held * dt;
    meter.peak = Math.max(meter.peak, held);
  }
  const figures = ms.map((m, i) =>
    computeFigures(traces[i]!, m.points, { engine: `${name}#${i}`, max: s.max, flapWindowSeconds: 300 }),
  );
  const fleet = withStandby(fleetFigures(name, figures), set);
  return {
    figures: { ...fleet, nodes: nodeFigures(meter, nodeCount, s.gpusPerNode) },
    points: ms.map((m) => m.points),
    standbyPoints: set.points,
  };
}

/** Records the standby set's pods at `t` (one point per change). */
function recordStandby(set: StandbySet, t: number): void {
  const allocated = set.pods.filter((p) => p.node !== null).length;
  const ready = set.pods.filter((p) => p.node !== null && p.readyAt <= t).length;
  const prev = set.points[set.points.length - 1];
  if (prev && prev.allocated === allocated && prev.ready === ready && prev.replicas === set.pods.length)
    return;
  set.points.push({ t, allocated, ready, replicas: set.pods.length });
}

/**
 * Every live service decided in one pass, as `gpuops run` decides: each input carries the loop's
 * delays (`loop`: its windows follow them, `withLoopWindows`, the cold start as the start-up), the
 * Ready standbys' GPUs are free for claims, and while one is Ready the flap hold and scale-up
 * cooldown follow a claim's delay, the scale-down windows the policy's own (`claimPolicy`). Returns the decisions and, per service, until
 * when its action holds with only the clock moving (its crossing trigger fires again then).
 */
function decideAll(
  live: readonly NodeService[],
  set: StandbySet,
  nodes: readonly FleetNode[],
  policy: Policy,
  s: NodeModelSettings,
  sb: StandbySettings,
  t: number,
) {
  const ready = set.pods.filter((p) => p.node !== null && p.readyAt <= t);
  const offer: StandbyOffer = { ready: ready.length, claimSeconds: sb.claimSeconds };
  const loop: LoopDelays = {
    sampleSeconds: s.sampleDelaySeconds,
    reactionSeconds: s.eventDriven ? (s.tickSeconds ?? 15) : s.passIntervalSeconds,
    startupSeconds: s.startupSeconds,
  };
  const claimable = new Map<string, number>();
  for (const p of ready) claimable.set(p.node!, (claimable.get(p.node!) ?? 0) + 1);
  const capacity = nodeCapacities(nodes).map((c) => ({
    ...c,
    freeGpus: c.freeGpus + (claimable.get(c.node) ?? 0),
  }));
  const holds = new Map<string, number>();
  const timed: Decide = (input, p, now) => {
    const { decision, clock } = decideOneTimed(input, p, now);
    holds.set(input.algorithm.name, clock.actionUntilMs);
    return { decision, claims: claimsOf(input, decision) };
  };
  // Every service is of the set: each is decided under the claim's windows while one is Ready.
  const decide = claimDecider(timed, () => offer);
  const inputs = live.map((m) => ({ ...m.passInput(t, policy), loop }));
  const decisions = decideInTurn(inputs, capacity, policy, new Date(START + t * 1000), decide);
  return { decisions, holds };
}

/** Whether `m` has left its band at `t` on what gpuops reads (its crossing trigger). */
function crossing(m: NodeService, trigger: ModelTrigger, t: number): boolean {
  if (t >= m.endS) return false;
  const ready = m.pods.filter((p) => p.node !== null && p.readyAt <= t).length;
  const u = ready > 0 ? Math.min(100, m.seen(t) / ready) : 0;
  return trigger.crossed(t, m.replicas(), ready, u);
}

/**
 * A new standby pod (Pending; `readyAt` −∞ for the warm-up's, Ready as soon as bound), carrying
 * the standby's preferred pod affinity terms (kept when claimed), which `schedulePending` scores.
 */
function standbyPod(set: StandbySet, t: number, readyAt: number): NodePod {
  const serial = set.serial++;
  return { name: `standby-${serial}`, serial, node: null, readyAt, createdAt: t, carriesAffinity: true };
}

/**
 * Claims and give-backs of the standby set: `take` the Ready standby bound longest (its GPU
 * stays held; Ready in the service after the claim), `give` a claimed pod back (Ready as a
 * standby after the same wake or switch time); a service's own pods are deleted.
 */
function podHand(set: StandbySet, sb: StandbySettings, tick: number): PodHand {
  const atTick = (t: number) => Math.ceil(t / tick) * tick;
  return {
    take: (t) => {
      const i = set.pods.findIndex((p) => p.node !== null && p.readyAt <= t);
      if (i < 0) return null;
      const [p] = set.pods.splice(i, 1);
      set.claims++;
      return { ...p!, claimed: true, startedAt: t, readyAt: atTick(t + sb.claimSeconds) };
    },
    give: (p, t) => {
      if (!p.claimed) return false;
      set.pods.push({ ...p, claimed: false, startedAt: t, readyAt: atTick(t + sb.claimSeconds) });
      return true;
    },
  };
}

/**
 * The standby set's size at `t`: `standbyReplicas(poolLoad)`, the highest target of the last
 * scale-down stabilisation window (so a dip does not delete standbys the next rise needs cold),
 * `standbyHoldSeconds` as `gpuops run`'s pass holds it (`plan/standby-hold.ts`).
 */
function standbyTarget(
  set: StandbySet,
  poolLoadGpus: number,
  policy: Policy,
  s: NodeModelSettings,
  sb: StandbySettings,
  t: number,
): number {
  const window = standbyHoldSeconds(policy);
  set.targets.push({ t, n: standbyReplicas(poolLoadGpus, sb.standbyFactor, 1, s.max) });
  while (set.targets.length > 0 && set.targets[0]!.t < t - window) set.targets.shift();
  return Math.max(...set.targets.map((x) => x.n));
}

/**
 * The standby ReplicaSet at `target` pods: short, it creates cold pods (a backfill); long, it
 * deletes the surplus as the ReplicaSet controller ranks pods (not bound, not Ready, newest).
 */
function resizeStandby(set: StandbySet, target: number, byName: Map<string, FleetNode>, t: number): void {
  while (set.pods.length < target) {
    set.pods.push(standbyPod(set, t, Infinity));
    set.backfills++;
  }
  if (set.pods.length <= target) return;
  const rank = (p: NodePod) => (p.node === null ? 0 : p.readyAt <= t ? 2 : 1);
  const order = [...set.pods].sort((a, b) => rank(a) - rank(b) || b.createdAt - a.createdAt);
  const gone = new Set(order.slice(0, set.pods.length - target));
  for (const p of gone) if (p.node !== null) holdGpu(byName.get(p.node)!, -1, t);
  set.pods = set.pods.filter((p) => !gone.has(p));
}

/**
 * Moves unused nodes into the pool (name order) until its free GPUs hold every Pending pod of
 * `groups`; returns how many moved. A node moved in is empty since `t`.
 */
function moveForPending(groups: readonly { pods: NodePod[] }[], nodes: FleetNode[], t: number): number {
  const pending = groups.reduce((a, g) => a + g.pods.filter((p) => p.node === null).length, 0);
  let free = nodes.filter((n) => n.pool === 'short-task').reduce((a, n) => a + n.gpus - n.used, 0);
  let moved = 0;
  for (const n of nodes) {
    if (free >= pending) break;
    if (n.pool !== 'unused') continue;
    n.pool = 'short-task';
    n.movedAt = t;
    n.emptySince = t;
    free += n.gpus;
    moved++;
  }
  return moved;
}

/** The fleet's figures with the standby set's GPU-hours in the allocation (its pods serve nothing until claimed). */
function withStandby(f: FleetFigures, set: StandbySet): StandbyFigures {
  const gpuHours = set.gpuSeconds / 3600;
  const allocated = f.allocatedGpuHours + gpuHours;
  const served = f.services.reduce((a, x) => a + x.servedGpuHours, 0);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    ...f,
    allocatedGpuHours: round(allocated),
    utilizationPercent: round(allocated > 0 ? (100 * served) / allocated : 0),
    standby: { gpuHours: round(gpuHours), claims: set.claims, backfills: set.backfills },
  };
}
