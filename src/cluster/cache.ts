/**
 * The watch-driven cluster cache of `gpuops run`: what a pass reads of the cluster — Nodes, live
 * Pods, ReplicaSets (which Deployment owns which pods) and the HorizontalPodAutoscalers gpuops
 * generated — listed once and then kept by watches
 * (one {@link Reflector} each), as the HPA controller and controller-runtime keep theirs. A pass
 * reads memory: `snapshot(now)` is the same {@link Snapshot} a fresh list gives
 * (`readSnapshot`), and no Kubernetes request is made for it.
 *
 * A pass never decides on records that are not known to be right: `snapshot` throws
 * {@link ClusterCacheNotSyncedError} naming the resource and why (not listed yet, relisting after
 * 410 Gone, its watch disconnected for longer than the stall bound, or nothing heard from the API
 * server — no event, no bookmark, no list — for longer than the stall bound, however open its
 * stream looks).
 */
import type {
  KubeConfig,
  V1Node,
  V1Pod,
  V1ReplicaSet,
  V2HorizontalPodAutoscaler,
} from '@kubernetes/client-node';
import { EventRate } from './event-rate.js';
import type { KubeClient } from './kube-client.js';
import { LIVE_PODS_FIELD_SELECTOR } from './read-snapshot.js';
import { Reflector, type ReflectorOptions, type ReflectorState } from './reflector.js';
import {
  assembleSnapshot,
  reduceNode,
  reducePod,
  reduceReplicaSet,
  type NodeRecord,
  type ReduceContext,
  type SnapshotOptions,
} from './snapshot.js';
import type { AutoscalerInfo, HpaStatus, PodInfo, ReplicaSetInfo, Snapshot } from './types.js';
import { reduceAutoscaler } from './autoscalers.js';
import { GPUOPS } from '../util/index.js';

/** A record and the warnings its reduction gave (rare: an unparseable quantity). */
type Warned<T> = T | { record: T; warnings: string[] };

/** One HorizontalPodAutoscaler, reduced: what it scales, and, for one gpuops generated, its status. */
interface HpaRecord {
  autoscaler: AutoscalerInfo;
  /** Set for an HPA gpuops generated (labelled with its algorithm). */
  algorithm: string | null;
  status: HpaStatus;
}

/** Raised by {@link ClusterCache.snapshot} while a resource is not known to be current. */
export class ClusterCacheNotSyncedError extends Error {
  constructor(
    message: string,
    /** The resources that are not synced, with their state. */
    readonly resources: ReflectorState[],
  ) {
    super(message);
    this.name = 'ClusterCacheNotSyncedError';
  }
}

/** Options of {@link createClusterCache}. Durations in seconds. */
export interface ClusterCacheOptions {
  kc: KubeConfig;
  /** Lists pages (`createKubeClient(kc)`). */
  client: Pick<KubeClient, 'listPages'>;
  /** See {@link ReflectorOptions.stallSeconds}; also how long a watch may stay disconnected before a pass refuses the cache. Default 120. */
  stallSeconds?: number;
  backoff?: ReflectorOptions<unknown>['backoff'];
  watchTimeoutSeconds?: () => number;
  /** Each applied event, by resource (latency and rate figures, metrics). */
  onEvent?: (resource: string, type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string) => void;
  onError?: (resource: string, what: 'list' | 'watch', message: string) => void;
  now?: () => number;
}

/** One resource of the cache as metrics and the status page show it. */
export interface CacheResourceState extends ReflectorState {
  /** Synced, heard from within the stall bound, and its watch connected or disconnected for less than it: a pass may read it. */
  current: boolean;
  /** Why it is not current (`pods: relisting after its watch expired (…)`), else null. */
  reason: string | null;
  /** ADDED, MODIFIED and DELETED events per second over the last 60 s. */
  eventsPerSecond: number;
}

/** The cache of a running controller (see the module comment). */
export interface ClusterCache {
  /** Starts every list and watch in the background. */
  start(): void;
  /** Resolves once every resource has synced (or after `timeoutSeconds`: false then). */
  waitForSync(timeoutSeconds: number): Promise<boolean>;
  /**
   * The snapshot of the records now (no request). The same arrays come back while nothing changed
   * (read-only). @throws ClusterCacheNotSyncedError
   */
  snapshot(now: Date, options?: SnapshotOptions): Snapshot;
  /** Status of the HPAs gpuops generated, by algorithm. @throws ClusterCacheNotSyncedError */
  hpaStates(): Map<string, HpaStatus>;
  /** Each resource's state (metrics, status page). */
  state(): CacheResourceState[];
  /** True when every resource is synced and connected (or disconnected within the stall bound). */
  synced(): boolean;
  stop(): Promise<void>;
}

