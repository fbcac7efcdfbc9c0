import type { PodInfo } from '../cluster/types.js';
import type { Pool, Policy, ResolvedAlgorithm } from '../definitions/types.js';
import { podSlots } from './capacity.js';
import { judgedOver } from './judged-over.js';
import { lastChangeMs, recentPeak, recommendationOf, type RecommendationBounds } from './history.js';
import { sizeForLoad } from './size-for-load.js';
import type {
  DecisionRecord,
  DetailedDecision,
  NodeCapacity,
  PodSample,
  ScalingAction,
  ScalingDecision,
  ScalingInput,
  ScalingReason,
} from './types.js';

const SCALABLE_POOLS: ReadonlySet<Pool> = new Set(['long-task', 'short-task']);

/**
 * Decides how to scale one algorithm (pure; HPA-like, https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/).
 * Returns `{ action, replicas: {from, to}, utilization, nodes, reason, message }`; the message
 * carries the numbers it was decided on. See {@link decideDetailed} for the rules.
 */
export function decide(input: ScalingInput, policy: Policy, now: Date): ScalingDecision {
  return decideDetailed(input, policy, now).decision;
}

/**
 * The decision plus the GPUs its new replicas will take per node (for {@link decideAll}).
 * Kubernetes HPA (autoscaling/v2) is the model: https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/
 *
 * Rules, in order (each boundary says which side it takes and why):
 * 0. `replicas: 0` in Git with `minReplicas` ≥ 1 (engine gpuops) → `hold ScaledToZero`: a
 *    Deployment scaled to zero is paused by a person; the HPA stops adjusting a target whose
 *    replicas are 0 while its minimum is above 0 (HPA doc "Implicit maintenance-mode
 *    deactivation"). No metrics needed. 1 replica is the neighbour: decided normally.
 * 1. No pool (the Deployment in Git is not pinned to long-task or short-task) → `hold NotPlaced`.
 *    A count outside `minReplicas..maxReplicas` (engine gpuops) is brought back inside at once,
 *    with or without metrics: `scale-up BelowMinReplicas` / `scale-down AboveMaxReplicas` (the HPA
 *    clamps to its limits the same way). The limits themselves are inside.
 * 2. Replicas are at most `replicas` live pods, the current ReplicaSet's first (see
 *    `countedPods`): a rolling update's surge pods are not replicas. Utilisation is the mean
 *    of the counted Ready pods' samples; no sample at all → `hold NoData` (never 0 %; the message
 *    names why: the source's failure, or the pods' series dropped by reason), except when
 *    replicas are Pending `Unschedulable` and the pool has no room for them (a pool still
 *    empty right after placement): then unused nodes move in for them (`relabel
 *    RelabelUnusedNode`, replicas unchanged, after the scale-up cooldown).
 * 3. `engine: hpa` → the HPA owns replicas; gpuops only relabels `unused` nodes into the pool
 *    when the HPA sits at its maximum with utilisation above max, or its pods are Pending for
 *    lack of GPUs, and the pool has no room (`HPAOwnsReplicas` otherwise).
 * 4. min ≤ utilisation ≤ max → `hold WithinRange`. Both ends are in band: the band is gpuops'
 *    form of the HPA's tolerance (no action while the ratio is within 10 % of the target), and
 *    the HPA acts only when the ratio is strictly outside it; so exactly `min` or `max` holds.
 * 5. Below min: `AtMinReplicas` at `minReplicas`; `InsufficientSamples` unless EVERY Ready pod
 *    has a sample (the HPA never scales down on missing metrics: it assumes 100 % for pods
 *    without one, HPA doc "Algorithm details"); `WouldFlap` when the utilisation predicted after
 *    one `step` down (util × n / (n − step), n = Ready pods) is strictly above max — exactly max
 *    is in band after the change, so it scales; then the scale-down cooldown (`CooldownActive`;
 *    over at exactly `cooldownSeconds` after the last change, as a duration that has elapsed)
 *    and the scale-down stabilisation window (`StabilizationWindow`, HPA default 300 s; the
 *    highest recommendation of the window wins; with `sizing: load` every held pass recommended
 *    the replicas its load needed at `targetUtilization`, see `recommendationOf`). The window is
 *    judged from the source's own samples when it sent them (Prometheus history: the window's highest utilisation must be
 *    below min, and the samples must reach back the whole window, exactly the window counts),
 *    else from the recorded passes (one of which must be at least the window old, exactly the
 *    window counts); one instant and no such pass is no evidence over the window → hold.
 *    Before the cooldown, with `scaleDown.peakWindowSeconds` > 0 (default 0: off), the target
 *    goes no lower than the replicas that keep the window's highest recorded load (utilisation ×
 *    replicas, see `recentPeak`) at or below max — exactly max on the smaller count allows it —
 *    and when that is the current count → `hold RecentPeak` (a load that came back within the
 *    window is likely to come back again; no record in the window: the rule does not apply).
 *    Else `scale-down BelowMin`.
 * 6. Above max: `AtMaxReplicas` at `maxReplicas`; `PodsStarting` when replicas are on the way
 *    (not Ready, not Unschedulable, or not created yet) and the utilisation spread over them and
 *    the Ready pods (util × ready / (ready + arriving), the HPA's "unready pods count 0 %") is at
 *    most max — exactly max is in band, so it holds; scale-up cooldown and stabilisation (lowest
 *    recommendation wins); then `step` more replicas, bounded by `maxReplicas` and by pod slots
 *    (`resources.gpus` each) on free GPUs of the pool's nodes, less the GPUs replicas already in
 *    Git but not yet bound will take (`scale-up AboveMax`). No slot → relabel as many `unused`
 *    nodes as needed (same GPU product as the pool first, then by name; only with a sample from
 *    every Ready pod) and scale up onto them (`relabel RelabelUnusedNode`); none → `NoCapacity`.
 */
