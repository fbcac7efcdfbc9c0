/**
 * Each signal's reading of a pass, attributed once (pure): the policy's metric for every GPU, and
 * each other signal its algorithms scale on (`signal-reading.ts`). Every algorithm is then judged
 * on its own signal's samples, with that reading's "no data" and "partial" messages.
 */
import { gpuSharing } from '../cluster/snapshot.js';
import type { NodeInfo, PodInfo } from '../cluster/index.js';
import { GPU_MEMORY_METRIC } from '../metrics/service-metric.js';
import type { UtilizationReading } from '../metrics/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { attribute, type AttributeOptions, type DeploymentOf } from './attribute.js';
import { attributeServiceMetric } from './attribute-service.js';
import { partialMessage } from './metrics-report.js';
import { readingFor, signalKey, signalOf } from './signal-reading.js';
import type { SeriesMemo } from './series-identity.js';
import type { Attribution, DroppedSeries } from './types.js';
import { DCGM } from '../util/index.js';

/** One signal's reading as the rules read it. */
export interface JudgedSignal {
  reading: UtilizationReading;
  /** The answer's own evaluation time (ms), or the pass's when the source gave none. */
  evaluatedAt: number;
  attribution: Attribution;
  /** `no GPU metrics (Reason): …`, or null when the reading has data. */
  noDataMessage: string | null;
  /** The store's warnings as a decision names them, or null (`partialMessage`). */
  partialData: string | null;
  /** Dropped series by `namespace/pod`. */
  droppedByPod: Map<string, DroppedSeries[]>;
}

/** What {@link judgeSignals} needs of the pass. */
export interface SignalsInput {
  /** Whose signals to judge: only their signal and namespace are read. */
  algorithms: readonly Pick<ResolvedAlgorithm, 'signal' | 'namespace'>[];
  reading: UtilizationReading;
  pods: readonly PodInfo[];
  nodes: readonly NodeInfo[];
  /** `sharedNodesOf(nodes)` when the caller kept it (the crossing trigger's judge); absent: derived. */
  sharedNodes?: ReadonlyMap<string, string>;
  policy: Policy;
  now: Date;
  deploymentOf: DeploymentOf;
  podIndex: ReadonlyMap<string, PodInfo>;
  /** Each signal's series identities kept between passes (`ScalingLookups.seriesMemo`); absent: none. */
  seriesMemo?: (signal: string) => SeriesMemo;
  /** Stands for `deploymentOf` with the memo (`AttributeOptions.deploymentKey`); absent: none. */
  deploymentKey?: object;
}

/**
 * Every signal key of `algorithms` (and the policy's own, always) judged once. The GPU signals
 * refuse a device-level value on nodes that share their GPUs (`SharedDevice`, time-slicing and
 * MPS); a service metric is the pod's own and is not refused there.
 */
export function judgeSignals(input: SignalsInput): { main: JudgedSignal; byKey: Map<string, JudgedSignal> } {
  const sharedNodes = input.sharedNodes ?? sharedNodesOf(input.nodes);
  const byKey = new Map<string, JudgedSignal>();
  const judge = (a: Pick<ResolvedAlgorithm, 'signal' | 'namespace'>): JudgedSignal => {
    const key = signalKey(a);
    const known = byKey.get(key);
    if (known) return known;
    const reading = readingFor(a, input.reading, input.policy);
    const evaluatedAt =
      reading.ok && reading.evaluatedAt !== undefined ? reading.evaluatedAt : input.now.getTime();
    const series = reading.ok ? reading.series : [];
    const at = new Date(evaluatedAt);
    const signal = signalOf(a);
    const attribution =
      signal.kind === 'serviceMetric'
        ? attributeServiceMetric(series, input.podIndex, input.policy, at, input.deploymentOf)
        : attribute(series, input.pods, input.policy, at, input.deploymentOf, input.podIndex, {
            ...gpuOptions(signal.kind),
            sharedNodes,
            ...(input.seriesMemo ? { memo: input.seriesMemo(key) } : {}),
            ...(input.deploymentKey ? { deploymentKey: input.deploymentKey } : {}),
          });
    const judged: JudgedSignal = {
      reading,
      evaluatedAt,
      attribution,
      noDataMessage: reading.ok
        ? null
        : `no ${signalName(a)} metrics (${reading.reason}): ${reading.message}`,
      partialData: partialMessage(reading),
      droppedByPod: byPodOf(attribution.dropped),
    };
    byKey.set(key, judged);
    return judged;
  };
  const main = judge({ namespace: '', signal: mainSignal(input.policy) });
  for (const a of input.algorithms) judge(a);
  return { main, byKey };
}

/**
 * The nodes whose GPUs are shared (time-slicing, MPS: `gpuSharing`), node → how, as
 * `AttributeOptions.sharedNodes` reads them: no device-level series counts as a pod's own there.
 */
export function sharedNodesOf(nodes: readonly NodeInfo[]): Map<string, string> {
  const sharedNodes = new Map<string, string>();
  for (const n of nodes) {
    const s = gpuSharing(n);
    if (s) sharedNodes.set(n.name, `${s.strategy}, ${s.replicas} replicas of each GPU`);
  }
  return sharedNodes;
}

/** How the GPU signals read their series: the metric and whether it is a ratio. */
function gpuOptions(kind: string): AttributeOptions {
  if (kind === 'gpuEngineActive') return { metric: DCGM.GR_ENGINE_ACTIVE, ratio: true };
  if (kind === 'gpuMemory') return { metric: GPU_MEMORY_METRIC, ratio: false };
  return { metric: DCGM.GPU_UTIL, ratio: false };
}

/** The signal of the policy's metric (the main reading's). */
function mainSignal(policy: Policy): ResolvedAlgorithm['signal'] {
  return policy.spec.scaling.metric === DCGM.GR_ENGINE_ACTIVE
    ? { kind: 'gpuEngineActive', unit: '%' }
    : { kind: 'gpuUtil', unit: '%' };
}

/** `GPU` for the GPU signals (as messages have always said), else the metric's name. */
function signalName(a: Pick<ResolvedAlgorithm, 'signal'>): string {
  const s = signalOf(a);
  return s.kind === 'serviceMetric' ? `service metric ${s.serviceMetric?.name ?? ''}` : 'GPU';
}

function byPodOf(dropped: readonly DroppedSeries[]): Map<string, DroppedSeries[]> {
  const out = new Map<string, DroppedSeries[]>();
  for (const d of dropped) {
    if (d.pod === '') continue;
    const key = `${d.namespace}/${d.pod}`;
    const list = out.get(key);
    if (list) list.push(d);
    else out.set(key, [d]);
  }
  return out;
}