function unwrap<T>(w: Warned<T>): T {
  return typeof w === 'object' && w !== null && 'warnings' in w ? w.record : (w as T);
}

/** A reducer keeping the warnings of each object beside its record (a shared quantity memo). */
function reducer<I, T>(reduce: (input: I, ctx: ReduceContext) => T): (o: unknown) => Warned<T> {
  const quantities = new Map<string, number>();
  return (o) => {
    if (quantities.size > 1000) quantities.clear(); // bounded: a few strings ("1", "8") repeat
    const ctx: ReduceContext = { warnings: [], quantities };
    const record = reduce(o as I, ctx);
    return ctx.warnings.length > 0 ? { record, warnings: ctx.warnings } : record;
  };
}

function hpaRecord(o: unknown): HpaRecord | undefined {
  const h = o as V2HorizontalPodAutoscaler;
  const autoscaler = reduceAutoscaler(h);
  const algorithm = autoscaler.managed ? (h.metadata?.labels?.[GPUOPS.algorithm] ?? null) : null;
  return {
    autoscaler,
    algorithm,
    status: {
      currentReplicas: h.status?.currentReplicas ?? 0,
      desiredReplicas: h.status?.desiredReplicas ?? 0,
      maxReplicas: h.spec?.maxReplicas ?? 0,
    },
  };
}

/** The cache's four reflectors (Nodes, live Pods, ReplicaSets, every HPA), not started. */
function cacheReflectors(
  o: ClusterCacheOptions,
  now: () => number,
  stallSeconds: number,
  rates: Map<string, EventRate>,
) {
  const common = (resource: string) => ({
    kc: o.kc,
    client: o.client,
    resource,
    stallSeconds,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.watchTimeoutSeconds ? { watchTimeoutSeconds: o.watchTimeoutSeconds } : {}),
    onEvent: (type: 'ADDED' | 'MODIFIED' | 'DELETED', key: string) => {
      let rate = rates.get(resource);
      if (!rate) rates.set(resource, (rate = new EventRate(60)));
      rate.record(now());
      o.onEvent?.(resource, type, key);
    },
    onError: (what: 'list' | 'watch', message: string) => o.onError?.(resource, what, message),
    now,
  });
  return {
    nodes: new Reflector<Warned<NodeRecord>>({
      ...common('nodes'),
      path: '/api/v1/nodes',
      reduce: reducer<V1Node, NodeRecord>(reduceNode),
    }),
    pods: new Reflector<Warned<PodInfo>>({
      ...common('pods'),
      path: '/api/v1/pods',
      fieldSelector: LIVE_PODS_FIELD_SELECTOR,
      reduce: reducer<V1Pod, PodInfo>(reducePod),
    }),
    replicaSets: new Reflector<ReplicaSetInfo>({
      ...common('replicasets'),
      path: '/apis/apps/v1/replicasets',
      reduce: (o) => reduceReplicaSet(o as V1ReplicaSet),
    }),
    hpas: new Reflector<HpaRecord>({
      ...common('horizontalpodautoscalers'),
      // Every HPA, not only gpuops's: another autoscaler on an algorithm's Deployment must be seen.
      path: '/apis/autoscaling/v2/horizontalpodautoscalers',
      reduce: hpaRecord,
    }),
  };
}

/**
 * Why a resource cannot be read now (not listed, relisting, disconnected or silent for over
 * `stallSeconds`), or null. `nowMs`: epoch milliseconds.
 */
function whyNotCurrent(s: ReflectorState, nowMs: number, stallSeconds: number): string | null {
  if (!s.synced) {
    if (s.lastRelistAt === null)
      return `${s.resource}: not listed yet${s.lastError ? ` (${s.lastError})` : ''}`;
    return `${s.resource}: relisting after its watch expired (${s.lastError ?? '410 Gone'})`;
  }
  const past = (t: number | null) => t !== null && nowMs - t > stallSeconds * 1000;
  if (s.disconnectedSince !== null && (past(s.disconnectedSince) || past(s.lastHeardAt)))
    return `${s.resource}: watch disconnected since ${new Date(s.disconnectedSince).toISOString()} (${s.lastError ?? 'no stream'})`;
  // An open stream proves nothing: one a stalled proxy holds is open and silent.
  if (past(s.lastHeardAt))
    return `${s.resource}: nothing heard from the API server since ${new Date(s.lastHeardAt!).toISOString()} (no event, no bookmark, no list for over ${stallSeconds} s: a stalled stream?)`;
  return null;
}

