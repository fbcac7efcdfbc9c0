/**
 * What a pass leaves for the crossing trigger of `gpuops run` (pure): per algorithm that gpuops
 * scales (engine `gpuops`), its signal and its band as the scaling rules read it, the replicas it runs with after
 * the pass (patch mode applies a change at once; a pull request's waits for its merge, so the
 * replicas stay), its Ready replicas in the snapshot, and when its hold can change (the kept
 * decision's clock, `heldUntilMs`; Infinity: never by the clock alone), and what the pass's
 * attribution judged series against (the snapshot's pods and owners, the shared-GPU nodes, the
 * policy's sample-age limit), so the trigger counts only the series the pass would.
 */
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { DesiredState } from '../plan/index.js';
import {
  watchJudgeOf,
  type ScalingLookups,
  type Watchlist,
  type WatchedAlgorithm,
} from '../scaling/index.js';
import type { World } from './world.js';
import { isBenchmarkPod, type PodInfo } from '../cluster/index.js';

/**
 * The watchlist of a pass (empty with engine `hpa`: the HorizontalPodAutoscaler owns replicas).
 * `lookups`: the owner and pod indexes over the snapshot's arrays; a reconciler passes the ones its
 * scaling step built this pass (`rememberedLookups`), so the judge builds none again. Default: built.
 */
export function watchlistOf(
  world: World,
  desired: DesiredState,
  heldUntilMs: (algorithm: string) => number = () => Infinity,
  lookups?: Pick<ScalingLookups, 'owners' | 'podIndex'>,
): Watchlist {
  const policy = world.repo.policy;
  const s = policy.spec.scaling;
  const read = {
    metric: s.metric,
    windowSeconds: s.windowSeconds,
    judge: watchJudgeOf(world.snapshot, policy, lookups),
  };
  if (s.engine === 'hpa') return { ...read, namespaces: [], algorithms: [] };
  const decided = new Map(desired.output.scaling.map((d) => [d.algorithm, d]));
  const ready = readyByAlgorithm(world.snapshot.pods);
  const algorithms: WatchedAlgorithm[] = [];
  for (const a of world.repo.algorithms) {
    const d = decided.get(a.name);
    if (!d || d.reason === 'NotPlaced' || d.reason === 'PlacementPending') continue;
    const replicas = s.mode === 'patch' ? d.replicas.to : d.replicas.from;
    algorithms.push({
      name: a.name,
      namespace: a.namespace,
      ...(a.signal ? { signal: a.signal } : {}),
      view: viewOf(a, s, replicas),
      pods: ready.get(`${a.namespace}/${a.name}`) ?? [],
      heldUntilMs: heldUntilMs(a.name),
    });
  }
  const namespaces = [...new Set(algorithms.map((a) => a.namespace))].sort();
  return { ...read, namespaces, algorithms };
}

/**
 * The Ready replicas' names of each algorithm (`namespace/algorithm`), kept per pods array: the
 * watch cache hands out the same array (of the same, never changed, objects) while no pod moved,
 * so a steady pass does not walk every pod again. Callers only read the lists.
 */
const readyKept = new WeakMap<readonly PodInfo[], ReadonlyMap<string, readonly string[]>>();

function readyByAlgorithm(pods: readonly PodInfo[]): ReadonlyMap<string, readonly string[]> {
  const kept = readyKept.get(pods);
  if (kept) return kept;
  const ready = new Map<string, string[]>();
  for (const p of pods) {
    if (!p.ready || p.terminating || !p.managed || p.algorithm === null || isBenchmarkPod(p)) continue;
    const key = `${p.namespace}/${p.algorithm}`;
    const list = ready.get(key);
    if (list) list.push(p.name);
    else ready.set(key, [p.name]);
  }
  readyKept.set(pods, ready);
  return ready;
}

function viewOf(
  a: ResolvedAlgorithm,
  s: World['repo']['policy']['spec']['scaling'],
  replicas: number,
): WatchedAlgorithm['view'] {
  return {
    sizing: s.sizing,
    min: a.scaling.utilization.min,
    max: a.scaling.utilization.max,
    replicas,
    minReplicas: a.scaling.minReplicas,
    maxReplicas: a.scaling.maxReplicas,
    gpus: Math.max(1, a.spec.resources.gpus),
    headroomFactor: s.headroomFactor,
    headroomDownMargin: s.headroomDownMargin,
  };
}