export function decideDetailed(input: ScalingInput, policy: Policy, now: Date): DetailedDecision {
  const s = policy.spec.scaling;
  const alg = input.algorithm;
  const { min, max } = alg.scaling.utilization;
  const { minReplicas, maxReplicas } = alg.scaling;
  const step = Math.max(1, s.step);
  const gpus = Math.max(1, alg.spec.resources.gpus);
  const from = input.replicas;
  const nowMs = now.getTime();
  const bounds: RecommendationBounds = {
    min,
    max,
    minReplicas,
    maxReplicas,
    step,
    sizing: s.sizing,
    target: s.targetUtilization > 0 ? s.targetUtilization : undefined,
  };
  const target = bounds.target;
  const records = input.recent.filter((r) => r.kind === 'scaling' && r.subject === alg.name);

  const counted = countedPods(input.pods, from, input.currentReplicaSet ?? null);
  const ready = counted.filter((p) => p.ready);
  const byPod = new Map<string, PodSample>();
  for (const x of input.samples) byPod.set(`${x.namespace}/${x.pod}`, x);
  const sampled = ready.map((p) => byPod.get(`${p.namespace}/${p.name}`)).filter((x): x is PodSample => !!x);
  const utilization = sampled.length ? sampled.reduce((a, x) => a + x.utilization, 0) / sampled.length : null;
  // Read only once a utilisation exists, so with at least one Ready pod.
  const complete = sampled.length === ready.length;
  const u = utilization === null ? 'n/a' : `${round1(utilization)}%`;
  const over = judgedOver(sampled.length, ready.length);
  // Replicas in Git that are not bound to a node yet will take free GPUs first.
  const bound = counted.filter((p) => p.nodeName !== null).length;
  const outstanding = Math.max(0, from - bound);
  const poolSlots = podSlots(input.poolNodes, gpus) - outstanding;
  const flagNote = input.flags?.length ? ` (note: ${input.flags.map((f) => f.message).join('; ')})` : '';
  const droppedNote = input.dropped ? ` (series dropped: ${input.dropped})` : '';

  const result = (
    action: ScalingAction,
    to: number,
    reason: ScalingReason,
    message: string,
    nodes: string[] = [],
    claims: DetailedDecision['claims'] = place(input.poolNodes, gpus, outstanding),
  ): DetailedDecision => ({
    decision: {
      algorithm: alg.name,
      action,
      replicas: { from, to },
      utilization: utilization === null ? null : round1(utilization),
      nodes,
      reason,
      message: `${alg.name}: ${message}${flagNote}`,
    },
    claims,
  });
  const hold = (reason: ScalingReason, message: string) => result('hold', from, reason, message);

  // 0. A Deployment a person scaled to zero is paused: the HPA disables itself at 0 replicas
  // ("ScalingDisabled"), and so does gpuops. No metrics are needed and nothing is written.
  if (s.engine !== 'hpa' && from === 0 && minReplicas >= 1) {
    return hold(
      'ScaledToZero',
      `replicas are 0 in Git (minReplicas ${minReplicas}): a Deployment scaled to zero is paused by a person, as the HPA treats it; scaling resumes once replicas are above 0`,
    );
  }

  // 1. Placement first.
  if (input.pool === null || !SCALABLE_POOLS.has(input.pool)) {
    return hold(
      'NotPlaced',
      `its Deployment in Git is not pinned to long-task or short-task (pool: ${input.pool ?? 'none'}); replicas stay at ${from} until a placement pins it`,
    );
  }
  const pool = input.pool;

  const cooldown = (dir: 'up' | 'down'): string | null => {
    const seconds = dir === 'up' ? s.scaleUp.cooldownSeconds : s.scaleDown.cooldownSeconds;
    const last = lastChangeMs(records, nowMs);
    if (seconds <= 0 || last === null || nowMs - last >= seconds * 1000) return null;
    const ago = Math.round((nowMs - last) / 1000);
    return `last change ${ago}s ago, scale-${dir} cooldown is ${seconds}s`;
  };
  /** HPA stabilisation: the most cautious recommendation of the window. */
  const stabilize = (dir: 'up' | 'down', desired: number): { to: number } | { wait: string } => {
    const seconds =
      dir === 'up' ? s.scaleUp.stabilizationWindowSeconds : s.scaleDown.stabilizationWindowSeconds;
    if (seconds <= 0) return { to: desired };
    const start = nowMs - seconds * 1000;
    let reaches = false;
    let to = desired;
    for (const r of records) {
      const t = Date.parse(r.at);
      if (t > nowMs) continue;
      if (t <= start) {
        reaches = true;
        continue;
      }
      const rec = recommendationOf(r, bounds);
      if (rec === null) continue;
      to = dir === 'down' ? Math.max(to, rec) : Math.min(to, rec);
    }
    if (!reaches) {
      const instant = !sampled.some((x) => x.window);
      return {
        wait:
          (instant
            ? `one instant is no evidence over the ${seconds}s scale-${dir} stabilisation window, and `
            : '') + `no recorded pass reaches back the ${seconds}s scale-${dir} stabilisation window yet`,
      };
    }
    if (dir === 'down' ? to >= from : to <= from) {
      return {
        wait: `the ${dir === 'down' ? 'highest' : 'lowest'} recommendation in the last ${seconds}s is ${to}`,
      };
    }
    return { to };
  };

  /**
   * Scale-down stabilisation judged from the source's own history (Prometheus's samples over the
   * window), when every sampled pod carries it; null sends `stabilize` to the recorded passes (the
   * fallback for direct dcgm-exporter scraping and one-instant answers). As the HPA's scale-down
   * stabilisation (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#stabilization-window,
   * default 300 s) takes the highest recommendation of the window, the window's highest
   * utilisation must be below min: the mean of each pod's highest sample, never lower than the
   * highest mean, so the judgement errs towards holding. Exactly at min is in band (hold). The
   * evidence must reach back the whole window: coverage exactly the window counts (a
   * `query_range` starting at `end − window` has its first point on the boundary).
   */
  const sourceHistory = (): { highest: number } | { wait: string } | null => {
    const seconds = s.scaleDown.stabilizationWindowSeconds;
    if (seconds <= 0 || !sampled.every((x) => x.window)) return null;
    const covered = sampled.map((x) => x.window!.coveredSeconds);
    if (covered.some((c) => c === null || c < seconds)) {
      const known = covered.filter((c): c is number => c !== null);
      const least =
        known.length < covered.length ? 'less than the window' : `${Math.floor(Math.min(...known))}s`;
      return {
        wait: `the source's samples reach back ${least} of the ${seconds}s scale-down stabilisation window; waits until they cover it`,
      };
    }
    const highest = sampled.reduce((a, x) => a + x.window!.max, 0) / sampled.length;
    if (highest >= min) {
      return {
        wait: `the highest utilisation in the last ${seconds}s is ${round1(highest)}% ≥ min ${min}% (scale-down stabilisation window)`,
      };
    }
    return { highest };
  };

  /** Relabel unused nodes until `need` more pods fit; same GPU product as the pool first. */
  const relabel = (
    need: number,
    add: (fit: number) => number,
    why: string,
    requireSamples = true,
  ): DetailedDecision => {
    if (requireSamples && !complete) {
      return hold(
        'InsufficientSamples',
        `${why}, but only ${sampled.length} of ${ready.length} Ready pod(s) have a sample${droppedNote}; no node is moved on partial data`,
      );
    }
    const products = new Set(input.poolNodes.map((n) => n.gpuProduct).filter((p): p is string => p !== null));
    const candidates = input.unusedNodes
      .filter((n) => n.freeGpus >= gpus)
      .sort((a, b) => {
        const pa = a.gpuProduct !== null && products.has(a.gpuProduct) ? 0 : 1;
        const pb = b.gpuProduct !== null && products.has(b.gpuProduct) ? 0 : 1;
        return pa - pb || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
      });
    if (candidates.length === 0) {
      return hold(
        'NoCapacity',
        `${why}; no node of pool ${pool} has ${gpus} free GPU(s) and no unused node does either (${input.unusedNodes.length} unused node(s))`,
      );
    }
    const chosen: NodeCapacity[] = [];
    let got = 0;
    for (const n of candidates) {
      if (got >= need) break;
      chosen.push(n);
      got += Math.floor(n.freeGpus / gpus);
    }
    const fit = add(got);
    const to = from + fit;
    const claims = place([...input.poolNodes, ...chosen], gpus, fit + outstanding);
    const names = chosen.map((n) => n.node);
    return result(
      'relabel',
      to,
      'RelabelUnusedNode',
      `${why}; pool ${pool} has no room for a pod of ${gpus} GPU(s), moving unused node(s) ${names.join(', ')} ` +
        `(${chosen.map((n) => `${n.freeGpus} free ${n.gpuProduct ?? 'GPU'}`).join(', ')}) into it` +
        (to === from ? `; replicas stay at ${from}` : `, then scaling ${from} → ${to}`),
      names,
      claims,
    );
  };

  // 1b. A count outside minReplicas..maxReplicas is brought back inside first, with or without
  // metrics (the HPA does the same: "Current number of replicas below Spec.MinReplicas" / "above
  // Spec.MaxReplicas"). No cooldown: the limits are the spec, not a recommendation.
  if (s.engine !== 'hpa' && from < minReplicas) {
    return result(
      'scale-up',
      minReplicas,
      'BelowMinReplicas',
      `replicas ${from} in Git are below minReplicas ${minReplicas}; scaling ${from} → ${minReplicas} (utilisation ${u})`,
      [],
      place(input.poolNodes, gpus, minReplicas - from + outstanding),
    );
  }
  if (s.engine !== 'hpa' && from > maxReplicas) {
    return result(
      'scale-down',
      maxReplicas,
      'AboveMaxReplicas',
      `replicas ${from} in Git are above maxReplicas ${maxReplicas}; scaling ${from} → ${maxReplicas} (utilisation ${u})`,
    );
  }

  // 2. Data.
  if (utilization === null) {
    // Replicas in Git that the scheduler cannot place and the pool has no room for (right after
    // placement the pool is empty): they show no utilisation until they run, so move unused nodes
    // in first. The pods' Unschedulable condition is the evidence, not utilisation samples.
    const pending = counted.filter((p) => p.unschedulable && p.nodeName === null).length;
    if (pending > 0 && poolSlots < 0) {
      const why = `${pending} pod(s) Pending: pool ${pool} has no room for ${-poolSlots} more pod(s) of ${gpus} GPU(s)`;
      const wait = cooldown('up');
      if (wait) return hold('CooldownActive', `${why}; ${wait}`);
      return relabel(-poolSlots, () => 0, why, false);
    }
    const why =
      input.noDataMessage ??
      (ready.length === 0
        ? `none of its ${counted.length} counted pod(s) is Ready, so no GPU sample can count`
        : `no usable GPU sample for any of ${ready.length} Ready pod(s)${droppedNote || ' (no series of the source names them)'}`);
    return hold('NoData', `${why}; utilisation unknown, replicas stay at ${from}`);
  }

  // 3. The HPA owns replicas.
  if (s.engine === 'hpa') {
    const pending = counted.filter((p) => p.unschedulable && p.nodeName === null).length;
    const hpaMax = input.hpa?.maxReplicas ?? maxReplicas;
    const current = input.hpa?.currentReplicas ?? from;
    const atMax = current >= hpaMax && utilization > max;
    if (pending === 0 && !atMax) {
      return hold(
        'HPAOwnsReplicas',
        `the HPA owns replicas (${current}, max ${hpaMax}); utilisation ${u} ${over}`,
      );
    }
    const why = pending
      ? `${pending} pod(s) Pending for lack of GPUs`
      : `the HPA sits at its maximum of ${hpaMax} replicas with utilisation ${u} > max ${max}%`;
    const need = pending || step;
    if (podSlots(input.poolNodes, gpus) >= need) {
      return hold(
        'HPAOwnsReplicas',
        `${why}, but pool ${pool} has room for ${need} pod(s); the HPA owns replicas`,
      );
    }
    const wait = cooldown('up');
    if (wait) return hold('CooldownActive', `${why}; ${wait}`);
    return relabel(need, () => 0, why);
  }

  // 4. In range.
  if (utilization >= min && utilization <= max) {
    return hold('WithinRange', `utilisation ${u} ${over} is within ${min}–${max}%; replicas stay at ${from}`);
  }

  // 5. Below min.
  if (utilization < min) {
    const below = `utilisation ${u} ${over} < min ${min}%`;
    if (from <= minReplicas)
      return hold('AtMinReplicas', `${below}, but replicas ${from} are at minReplicas ${minReplicas}`);
    if (!complete) {
      return hold(
        'InsufficientSamples',
        `${below}, but only ${sampled.length} of ${ready.length} Ready pod(s) have a sample${droppedNote}; never scale down on partial data (the HPA never scales down on missing metrics)`,
      );
    }
    const n = ready.length;
    const sizing = { pods: n, utilization, min, max, step, minReplicas, maxReplicas, target };
    const desired =
      s.sizing === 'load'
        ? sizeForLoad({ direction: 'down', from, ...sizing })
        : from - Math.min(step, from - minReplicas);
    const after = Math.min(n, desired);
    const predicted = (utilization * n) / after;
    if (predicted > max) {
      return hold(
        'WouldFlap',
        `${below}, but ${from} → ${desired} would put it at ${round1(predicted)}% > max ${max}%`,
      );
    }
    // 5b. Peak window: no lower than the replicas that keep the window's highest load ≤ max.
    const peakSeconds = s.scaleDown.peakWindowSeconds ?? 0;
    const peak = recentPeak(records, nowMs, peakSeconds);
    let lower = desired;
    while (peak !== null && lower < from && peak.load / lower > max) lower++;
    if (peak !== null && lower >= from) {
      return hold(
        'RecentPeak',
        `${below}, but the highest load in the last ${peakSeconds}s (${round1(peak.utilization)}% on ${peak.replicas} replica(s) at ${peak.at}) would put ${from} → ${desired} at ${round1(peak.load / desired)}% > max ${max}%; replicas stay at ${from}`,
      );
    }
    const peakNote =
      lower > desired
        ? ` (not ${desired}: the highest load in the last ${peakSeconds}s would put it at ${round1(peak!.load / desired)}% > max ${max}%)`
        : '';
    const wait = cooldown('down');
    if (wait) return hold('CooldownActive', `${below}; ${wait}`);
    const history = sourceHistory();
    if (history !== null) {
      if ('wait' in history) return hold('StabilizationWindow', `${below}; ${history.wait}`);
      return result(
        'scale-down',
        lower,
        'BelowMin',
        `${below}, and below it for the whole ${s.scaleDown.stabilizationWindowSeconds}s stabilisation window (highest ${round1(history.highest)}% in the source's samples); scaling ${from} → ${lower}${peakNote} (predicted ${round1((utilization * n) / Math.min(n, lower))}%)`,
      );
    }
    const st = stabilize('down', lower);
    if ('wait' in st) return hold('StabilizationWindow', `${below}; ${st.wait}`);
    return result(
      'scale-down',
      st.to,
      'BelowMin',
      `${below}; scaling ${from} → ${st.to}${st.to === lower ? peakNote : ''} (predicted ${round1((utilization * n) / Math.min(n, st.to))}%)`,
    );
  }

  // 6. Above max.
  const above = `utilisation ${u} ${over} > max ${max}%`;
  if (from >= maxReplicas)
    return hold('AtMaxReplicas', `${above}, but replicas ${from} are at maxReplicas ${maxReplicas}`);
  // Capacity on the way: replicas starting (bound or not yet created, never Unschedulable) will
  // take their share of the load. The HPA assumes not-yet-Ready pods use 0 % on a scale-up and
  // holds when that recalculation no longer says up (HPA doc "Algorithm details").
  const arriving =
    counted.filter((p) => !p.ready && !p.unschedulable && !p.terminating).length +
    Math.max(0, from - counted.length);
  if (arriving > 0) {
    const spread = (utilization * ready.length) / (ready.length + arriving);
    if (spread <= max)
      return hold(
        'PodsStarting',
        `${above}, but ${arriving} replica(s) are starting: with them Ready it is ${round1(spread)}% ≤ max ${max}%; replicas stay at ${from}`,
      );
  }
  const wait = cooldown('up');
  if (wait) return hold('CooldownActive', `${above}; ${wait}`);
  const st = stabilize(
    'up',
    s.sizing === 'load'
      ? sizeForLoad({
          direction: 'up',
          from,
          pods: sampled.length,
          utilization,
          min,
          max,
          step,
          minReplicas,
          maxReplicas,
          target,
        })
      : Math.min(maxReplicas, from + step),
  );
  if ('wait' in st) return hold('StabilizationWindow', `${above}; ${st.wait}`);
  const want = st.to - from;
  if (poolSlots >= 1) {
    const add = Math.min(want, poolSlots);
    const bounded =
      add < want ? ` (bounded by free GPUs: room for ${poolSlots} more pod(s) of ${gpus} GPU(s))` : '';
    return result(
      'scale-up',
      from + add,
      'AboveMax',
      `${above}; scaling ${from} → ${from + add} on pool ${pool}${bounded}`,
      [],
      place(input.poolNodes, gpus, add + outstanding),
    );
  }
  // No room: pods not yet bound (−poolSlots of them) need a place too.
  const short = -Math.min(0, poolSlots);
  return relabel(want + short, (got) => Math.max(0, Math.min(want, got - short)), above);
}

