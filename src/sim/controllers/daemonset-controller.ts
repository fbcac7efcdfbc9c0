/**
 * The simulated DaemonSet controller (apps/v1): one pod per node that should run the daemon, as
 * kube-controller-manager's `daemon` controller decides it (`NodeShouldRunDaemonPod`):
 * - the node matches the template's `nodeSelector` and required node affinity, and every
 *   `NoSchedule` / `NoExecute` taint on it is tolerated by the template's tolerations plus the
 *   ones the controller adds to every daemon pod (`not-ready` and `unreachable` `NoExecute`,
 *   `disk-pressure`, `memory-pressure`, `pid-pressure` and `unschedulable` `NoSchedule`), so a
 *   cordoned or NotReady node keeps its daemon pod;
 * - each pod is made from the template, named `<daemonset>-<5 chars>`, owned by the DaemonSet,
 *   labelled `controller-revision-hash` (the template's hash), and pinned to its node by a
 *   required node affinity on `metadata.name` (the scheduler binds it, as since Kubernetes 1.12);
 * - pods on nodes that should not run it any more (a label or a taint changed), surplus pods on a
 *   node and finished (Failed, Succeeded) pods are deleted; a node that lost its pod gets a new one;
 * - with `updateStrategy: RollingUpdate` (the default) pods of an older template are deleted while
 *   at most `maxUnavailable` (default 1; a percentage of the nodes that should run it, rounded up)
 *   of the nodes are without a Ready pod; `OnDelete` replaces a pod only once it is deleted.
 * Status: `desiredNumberScheduled`, `currentNumberScheduled`, `numberMisscheduled`,
 * `numberReady`, `numberAvailable`, `numberUnavailable`, `updatedNumberScheduled`,
 * `observedGeneration`.
 */
import { SimApiError, type KubeObject, type SimController, type SimStore } from '../types.js';
import { ChangeGate } from './gate.js';
import { nameSuffix, podTemplateHash } from './names.js';
import { byOwner, isPodReady, isTerminal, ownedFrom, ownerReference } from './pods.js';
import { readAll, writeChangedStatus } from './read.js';
import {
  matchesNodeAffinity,
  podConstraintsOf,
  toleratesTaint,
  type Toleration,
} from '../../cluster/index.js';
import type { Taint } from '../../cluster/index.js';

/** Label holding the template's hash on a DaemonSet's pods (kube-controller-manager's). */
export const REVISION_LABEL = 'controller-revision-hash';

/** The tolerations the DaemonSet controller adds to every daemon pod (`AddOrUpdateDaemonPodTolerations`). */
export const DAEMON_TOLERATIONS: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

type Template = { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> };

/** The template's tolerations plus {@link DAEMON_TOLERATIONS} (those it lacks). */
function daemonTolerations(spec: Record<string, unknown> | undefined): Toleration[] {
  const own = (spec?.tolerations as Toleration[] | undefined) ?? [];
  const added = DAEMON_TOLERATIONS.filter((d) => !own.some((t) => t.key === d.key && t.effect === d.effect));
  return [...own, ...added];
}

/**
 * Whether `node` should run a pod of `ds` (module comment): node selector and required affinity
 * match, every `NoSchedule`/`NoExecute` taint tolerated.
 */
export function shouldRunOn(ds: KubeObject, node: KubeObject): boolean {
  const spec = (ds.spec?.template as Template | undefined)?.spec;
  const filterNode = { name: node.metadata.name, labels: node.metadata.labels ?? {}, taints: [] };
  if (!matchesNodeAffinity(podConstraintsOf('', {}, spec), filterNode)) return false;
  const tolerations = daemonTolerations(spec);
  const taints = (node.spec?.taints as Taint[] | undefined) ?? [];
  return taints
    .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
    .every((taint) => tolerations.some((t) => toleratesTaint(t, taint)));
}

/** The daemon pod of `ds` for `node` (not stored): the template pinned to the node. */
export function daemonPod(ds: KubeObject, node: string, index: number): KubeObject {
  const tpl = (ds.spec?.template ?? {}) as Template;
  const spec = structuredClone(tpl.spec ?? {});
  spec.tolerations = daemonTolerations(tpl.spec);
  const affinity = (spec.affinity ?? {}) as Record<string, unknown>;
  // `ReplaceDaemonSetPodNodeNameNodeAffinity`: the required terms become the node's name alone.
  spec.affinity = {
    ...affinity,
    nodeAffinity: {
      ...((affinity.nodeAffinity as Record<string, unknown> | undefined) ?? {}),
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }],
      },
    },
  };
  const metadata: KubeObject['metadata'] = {
    name: `${ds.metadata.name}-${nameSuffix(`${ds.metadata.uid ?? ds.metadata.name}/${node}/${index}`)}`,
    namespace: ds.metadata.namespace,
    labels: { ...(tpl.metadata?.labels ?? {}), [REVISION_LABEL]: podTemplateHash(tpl) },
    ownerReferences: [ownerReference(ds)],
  };
  if (tpl.metadata?.annotations) metadata.annotations = { ...tpl.metadata.annotations };
  return { apiVersion: 'v1', kind: 'Pod', metadata, spec, status: { phase: 'Pending' } };
}

