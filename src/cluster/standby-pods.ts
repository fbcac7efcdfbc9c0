/**
 * The cluster side of standby claims (docs/standby.md): the serving runtime's wake call and the
 * pod label patches and deletes that `scaling/rules/claim-actions.ts` plans. Runtime state only —
 * nothing here is written to Git; the pods' labels are the record, so a restart loses nothing.
 *
 * A claim wakes first and relabels second, so the algorithm's Service never lists a pod that
 * cannot serve its model yet: POST `{"algorithm": "<name>"}` to `http://<podIP>:<port><wakePath>`,
 * which must answer 2xx within the set's `claimSeconds`; an error or a timeout leaves the pod a
 * standby (the replica comes on the cold path). The label patch is a JSON merge patch (RFC 7386)
 * carrying the `resourceVersion` read just before, sent only while the pod still carries the
 * labels the pass saw (still that set's standby, or still that claim): a pod changed meanwhile
 * (another writer, a restart of gpuops mid-claim) answers 409 or is skipped, never taken twice.
 */
import {
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1Pod,
} from '@kubernetes/client-node';
import { classifyKubeError, kubeErrorText } from './kube-errors.js';

/** One pod change as `standbyActions` plans it (the fields this adapter reads). */
export interface StandbyPodAction {
  kind: 'claim' | 'give-back' | 'delete';
  namespace: string;
  pod: string;
  /** The pod's uid as the pass saw it: a pod of that name that is another object is left alone. */
  uid: string;
  labels: Record<string, string | null>;
  annotations: Record<string, string | null>;
  expect: Record<string, string>;
  wake?: { port: number; path: string; timeoutSeconds: number };
  algorithm: string;
}

/** What happened to one action; never thrown. */
export interface StandbyPodResult {
  kind: StandbyPodAction['kind'];
  namespace: string;
  pod: string;
  ok: boolean;
  message: string;
}

/** Options of {@link createStandbyPods}. */
export interface StandbyPodsOptions {
  /** The wake URL's host:port of a pod (default `<status.podIP>:<port>`; tests point it at a local server). */
  address?: (pod: { namespace: string; name: string; podIP: string | undefined }, port: number) => string;
  /** Added to `claimSeconds` before a wake counts as timed out (ms; default 1000). */
  graceMs?: number;
  /** `fieldManager` of the patches (default `gpuops`). */
  fieldManager?: string;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * What changed on the pod since the pass read it: another object of that name (`uid`), a pod being
 * deleted (`deleting`), or the first label of `a.expect` it no longer carries; undefined when none.
 */
function changedSince(pod: V1Pod, a: StandbyPodAction): string | undefined {
  const labels = pod.metadata?.labels ?? {};
  if (pod.metadata?.uid !== a.uid) return 'uid';
  if (pod.metadata?.deletionTimestamp) return 'deleting';
  return Object.entries(a.expect).find(([k, v]) => labels[k] !== v)?.[0];
}

/**
 * POSTs `{"algorithm": "<name>"}` to a serving runtime's wake URL, given `ms` milliseconds.
 * @returns null when it answered 2xx, else why not (`answered 503`, the network or timeout error)
 */
function wake(url: string, algorithm: string, ms: number): Promise<string | null> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ algorithm }),
    signal: AbortSignal.timeout(ms),
  }).then(
    (r) => (r.ok ? null : `answered ${r.status}`),
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
}

/** Applies planned standby actions through the API server and the runtimes' wake endpoints. */
export interface StandbyPods {
  /** One result per action, in order; a failing action never stops the others. */
  apply(actions: readonly StandbyPodAction[]): Promise<StandbyPodResult[]>;
}

/**
 * The adapter on a loaded kubeconfig (gpuops's ServiceAccount: the `gpuops-claim` Role grants
 * `get`, `patch` and `delete` on Pods in the standby sets' namespaces only).
 */
export function createStandbyPods(kc: KubeConfig, options: StandbyPodsOptions = {}): StandbyPods {
  const core = kc.makeApiClient(CoreV1Api);
  const fieldManager = options.fieldManager ?? 'gpuops';
  const address =
    options.address ?? ((pod: { podIP: string | undefined }, port: number) => `${pod.podIP}:${port}`);

  async function one(a: StandbyPodAction): Promise<StandbyPodResult> {
    const base = { kind: a.kind, namespace: a.namespace, pod: a.pod };
    const label = `pod ${a.namespace}/${a.pod}`;
    const pod = await core.readNamespacedPod({ name: a.pod, namespace: a.namespace });
    const moved = changedSince(pod, a);
    if (moved)
      return {
        ...base,
        ok: false,
        message: `${label}: changed since the pass read it (${moved}); left as it is`,
      };
    if (a.kind === 'delete') {
      await core.deleteNamespacedPod({ name: a.pod, namespace: a.namespace });
      return {
        ...base,
        ok: true,
        message: `${label}: deleted (claimed by ${a.algorithm}, no standby ReplicaSet to give it back to)`,
      };
    }
    if (a.wake) {
      if (!pod.status?.podIP && !options.address)
        return { ...base, ok: false, message: `${label}: has no pod IP to wake; left a standby` };
      const url = `http://${address({ namespace: a.namespace, name: a.pod, podIP: pod.status?.podIP }, a.wake.port)}${a.wake.path}`;
      const ms = a.wake.timeoutSeconds * 1000 + (options.graceMs ?? 1000);
      const woke = await wake(url, a.algorithm, ms);
      if (woke !== null)
        return {
          ...base,
          ok: false,
          message: `${label}: wake ${url} for ${a.algorithm} failed (${woke}); left a standby`,
        };
    }
    const body = {
      metadata: {
        labels: a.labels,
        annotations: a.annotations,
        resourceVersion: pod.metadata?.resourceVersion,
      },
    };
    await core.patchNamespacedPod({ name: a.pod, namespace: a.namespace, body, fieldManager }, MERGE_PATCH);
    return {
      ...base,
      ok: true,
      message:
        a.kind === 'claim' ? `${label}: claimed by ${a.algorithm}` : `${label}: given back by ${a.algorithm}`,
    };
  }

  return {
    async apply(actions) {
      const out: StandbyPodResult[] = [];
      for (const a of actions) {
        try {
          out.push(await one(a));
        } catch (err) {
          const info = classifyKubeError(err);
          out.push({
            kind: a.kind,
            namespace: a.namespace,
            pod: a.pod,
            ok: false,
            message: `pod ${a.namespace}/${a.pod}: ${a.kind} failed: ${kubeErrorText(info)}`,
          });
        }
      }
      return out;
    },
  };
}
