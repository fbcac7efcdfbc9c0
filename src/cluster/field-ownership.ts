/**
 * Handing fields over to Git's applier (pure). In patch mode gpuops writes a field (a Node's pool
 * label; a Deployment's `spec.replicas`, through `scale`: {@link DEPLOYMENT_SCOPE}) itself and
 * commits the same value to Git; Argo CD or Flux then applies it with server-side
 * apply, and both field managers own it. Server-side apply removes a field an applier stops
 * applying only when no other manager owns it
 * (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management): while
 * gpuops's manager still owns the field, a person's removal of it in Git leaves it on the object.
 * So once an applier of Git owns a field gpuops owns too (the same value: one field has one value),
 * gpuops drops the field from its own `managedFields` entry: the value stays (Git's applier owns
 * it) and from then on Git alone decides it. Only gpuops's own entries change; the list is written
 * back whole with a JSON patch, as Kubernetes' own hand-over of client-side-apply fields does
 * (`k8s.io/client-go/util/csaupgrade`) and Flux's takeover of `kubectl`'s fields
 * (`fluxcd/pkg/ssa`, `PatchReplaceFieldsManagers`).
 *
 * `spec.taints` is never handed over: it is atomic for server-side apply, Git never holds it
 * (`manifests/nodes.ts`), and gpuops's own entry of it is kept by its own bookkeeping
 * (`pass/pool-taint-handover.ts`).
 */

/** A `fieldsV1` tree: `f:<field>`, `k:<key>`, `v:<value>`, `i:<index>` and `.` (the node itself), each `{}` at a leaf. */
export interface FieldsV1 {
  [key: string]: FieldsV1;
}

/** The parts of a `metadata.managedFields` entry this module reads (the rest is carried as it is). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsV1?: FieldsV1;
  [other: string]: unknown;
}

/**
 * The field managers of Git's appliers, with server-side apply (operation `Apply`): Flux's
 * kustomize-controller (`fluxcd/pkg/ssa`'s owner, the controller's name) and Argo CD's
 * `argocd-controller` (`ServerSideApply=true`, the sync option the Node files carry).
 */
export const GIT_APPLIERS: readonly string[] = ['kustomize-controller', 'argocd-controller'];

/** gpuops's own field manager: the `fieldManager` of every patch-mode write (`cluster/patch.ts`). */
export const GPUOPS_FIELD_MANAGER = 'gpuops';

/** Fields never handed over: the atomic `spec.taints` (see the module's note). */
const KEPT: readonly (readonly string[])[] = [['f:spec', 'f:taints']];

/** Every path to a leaf (`{}`) of a fields tree, each as its list of keys. */
function leaves(tree: FieldsV1 | undefined, prefix: string[] = []): string[][] {
  if (!tree || typeof tree !== 'object') return [];
  const keys = Object.keys(tree);
  if (keys.length === 0) return prefix.length > 0 ? [prefix] : [];
  return keys.flatMap((k) => leaves(tree[k], [...prefix, k]));
}

const pathKey = (p: readonly string[]) => p.join('\u0000');
const kept = (p: readonly string[]) => KEPT.some((k) => k.every((part, i) => p[i] === part));

/**
 * Which of `own`'s entries a hand-over reads and changes: those on the main resource, and those of
 * the `subresources` named. A write through a Deployment's `scale` subresource is kept in the
 * Deployment's own `managedFields` as an entry with `subresource: scale` whose fields are the
 * Deployment's path `spec.replicas` (`k8s.io/apiserver` `managedfields` `ScaleHandler.ToParent`):
 * it is handed over like a field written on the Deployment itself. Default: the main resource only.
 */
export interface HandoverScope {
  subresources?: readonly string[];
}

/** A Deployment's scope: gpuops writes its replicas through `scale` (`cluster/patch.ts`). */
export const DEPLOYMENT_SCOPE: HandoverScope = { subresources: ['scale'] };

/** Entries of `own` on the main resource or a subresource of `scope`: the ones this module may change. */
const isOwn = (e: ManagedFieldsEntry, own: string, scope: HandoverScope) =>
  e.manager === own && (!e.subresource || (scope.subresources ?? []).includes(e.subresource));
const isApplier = (e: ManagedFieldsEntry, appliers: readonly string[]) =>
  e.operation === 'Apply' && !e.subresource && appliers.includes(e.manager ?? '');

/**
 * The leaf paths (each a list of `fieldsV1` keys, e.g. `['f:metadata','f:labels','f:gpuops.dev/pool']`)
 * that an entry of the manager `own` owns on the main resource (or a subresource of `scope`) and an
 * `Apply` entry of one of `appliers` on the main resource owns too, but `spec.taints`. Sorted;
 * empty when none (also when `entries` is absent).
 */
export function sharedWithApplier(
  entries: readonly ManagedFieldsEntry[] | undefined,
  own: string,
  appliers: readonly string[] = GIT_APPLIERS,
  scope: HandoverScope = {},
): string[][] {
  const mine = (entries ?? []).filter((x) => isOwn(x, own, scope));
  if (!entries || mine.length === 0) return [];
  const theirs = new Set(
    entries.filter((e) => isApplier(e, appliers)).flatMap((e) => leaves(e.fieldsV1).map(pathKey)),
  );
  if (theirs.size === 0) return [];
  const shared = new Map<string, string[]>();
  for (const e of mine)
    for (const p of leaves(e.fieldsV1)) if (!kept(p) && theirs.has(pathKey(p))) shared.set(pathKey(p), p);
  return [...shared.keys()].sort().map((k) => shared.get(k)!);
}

/** `tree` without the leaf at `path`; parents the removal empties go too. A copy; `tree` is kept. */
function without(tree: FieldsV1, path: readonly string[]): FieldsV1 {
  const [head, ...rest] = path;
  if (head === undefined || !(head in tree)) return tree;
  const out: FieldsV1 = { ...tree };
  if (rest.length === 0) delete out[head];
  else {
    const child = without(tree[head]!, rest);
    if (Object.keys(child).length === 0) delete out[head];
    else out[head] = child;
  }
  return out;
}

/**
 * `entries` with the fields {@link sharedWithApplier} finds dropped from every entry of `own` on
 * the main resource (or a subresource of `scope`); an entry left with no field goes. Every other
 * entry is returned as it is, in its place. Null when nothing is shared (nothing to write).
 */
export function releaseShared(
  entries: readonly ManagedFieldsEntry[] | undefined,
  own: string,
  appliers: readonly string[] = GIT_APPLIERS,
  scope: HandoverScope = {},
): { entries: ManagedFieldsEntry[]; released: string[][] } | null {
  const released = sharedWithApplier(entries, own, appliers, scope);
  if (released.length === 0 || !entries) return null;
  const next: ManagedFieldsEntry[] = [];
  for (const e of entries) {
    if (!isOwn(e, own, scope)) {
      next.push(e);
      continue;
    }
    const fields = released.reduce((t, p) => without(t, p), e.fieldsV1 ?? {});
    if (Object.keys(fields).length > 0) next.push({ ...e, fieldsV1: fields });
  }
  return { entries: next, released };
}

/**
 * A released path for a log line: `labels gpuops.dev/pool`, `spec.replicas`; other paths as their
 * keys without the `f:` prefixes, joined by dots.
 */
export function describeField(path: readonly string[]): string {
  const plain = path.map((p) => p.replace(/^f:/, ''));
  if (plain[0] === 'metadata' && (plain[1] === 'labels' || plain[1] === 'annotations') && plain[2])
    return `${plain[1]} ${plain.slice(2).join('.')}`;
  return plain.join('.');
}