/**
 * Decides for many algorithms in one pass against one shared view of capacity (pure): sorted by
 * name, each decision's new pods take their GPUs and relabelled nodes join the pool before the
 * next algorithm is decided, so two algorithms never claim the same GPUs or the same unused node.
 * `capacity` is every GPU node (see `nodeCapacity`); the inputs' `poolNodes`/`unusedNodes` are
 * filled from it.
 */
export function decideAll(
  inputs: readonly Omit<ScalingInput, 'poolNodes' | 'unusedNodes'>[],
  capacity: readonly NodeCapacity[],
  policy: Policy,
  now: Date,
): ScalingDecision[] {
  const ledger = new Map<string, NodeCapacity>();
  const byPool = new Map<Pool | null, NodeCapacity[]>();
  for (const n of capacity) {
    const copy = { ...n };
    ledger.set(n.node, copy);
    const list = byPool.get(n.pool);
    if (list) list.push(copy);
    else byPool.set(n.pool, [copy]);
  }
  const sorted = [...inputs].sort((a, b) => (a.algorithm.name < b.algorithm.name ? -1 : 1));
  const out: ScalingDecision[] = [];
  for (const input of sorted) {
    const { decision, claims } = decideDetailed(
      {
        ...input,
        poolNodes: input.pool === null ? [] : (byPool.get(input.pool) ?? []),
        unusedNodes: byPool.get('unused') ?? [],
      },
      policy,
      now,
    );
    if (decision.action === 'relabel' && input.pool !== null) {
      for (const name of decision.nodes) {
        const n = ledger.get(name)!;
        byPool.set(
          'unused',
          byPool.get('unused')!.filter((x) => x !== n),
        );
        n.pool = input.pool;
        byPool.set(input.pool, [...(byPool.get(input.pool) ?? []), n]);
      }
    }
    for (const c of claims) {
      const n = ledger.get(c.node)!;
      n.freeGpus = Math.max(0, n.freeGpus - c.gpus);
    }
    out.push(decision);
  }
  return out;
}