/** The node a daemon pod is for: its binding, else its `metadata.name` affinity. */
function nodeOfPod(pod: KubeObject): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName as string;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution
    ?.nodeSelectorTerms as { matchFields?: { key: string; values?: string[] }[] }[] | undefined;
  return terms?.[0]?.matchFields?.find((f) => f.key === 'metadata.name')?.values?.[0];
}

/** `maxUnavailable` of a rolling update as a pod count of `desired` (percentages round up), at least 1. */
export function maxUnavailable(ds: KubeObject, desired: number): number {
  const v = ds.spec?.updateStrategy?.rollingUpdate?.maxUnavailable as string | number | undefined;
  if (typeof v === 'number') return Math.max(1, v);
  if (typeof v === 'string' && v.endsWith('%'))
    return Math.max(1, Math.ceil((desired * Number(v.slice(0, -1))) / 100));
  return 1;
}

/** Brings one DaemonSet's pods to one per node that should run it, and writes its status. */
export function syncDaemonSet(
  store: SimStore,
  ds: KubeObject,
  nodes: readonly KubeObject[],
  owned: KubeObject[],
): void {
  const hash = podTemplateHash(ds.spec?.template ?? {});
  const live = owned.filter((p) => !p.metadata.deletionTimestamp);
  const remove = (p: KubeObject) => store.delete('pods', p.metadata.namespace, p.metadata.name);
  const wanted = new Set(nodes.filter((n) => shouldRunOn(ds, n)).map((n) => n.metadata.name));
  const byNode = new Map<string, KubeObject[]>();
  for (const p of live) {
    const node = nodeOfPod(p);
    if (isTerminal(p) || node === undefined || !wanted.has(node)) {
      remove(p);
      continue;
    }
    byNode.set(node, [...(byNode.get(node) ?? []), p]);
  }
  const kept = new Map<string, KubeObject>();
  for (const [node, pods] of byNode) {
    const [first, ...surplus] = pods.sort((a, b) => Number(isPodReady(b)) - Number(isPodReady(a)));
    surplus.forEach(remove);
    kept.set(node, first!);
  }
  for (const node of [...wanted].sort()) {
    if (kept.has(node)) continue;
    for (let index = 0; index < 100 && !kept.has(node); index++) {
      try {
        kept.set(node, store.create('pods', daemonPod(ds, node, index)));
      } catch (err) {
        if (!(err instanceof SimApiError && err.code === 409)) throw err;
      }
    }
  }
  const outdated = [...kept.values()].filter((p) => p.metadata.labels?.[REVISION_LABEL] !== hash);
  if (outdated.length > 0 && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
    let room = maxUnavailable(ds, wanted.size) - [...kept.values()].filter((p) => !isPodReady(p)).length;
    for (const p of outdated.sort((a, b) => (nodeOfPod(a)! < nodeOfPod(b)! ? -1 : 1))) {
      if (!isPodReady(p)) {
        remove(p);
        kept.delete(nodeOfPod(p)!);
      } else if (room > 0) {
        remove(p);
        kept.delete(nodeOfPod(p)!);
        room--;
      }
    }
  }
  writeStatus(store, ds, wanted.size, [...kept.values()], hash);
}

function writeStatus(
  store: SimStore,
  ds: KubeObject,
  desired: number,
  pods: KubeObject[],
  hash: string,
): void {
  const scheduled = pods.filter((p) => p.spec?.nodeName);
  const ready = pods.filter(isPodReady).length;
  const status: Record<string, unknown> = {
    desiredNumberScheduled: desired,
    currentNumberScheduled: scheduled.length,
    numberMisscheduled: 0,
    numberReady: ready,
    numberAvailable: ready,
    numberUnavailable: Math.max(0, desired - ready),
    updatedNumberScheduled: scheduled.filter((p) => p.metadata.labels?.[REVISION_LABEL] === hash).length,
    observedGeneration: ds.metadata.generation ?? 1,
  };
  writeChangedStatus(store, 'daemonsets', ds.metadata.namespace, ds.metadata.name, status);
}

/** The DaemonSet controller as a {@link SimController}. */
export function daemonSetController(): SimController {
  const gate = new ChangeGate();
  return {
    name: 'daemonset',
    reconcile(store: SimStore, now: Date): void {
      if (!gate.open(store, now)) return;
      const rv = store.resourceVersion();
      const sets = readAll(store, 'daemonsets');
      if (sets.length > 0) {
        const nodes = readAll(store, 'nodes');
        const pods = byOwner(readAll(store, 'pods'));
        for (const ds of sets) {
          try {
            syncDaemonSet(store, ds, nodes, ownedFrom(pods, ds));
          } catch (err) {
            if (!(err instanceof SimApiError)) throw err; // a bug, not a race: let the simulator report it
            // Changed or deleted meanwhile: the next pass works on the current object.
          }
        }
      }
      gate.close(rv);
    },
  };
}
