/**
 * What a series' labels say about it, read once per label set (pure): its GPU (`gpuKey`), the
 * workload pod it names (`workloadPod`) and that pod's `namespace/name`, and the snapshot's pod of
 * that name. A steady pass's answer has the same series in the same order as the last one, and the
 * decoder hands out the same `labels` object for a label set it read before (`LabelSetMemo`), so a
 * {@link SeriesMemo} kept between passes gives the identity of series `i` again when its labels are
 * the object the last answer had at `i`, and the pod again while the pod index is the same object
 * (the watch cache's index is kept while its pods array is: `rememberedScaling`). A label set is
 * never changed once decoded (`SeriesLabels.labels`), so the same object says the same.
 */
import type { PodInfo } from '../cluster/index.js';
import type { DroppedSeries } from './types.js';

/** The identity of one series (module comment); `pod` is '' when it names no workload pod. */
export interface SeriesIdentity {
  readonly labels: Record<string, string>;
  readonly gpu: string;
  readonly namespace: string;
  readonly pod: string;
  /** `namespace/pod`. */
  readonly podKey: string;
  /** The pod index `info` was looked up in (null: not looked up yet). */
  index: ReadonlyMap<string, PodInfo> | null;
  info: PodInfo | undefined;
  /** Its pod's `podRefusal` (`attribute.ts`), for that pod object and owner index; null: none kept. */
  refusal: { by: object; info: PodInfo; refused: Refusal | null } | null;
}

/** Why a known pod's series does not count (`podRefusal`). */
export interface Refusal {
  reason: DroppedSeries['reason'];
  message: string;
}

/**
 * One reading's identities by series position: the last answer's, and this one's as it is read;
 * and each algorithm's samples' order of the last answer (`byAlgorithm`, `attribute-count.ts`).
 */
export interface SeriesMemo {
  last: readonly SeriesIdentity[];
  next: SeriesIdentity[];
  /** By algorithm: the last answer's {@link SampleOrder} (only the algorithms it had). */
  sampleOrders: ReadonlyMap<string, SampleOrder>;
}

/**
 * An algorithm's samples' pods in the order they came (`pods`), and the positions sorting them by
 * pod gave (`order`: `order[k]` is the position of the k-th sample sorted). The sort reads the
 * pods alone and is stable, so the same pods in the same order sort the same way.
 */
export interface SampleOrder {
  pods: readonly string[];
  order: readonly number[];
}

/** An empty memo: every series is read afresh. */
export function createSeriesMemo(): SeriesMemo {
  return { last: [], next: [], sampleOrders: new Map() };
}

/**
 * The identity of series `i` with `labels`: the memo's when its last answer had the same labels
 * object at `i`, else read from the labels (and kept for the next answer). Without a memo, read.
 */
export function seriesIdentity(labels: Record<string, string>, i: number, memo?: SeriesMemo): SeriesIdentity {
  const kept = memo?.last[i];
  const id = kept !== undefined && kept.labels === labels ? kept : identityOf(labels);
  if (memo) memo.next[i] = id;
  return id;
}

/** The pod `id` names in `index` (looked up once per index object). */
export function podOf(id: SeriesIdentity, index: ReadonlyMap<string, PodInfo>): PodInfo | undefined {
  if (id.index !== index) {
    id.index = index;
    id.info = index.get(id.podKey);
  }
  return id.info;
}

/** The answer is read: its identities are the memo's last now. */
export function finishSeries(memo: SeriesMemo | undefined, count: number): void {
  if (!memo) return;
  memo.next.length = count;
  memo.last = memo.next;
  memo.next = [];
}

function identityOf(labels: Record<string, string>): SeriesIdentity {
  const { namespace, pod } = workloadPod(labels);
  return {
    labels,
    gpu: gpuKey(labels),
    namespace,
    pod,
    podKey: `${namespace}/${pod}`,
    index: null,
    info: undefined,
    refusal: null,
  };
}

/**
 * The workload pod a series names: `exported_pod`/`exported_namespace` when Prometheus renamed
 * them, else `pod`/`namespace`; none when the pod is the exporter itself (Prometheus filled the
 * page's empty `pod` with the target's own, which dcgm-exporter reports as `Hostname`).
 */
export function workloadPod(l: Record<string, string>): { namespace: string; pod: string } {
  const namespace = ('exported_namespace' in l ? l.exported_namespace : l.namespace) ?? '';
  const pod = ('exported_pod' in l ? l.exported_pod : l.pod) ?? '';
  if (!('exported_pod' in l) && pod !== '' && pod === l.Hostname) return { namespace: '', pod: '' };
  return { namespace, pod };
}

/**
 * Identity of one GPU across series: its `UUID` (plus `GPU_I_ID` for a MIG instance, which
 * shares the parent's UUID), else `<node or Hostname>/<gpu index>`.
 */
export function gpuKey(labels: Record<string, string>): string {
  const base = labels.UUID || `${labels.node ?? labels.Hostname ?? '?'}/${labels.gpu ?? '?'}`;
  return labels.GPU_I_ID ? `${base}/mig-${labels.GPU_I_ID}` : base;
}
