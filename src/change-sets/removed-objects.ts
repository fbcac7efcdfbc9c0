/**
 * The live objects a change set takes away: every object of a file it deletes, and every object a
 * file it rewrites no longer holds (a file that now names another object replaces the old one).
 * The base branch's files are what Argo CD or Flux applied, so each is live; an applier that
 * prunes (the shipped Argo CD Application and Flux Kustomization both do) deletes them when it
 * syncs the merge. A reviewer must read that in the title and on the body's first line, with the
 * replicas a Deployment runs now: a pull request that takes a serving Deployment down is a
 * removal, never "update placement". Pure: files, base files and running replicas in, a sorted
 * list out.
 *
 * Left out: an object that tells both appliers never to prune it (Argo CD's
 * `argocd.argoproj.io/sync-options` with `Prune=false` and Flux's
 * `kustomize.toolkit.fluxcd.io/prune: disabled`, as gpuops's Node and Namespace manifests do), and
 * a `kustomize.config.k8s.io` Kustomization (a build file, no object in the cluster).
 */
import { parseAllDocuments } from 'yaml';
import type { FileChange } from './types.js';

/** One live object that merging the change set deletes. */
export interface RemovedObject {
  kind: string;
  /** `metadata.name`. */
  name: string;
  /** `metadata.namespace`; null when the manifest names none (cluster-scoped, or the applier's default). */
  namespace: string | null;
  /** The base-branch file it is in. */
  path: string;
  /** A Deployment's pods Running now (from the snapshot); null for other kinds or when unknown. */
  runningReplicas: number | null;
}

type Identity = Omit<RemovedObject, 'path' | 'runningReplicas'> & { key: string };

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Whether the object's annotations keep it from both appliers' pruning (see the module comment). */
function neverPruned(annotations: Record<string, unknown>): boolean {
  const argo = String(annotations['argocd.argoproj.io/sync-options'] ?? '');
  const flux = String(annotations['kustomize.toolkit.fluxcd.io/prune'] ?? '');
  return /(^|,)\s*Prune=false\s*(,|$)/.test(argo) && flux === 'disabled';
}

/** The prunable objects of a file's text (a document that does not parse, or has no kind and name, is left out). */
function objectsOf(text: string): Identity[] {
  const out: Identity[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) continue;
    const o = record(doc.toJS());
    const meta = record(o.metadata);
    if (typeof o.kind !== 'string' || typeof meta.name !== 'string') continue;
    if (String(o.apiVersion ?? '').startsWith('kustomize.config.k8s.io/')) continue;
    if (neverPruned(record(meta.annotations))) continue;
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : null;
    out.push({
      kind: o.kind,
      name: meta.name,
      namespace,
      key: `${o.kind}\0${namespace ?? ''}\0${meta.name}`,
    });
  }
  return out;
}

/**
 * The lines that name a file's objects (`apiVersion:`, `kind:`, and `name:`/`namespace:` two
 * spaces in): equal in both texts, the rewrite keeps every object, and nothing is parsed (a scale
 * change rewrites only `spec.replicas`; a pools change thousands of node labels).
 */
function identityLines(text: string): string {
  return (text.match(/^(?:apiVersion|kind):.*$|^ {2}(?:name|namespace):.*$|^---.*$/gm) ?? []).join('\n');
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The live objects `files` remove from the base branch `current` (see the module comment),
 * sorted by kind, namespace, then name.
 * @param running a Deployment's Running pods by `namespace/name` (from the snapshot); a
 *   Deployment absent from it runs none (0), and without the map its count is null (unknown)
 */
export function removedObjects(
  files: readonly FileChange[],
  current: ReadonlyMap<string, string> | undefined,
  running?: ReadonlyMap<string, number>,
): RemovedObject[] {
  const out: RemovedObject[] = [];
  for (const f of files) {
    const before = current?.get(f.path);
    if (before === undefined) continue;
    if (f.content !== null && identityLines(f.content) === identityLines(before)) continue;
    const kept = new Set(f.content === null ? [] : objectsOf(f.content).map((o) => o.key));
    for (const { key, ...o } of objectsOf(before)) {
      if (kept.has(key)) continue;
      const replicas =
        o.kind === 'Deployment' && running ? (running.get(`${o.namespace ?? ''}/${o.name}`) ?? 0) : null;
      out.push({ ...o, path: f.path, runningReplicas: replicas });
    }
  }
  return out.sort(
    (a, b) => cmp(a.kind, b.kind) || cmp(a.namespace ?? '', b.namespace ?? '') || cmp(a.name, b.name),
  );
}

/** `Deployment algorithms/resnet50 (3 running replicas)`, `Service algorithms/resnet50`. */
export function describeRemoved(o: RemovedObject, named = true): string {
  const where = named ? ` ${o.namespace ? `${o.namespace}/` : ''}${o.name}` : '';
  const n = o.runningReplicas;
  return `${o.kind}${where}${n === null ? '' : ` (${n} running ${n === 1 ? 'replica' : 'replicas'})`}`;
}