type Reflectors = ReturnType<typeof cacheReflectors>;
type SnapshotArrays = Pick<Snapshot, 'nodes' | 'pods' | 'replicaSets'> & { warnings: string[] };

/**
 * The arrays of the snapshot of the reflectors' records, and the warnings of their objects: kept
 * while no record changes (no copy, no re-reduction), keyed by the reflectors' generations.
 */
function snapshotArrays(r: Pick<Reflectors, 'nodes' | 'pods' | 'replicaSets'>) {
  let last: (SnapshotArrays & { key: string }) | undefined;
  return (at: Date, options: SnapshotOptions): SnapshotArrays => {
    const key = `${r.nodes.generation()}/${r.pods.generation()}/${r.replicaSets.generation()}/${options.poolLabel ?? ''}`;
    if (last?.key !== key) {
      const warnings: string[] = [];
      const podInfos = r.pods.records().map((w) => {
        if (typeof w === 'object' && 'warnings' in w) warnings.push(...w.warnings);
        return unwrap(w);
      });
      const nodeRecords = r.nodes.records().map((w) => {
        if ('warnings' in w) warnings.push(...w.warnings);
        return unwrap(w);
      });
      const sets = r.replicaSets.records();
      const built = assembleSnapshot(nodeRecords, podInfos, warnings, at, options, sets);
      last = { key, nodes: built.nodes, pods: built.pods, replicaSets: sets, warnings };
    }
    return last;
  };
}

/** Builds the cache (not started). */
export function createClusterCache(o: ClusterCacheOptions): ClusterCache {
  const now = o.now ?? Date.now;
  const stallSeconds = o.stallSeconds ?? 120;
  const rates = new Map<string, EventRate>();
  const { nodes, pods, replicaSets, hpas } = cacheReflectors(o, now, stallSeconds, rates);
  const all = [nodes, pods, replicaSets, hpas] as Reflector<unknown>[];
  const notCurrent = (s: ReflectorState) => whyNotCurrent(s, now(), stallSeconds);
  const requireSynced = (which: Reflector<unknown>[]) => {
    const states = which.map((r) => r.state());
    const reasons = states.map(notCurrent).filter((r): r is string => r !== null);
    if (reasons.length > 0)
      throw new ClusterCacheNotSyncedError(
        `cluster cache not synced: ${reasons.join('; ')}`,
        states.filter((s) => notCurrent(s) !== null),
      );
  };
  const arrays = snapshotArrays({ nodes, pods, replicaSets });

  return {
    start: () => all.forEach((r) => r.start()),
    waitForSync: async (timeoutSeconds) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((r) => (timer = setTimeout(() => r(false), timeoutSeconds * 1000)));
      const ok = await Promise.race([Promise.all(all.map((r) => r.synced())).then(() => true), timeout]);
      clearTimeout(timer);
      return ok && all.every((r) => r.state().synced);
    },
    snapshot: (at, options = {}) => {
      requireSynced([nodes, pods, replicaSets]);
      const last = arrays(at, options);
      const snapshot: Snapshot = {
        takenAt: at.toISOString(),
        nodes: last.nodes,
        pods: last.pods,
        replicaSets: last.replicaSets,
      };
      if (last.warnings.length > 0) snapshot.warnings = last.warnings;
      // HPAs ride along when current; a snapshot never waits for them (a warning, not a failed pass).
      const hpaReason = notCurrent(hpas.state());
      if (hpaReason === null) snapshot.autoscalers = hpas.records().map((h) => h.autoscaler);
      else
        snapshot.warnings = [
          ...(snapshot.warnings ?? []),
          `HorizontalPodAutoscalers not current: ${hpaReason}`,
        ];
      return snapshot;
    },
    hpaStates: () => {
      requireSynced([hpas]);
      const out = new Map<string, HpaStatus>();
      for (const h of hpas.records()) if (h.algorithm !== null) out.set(h.algorithm, h.status);
      return out;
    },
    state: () =>
      all.map((r) => {
        const s = r.state();
        const reason = notCurrent(s);
        return {
          ...s,
          current: reason === null,
          reason,
          eventsPerSecond: rates.get(s.resource)?.perSecond(now()) ?? 0,
        };
      }),
    synced: () => all.every((r) => notCurrent(r.state()) === null),
    stop: async () => {
      await Promise.all(all.map((r) => r.stop()));
    },
  };
}
