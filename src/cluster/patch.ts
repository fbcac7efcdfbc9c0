import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { retry } from '../retry/index.js';
import { classifyKubeError, kubeErrorText } from './kube-errors.js';
import { withOwnTaint } from './taints.js';
import {
  DEPLOYMENT_SCOPE,
  describeField,
  GPUOPS_FIELD_MANAGER,
  releaseShared,
  type HandoverScope,
  type ManagedFieldsEntry,
} from './field-ownership.js';
import type { Taint } from './types.js';

/** The outcome of patching one object. `changed: false` with `ok: true` means it already matched. */
export interface PatchResult {
  kind: 'Deployment' | 'Node';
  namespace: string | null;
  name: string;
  ok: boolean;
  changed: boolean;
  /** API calls to write it (0 when nothing had to change). */
  attempts: number;
  /** HTTP status of the last failure, when `ok` is false and there was one. */
  code: number | null;
  message: string;
}

/** Labels to set on one Node; `null` removes the label. */
export interface NodeLabelChange {
  node: string;
  labels: Record<string, string | null>;
}

/** A writer's one entry of a Node's taints: the entry of `key` becomes `taint` (`null`: removed). */
export interface NodeTaintChange {
  node: string;
  key: string;
  taint: Taint | null;
}

/** Options of {@link createClusterPatcher}. */
export interface ClusterPatcherOptions {
  /** Tries per object on conflict or transient failure (default 5). */
  maxAttempts?: number;
  /** `fieldManager` of the writes (default `gpuops`). */
  fieldManager?: string;
  /** Send `dryRun=All`: the API server validates and answers, nothing is stored. */
  dryRun?: boolean;
  /** Wait between transient retries (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
}

/** Patch-mode writes to the cluster (`scaling.mode: patch`). Never throws: results say what happened. */
export interface ClusterPatcher {
  /** Sets a Deployment's replicas through its `scale` subresource. */
  scaleDeployment(namespace: string, name: string, replicas: number): Promise<PatchResult>;
  /** Sets labels on Nodes, one merge patch per node; a failing node never stops the others. */
  labelNodes(changes: NodeLabelChange[]): Promise<PatchResult[]>;
  /**
   * Sets one Node's entry of `change.key` in `spec.taints`, keeping every other entry: the list is
   * read, changed by `withOwnTaint` and written whole with the resourceVersion read, so a taint
   * another manager adds meanwhile makes a 409 and a re-read, never a loss.
   */
  setNodeTaint(change: NodeTaintChange): Promise<PatchResult>;
  /**
   * Hands the fields of Node `node` that gpuops's field manager shares with Git's applier over to
   * it (`releaseShared` of `field-ownership.ts`): gpuops's entries of `metadata.managedFields`
   * lose them, every other entry and every value stay. The list is written whole with a JSON patch
   * carrying the resourceVersion read (a concurrent write: 409, a re-read). `changed: false`:
   * nothing shared.
   */
  releaseToGit(node: string): Promise<PatchResult>;
  /**
   * The same for Deployment `namespace/name`: its `spec.replicas`, which gpuops's scale patch owns
   * (an entry with `subresource: scale`), once Git's applier owns it too (`DEPLOYMENT_SCOPE`). Read
   * and written on the Deployment itself (`get` and `patch` on `deployments`: the API server takes
   * `managedFields` from a request only on the main resource). A Deployment not found: `changed:
   * false`, nothing to hand over.
   */
  releaseDeploymentToGit(namespace: string, name: string): Promise<PatchResult>;
}

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);

/**
 * A managedFields entry as the API server wrote it: the client library reads `time` into a `Date`,
 * which JSON would write with milliseconds; `metav1.Time` has whole seconds (RFC 3339).
 */
function asSent(entry: unknown): unknown {
  const e = entry as { time?: unknown };
  return e.time instanceof Date ? { ...e, time: e.time.toISOString().replace(/\.\d{3}Z$/, 'Z') } : entry;
}

/**
 * Read → compare → patch of one object, retried on 409 Conflict (at once) and transient errors
 * (with backoff); never throws. `read` returns the resourceVersion and the patch body to send
 * (null when nothing differs); `write` sends it.
 */