/**
 * The pods that are replicas: live ones (not terminating, not Succeeded/Failed), at most
 * `replicas` of them, the current ReplicaSet's first, then Ready first, then oldest first. During
 * a rolling update the Deployment runs up to `maxSurge` pods more than `replicas`; those extra
 * pods are not counted. When the current ReplicaSet is not known it is taken to be the owner of
 * the newest pod (a rolling update creates the new ReplicaSet's pods last).
 */
export function countedPods(
  pods: readonly PodInfo[],
  replicas: number,
  currentReplicaSet: string | null,
): PodInfo[] {
  const live = pods.filter((p) => !p.terminating && p.phase !== 'Succeeded' && p.phase !== 'Failed');
  let current = currentReplicaSet;
  if (current === null) {
    let newest: PodInfo | null = null;
    for (const p of live) {
      if (p.owner?.kind === 'ReplicaSet' && (newest === null || p.createdAt > newest.createdAt)) newest = p;
    }
    current = newest?.owner?.name ?? null;
  }
  const rank = (p: PodInfo) => (current !== null && p.owner?.name === current ? 0 : 1);
  live.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      Number(b.ready) - Number(a.ready) ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  return live.slice(0, Math.max(0, replicas));
}

/** Predicted placement of `count` pods of `gpus` GPUs: most free node first, ties by name. */
function place(
  nodes: readonly NodeCapacity[],
  gpus: number,
  count: number,
): { node: string; gpus: number }[] {
  const taken = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    let best: string | null = null;
    let bestFree = -1;
    for (const n of nodes) {
      const f = n.freeGpus - (taken.get(n.node) ?? 0);
      if (f < gpus) continue;
      if (f > bestFree || (f === bestFree && best !== null && n.node < best)) {
        best = n.node;
        bestFree = f;
      }
    }
    if (best === null) break;
    taken.set(best, (taken.get(best) ?? 0) + gpus);
  }
  return [...taken].map(([node, g]) => ({ node, gpus: g }));
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

/**
 * The scaling entry of an algorithm that has a pool but no Deployment in Git yet (its placement
 * pull request creates it): nothing to scale, `hold PlacementPending`, replicas 0 → 0, no
 * utilisation. Never an `AboveMax` on a hold.
 */
export function placementPending(algorithm: ResolvedAlgorithm, pool: Pool): ScalingDecision {
  return {
    algorithm: algorithm.name,
    action: 'hold',
    replicas: { from: 0, to: 0 },
    utilization: null,
    nodes: [],
    reason: 'PlacementPending',
    message: `${algorithm.name}: no Deployment in Git yet; the placement pull request creates it on pool ${pool} with ${algorithm.scaling.minReplicas} replica(s), and scaling starts once it is merged`,
  };
}

/** The record to store for a decision (`kind: scaling`), so the next pass sees it. */
export function toDecisionRecord(decision: ScalingDecision, now: Date): DecisionRecord {
  return {
    kind: 'scaling',
    subject: decision.algorithm,
    action: decision.action,
    reason: decision.reason,
    message: decision.message,
    replicasFrom: decision.replicas.from,
    replicasTo: decision.replicas.to,
    utilization: decision.utilization,
    at: now.toISOString(),
  };
}
