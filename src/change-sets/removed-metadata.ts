/**
 * The labels and annotations a change set removes that gpuops does not write (pure): a person's
 * Pod Security label on a Namespace file, a team's annotation on a node file. The pull request
 * says so before anything else (`pr-body.ts`), so no removal passes review under a harmless title.
 * Keys gpuops writes itself (`gpuops.dev/…`, `app.kubernetes.io/managed-by`, the Argo CD and Flux
 * annotations it sets) are its own to change.
 */
import { parseAllDocuments } from 'yaml';
import type { FileChange } from '../manifests/index.js';
import { GPUOPS, MANAGED_BY } from '../util/index.js';

/** One label or annotation an updated file no longer has. */
export interface RemovedMetadata {
  path: string;
  /** `<kind>/<metadata.name>` of the object. */
  object: string;
  field: 'label' | 'annotation';
  key: string;
  value: string;
}

/** Whether gpuops writes this key itself. */
function ownKey(key: string): boolean {
  return (
    key.startsWith(GPUOPS.prefix) ||
    key === MANAGED_BY.key ||
    key.startsWith('argocd.argoproj.io/') ||
    key.startsWith('kustomize.toolkit.fluxcd.io/')
  );
}

type Meta = Map<string, { labels: Record<string, unknown>; annotations: Record<string, unknown> }>;

/**
 * A file's objects, each document without errors as `toJS` gives it. A text `parseOne` gives an
 * object for is one such document (yaml's `parse` fails on errors and on a second document), so
 * its memo stands in for parsing; anything else is parsed here.
 */
function documentsOf(text: string, parseOne: ((text: string) => unknown) | undefined): unknown[] {
  const one = parseOne?.(text);
  if (one !== null && typeof one === 'object') return [one];
  return parseAllDocuments(text).flatMap((doc) => (doc.errors.length > 0 ? [] : [doc.toJS() as unknown]));
}

function metadataOf(text: string, parseOne: ((text: string) => unknown) | undefined): Meta {
  const out: Meta = new Map();
  for (const doc of documentsOf(text, parseOne)) {
    const o = doc as { kind?: unknown; metadata?: Record<string, unknown> } | null;
    const m = o?.metadata;
    if (!m || typeof o?.kind !== 'string') continue;
    const map = (v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    out.set(`${o.kind}/${String(m.name ?? '')}`, { labels: map(m.labels), annotations: map(m.annotations) });
  }
  return out;
}

/**
 * For every file `files` update (content in `current` and in `files`): the labels and
 * annotations of its objects that the new content drops and gpuops does not write, by path, object
 * and key. A file whose every line is still there is not parsed (a pools change updates thousands
 * of node files).
 * @param parseOne how one-document texts are parsed (a reconciler keeps them:
 *   `PlanLookups.parse`, yaml's `parse`, null when it fails): a scale change set rewrites one line
 *   of its Deployment and is built again every pass while its pull request is open, so both sides
 *   are parsed once, not every pass (same result without it)
 */
export function removedMetadata(
  files: readonly FileChange[],
  current: ReadonlyMap<string, string> | undefined,
  parseOne?: (text: string) => unknown,
): RemovedMetadata[] {
  const out: RemovedMetadata[] = [];
  for (const f of files) {
    const before = current?.get(f.path);
    if (before === undefined || f.content === null || before === f.content) continue;
    const kept = new Set(f.content.split('\n'));
    if (before.split('\n').every((line) => kept.has(line))) continue;
    const after = metadataOf(f.content, parseOne);
    for (const [object, was] of metadataOf(before, parseOne)) {
      const now = after.get(object) ?? { labels: {}, annotations: {} };
      for (const field of ['label', 'annotation'] as const) {
        const [old, next] = field === 'label' ? [was.labels, now.labels] : [was.annotations, now.annotations];
        for (const [key, value] of Object.entries(old))
          if (!(key in next) && !ownKey(key))
            out.push({ path: f.path, object, field, key, value: String(value) });
      }
    }
  }
  return out;
}