async function ensure(
  retryOptions: { maxAttempts: number; dryRun: boolean; sleep?: ClusterPatcherOptions['sleep'] },
  base: Pick<PatchResult, 'kind' | 'namespace' | 'name'>,
  whatOf: string | (() => string),
  read: () => Promise<{ resourceVersion: string | undefined; body: Record<string, unknown> | null }>,
  write: (body: Record<string, unknown>) => Promise<unknown>,
): Promise<PatchResult> {
  const label = `${base.kind} ${base.namespace ? `${base.namespace}/` : ''}${base.name}`;
  // A function: what the write is, known once the object is read.
  const what = () => (typeof whatOf === 'string' ? whatOf : whatOf());
  let attempts = 0;
  try {
    return await retry(
      async () => {
        const { resourceVersion, body } = await read();
        if (body === null) {
          return {
            ...base,
            ok: true,
            changed: false,
            attempts,
            code: null,
            message: `${label}: ${what()} already set`,
          };
        }
        attempts++;
        const metadata = { ...((body.metadata as Record<string, unknown>) ?? {}), resourceVersion };
        await write({ ...body, metadata });
        const note = attempts > 1 ? ` after ${attempts - 1} conflict(s)/retry(ies)` : '';
        return {
          ...base,
          ok: true,
          changed: true,
          attempts,
          code: null,
          message: `${label}: ${what()}${note}${retryOptions.dryRun ? ' (dry run)' : ''}`,
        };
      },
      {
        attempts: retryOptions.maxAttempts,
        // 100 ms doubling to 2 s, no jitter; a 409 (someone else wrote) re-reads and re-applies at once.
        backoff: { baseMs: 100, maxMs: 2000 },
        random: () => 1,
        retryable: (err) => {
          const { kind } = classifyKubeError(err);
          return kind === 'conflict' || kind === 'transient';
        },
        waitMs: (err, _attempt, backoffMs) => (classifyKubeError(err).kind === 'conflict' ? 0 : backoffMs),
        ...(retryOptions.sleep ? { sleep: retryOptions.sleep } : {}),
      },
    );
  } catch (err) {
    const info = classifyKubeError(err);
    const lastError = { code: info.status, message: kubeErrorText(info) };
    return {
      ...base,
      ok: false,
      changed: false,
      attempts,
      code: lastError.code,
      message: `${label}: could not set ${what()}: ${lastError.message}`,
    };
  }
}

/** An object as a hand-over reads it: its `managedFields` and resourceVersion. */
type WithManagedFields = { metadata?: { managedFields?: unknown[]; resourceVersion?: string } };

/**
 * One object's hand-over of the fields `fieldManager` shares with Git's applier (`releaseShared`
 * within `scope`): read (null: no object, nothing to do), then the whole `managedFields` list and
 * the resourceVersion read written by a JSON patch (RFC 6902) through `patch`, so a write since
 * the read makes a 409 and a re-read (`ensure`). Shared by Nodes and Deployments.
 */
function releaseFields(
  o: { retryOptions: Parameters<typeof ensure>[0]; fieldManager: string },
  base: Pick<PatchResult, 'kind' | 'namespace' | 'name'>,
  scope: HandoverScope,
  read: () => Promise<WithManagedFields | null>,
  patch: (ops: object[]) => Promise<unknown>,
): Promise<PatchResult> {
  let released: string[][] = [];
  return ensure(
    o.retryOptions,
    base,
    () =>
      released.length > 0
        ? `ownership of ${released.map(describeField).join(', ')} handed to Git’s applier`
        : 'the hand-over of fields shared with Git’s applier',
    async () => {
      const obj = await read();
      const entries = obj?.metadata?.managedFields as ManagedFieldsEntry[] | undefined;
      const next = releaseShared(entries, o.fieldManager, undefined, scope);
      released = next?.released ?? [];
      return {
        resourceVersion: obj?.metadata?.resourceVersion,
        body: next === null ? null : { metadata: { managedFields: next.entries } },
      };
    },
    (body) => {
      const metadata = body.metadata as { managedFields: unknown[]; resourceVersion?: string };
      // The resourceVersion read: the API server answers 409 when the object changed since.
      return patch([
        { op: 'replace', path: '/metadata/managedFields', value: metadata.managedFields.map(asSent) },
        { op: 'replace', path: '/metadata/resourceVersion', value: metadata.resourceVersion },
      ]);
    },
  );
}

/**
 * Builds the patch-mode adapter on a loaded kubeconfig. Each write reads the object, compares,
 * and — only when it differs — sends a JSON merge patch (RFC 7386) carrying the
 * `metadata.resourceVersion` it read, so a concurrent writer makes the API server answer 409
 * Conflict instead of being overwritten; on 409 the object is re-read and the change re-applied,
 * at most `maxAttempts` times (optimistic concurrency,
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#conflicts). Transient failures
 * (`kube-errors.ts`: HTTP 429, 5xx but 501, connection resets and timeouts) are retried with
 * backoff; anything else (403, 404, 422, 501) fails that object at once with the server's message.
 */
export function createClusterPatcher(kc: KubeConfig, options: ClusterPatcherOptions = {}): ClusterPatcher {
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const maxAttempts = options.maxAttempts ?? 5;
  const fieldManager = options.fieldManager ?? GPUOPS_FIELD_MANAGER;
  const dryRun = options.dryRun ? 'All' : undefined;
  const retryOptions = {
    maxAttempts,
    dryRun: dryRun !== undefined,
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };

  return {
    scaleDeployment(namespace, name, replicas) {
      return ensure(
        retryOptions,
        { kind: 'Deployment', namespace, name },
        `replicas ${replicas}`,
        async () => {
          const scale = await apps.readNamespacedDeploymentScale({ name, namespace });
          const current = scale.spec?.replicas;
          return {
            resourceVersion: scale.metadata?.resourceVersion,
            body: current === replicas ? null : { spec: { replicas } },
          };
        },
        (body) =>
          apps.patchNamespacedDeploymentScale({ name, namespace, body, fieldManager, dryRun }, MERGE_PATCH),
      );
    },

    async labelNodes(changes) {
      const results: PatchResult[] = [];
      for (const change of changes) {
        const what = Object.entries(change.labels)
          .map(([k, v]) => (v === null ? `-${k}` : `${k}=${v}`))
          .join(', ');
        results.push(
          await ensure(
            retryOptions,
            { kind: 'Node', namespace: null, name: change.node },
            `labels ${what}`,
            async () => {
              const node = await core.readNode({ name: change.node });
              const have = node.metadata?.labels ?? {};
              const diff: Record<string, string | null> = {};
              for (const [k, v] of Object.entries(change.labels)) {
                if (v === null ? k in have : have[k] !== v) diff[k] = v;
              }
              return {
                resourceVersion: node.metadata?.resourceVersion,
                body: Object.keys(diff).length === 0 ? null : { metadata: { labels: diff } },
              };
            },
            (body) => core.patchNode({ name: change.node, body, fieldManager, dryRun }, MERGE_PATCH),
          ),
        );
      }
      return results;
    },

    setNodeTaint(change) {
      const t = change.taint;
      const what = t ? `taint ${t.key}=${t.value ?? ''}:${t.effect}` : `no taint ${change.key}`;
      return ensure(
        retryOptions,
        { kind: 'Node', namespace: null, name: change.node },
        what,
        async () => {
          const node = await core.readNode({ name: change.node });
          // The entries as read (their timeAdded too) but gpuops's, written whole: a merge patch
          // replaces a list, and the resourceVersion sent makes a concurrent change a 409.
          const next = withOwnTaint((node.spec?.taints ?? []) as Taint[], change.key, t);
          return {
            resourceVersion: node.metadata?.resourceVersion,
            body: next === null ? null : { spec: { taints: next } },
          };
        },
        (body) => core.patchNode({ name: change.node, body, fieldManager, dryRun }, MERGE_PATCH),
      );
    },

    releaseToGit(node) {
      return releaseFields(
        { retryOptions, fieldManager },
        { kind: 'Node', namespace: null, name: node },
        {},
        () => core.readNode({ name: node }),
        (body) => core.patchNode({ name: node, body, fieldManager, dryRun }, JSON_PATCH),
      );
    },

    releaseDeploymentToGit(namespace, name) {
      return releaseFields(
        { retryOptions, fieldManager },
        { kind: 'Deployment', namespace, name },
        DEPLOYMENT_SCOPE,
        async () => {
          try {
            return await apps.readNamespacedDeployment({ name, namespace });
          } catch (err) {
            // Not created yet (a placement under review) or deleted: nothing of it to hand over.
            if (classifyKubeError(err).kind === 'not-found') return null;
            throw err;
          }
        },
        (body) => apps.patchNamespacedDeployment({ name, namespace, body, fieldManager, dryRun }, JSON_PATCH),
      );
    },
  };
}
