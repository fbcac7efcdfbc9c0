/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`), simplified from the API
 * server's structured-merge-diff:
 * - the applied configuration is merged into the live object with strategic-merge rules (lists
 *   with a merge key merge by key; other lists are atomic);
 * - each field manager's set of owned fields is kept in `metadata.managedFields` (FieldsV1 format,
 *   `operation: Apply`); a field the manager applied before and omits now is removed, unless
 *   another apply manager also owns it;
 * - applying a different value to a field another apply manager owns is a 409 Conflict unless
 *   `force=true`, which moves ownership.
 * Not modelled: ownership taken by Update operations (PUT/PATCH), so they never conflict.
 */
import { mergeKeyOf, strategicMergePatch } from './patch.js';
import { SimApiError, type KubeObject } from './types.js';
import { sameJson } from './json-equal.js';

/** A FieldsV1 tree: `f:<field>`, `k:<json key>` for list elements, `.` for the element itself. */
export type FieldSet = { [key: string]: FieldSet };

interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: FieldSet;
  subresource?: string;
}

const SKIP_TOP = new Set(['apiVersion', 'kind', 'status']);
const SKIP_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'deletionTimestamp',
  'selfLink',
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The fields an applied configuration sets, as a FieldsV1 tree. */
export function fieldsOf(value: Record<string, unknown>, top = true, inMeta = false): FieldSet {
  const out: FieldSet = {};
  for (const [k, v] of Object.entries(value)) {
    if (top && SKIP_TOP.has(k)) continue;
    if (inMeta && SKIP_META.has(k)) continue;
    if (v === null || v === undefined) continue;
    if (isObject(v) && Object.keys(v).length > 0) {
      const sub = fieldsOf(v, false, top && k === 'metadata');
      // `metadata` with only name/namespace sets no field of its own.
      if (Object.keys(sub).length > 0 || !(top && k === 'metadata')) out[`f:${k}`] = sub;
    } else if (Array.isArray(v)) {
      const key = mergeKeyOf(k, v);
      if (key && v.length > 0 && v.every(isObject)) {
        const items: FieldSet = {};
        for (const item of v as Record<string, unknown>[]) {
          items[`k:${JSON.stringify({ [key]: item[key] })}`] = { '.': {}, ...fieldsOf(item, false) };
        }
        out[`f:${k}`] = items;
      } else if (k === 'finalizers') {
        const items: FieldSet = {};
        for (const item of v) items[`v:${JSON.stringify(item)}`] = {};
        out[`f:${k}`] = items;
      } else out[`f:${k}`] = {};
    } else out[`f:${k}`] = {};
  }
  return out;
}

/** Leaf paths of a field set (a path ends at `{}` or at a `.` element marker). */
function leaves(set: FieldSet, prefix: string[] = []): string[][] {
  const out: string[][] = [];
  for (const [k, sub] of Object.entries(set)) {
    const path = [...prefix, k];
    if (Object.keys(sub).length === 0) out.push(path);
    else out.push(...leaves(sub, path));
  }
  return out;
}

function has(set: FieldSet | undefined, path: string[]): boolean {
  let cur = set;
  for (const p of path) {
    if (!cur || !(p in cur)) return false;
    cur = cur[p];
  }
  return true;
}

function removePath(set: FieldSet, path: string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || !(head in set)) return;
  if (rest.length === 0) delete set[head];
  else {
    removePath(set[head]!, rest);
    if (Object.keys(set[head]!).length === 0) delete set[head];
  }
}

/** Reads the value at a FieldsV1 path in an object; `found` false when absent. */
function valueAt(obj: unknown, path: string[]): { found: boolean; value?: unknown } {
  let cur: unknown = obj;
  for (const p of path) {
    if (p === '.') return { found: true, value: cur };
    if (p.startsWith('f:')) {
      if (!isObject(cur) || !(p.slice(2) in cur)) return { found: false };
      cur = cur[p.slice(2)];
    } else if (p.startsWith('k:')) {
      const key = JSON.parse(p.slice(2)) as Record<string, unknown>;
      if (!Array.isArray(cur)) return { found: false };
      const [[kf, kv]] = Object.entries(key) as [[string, unknown]];
      cur = cur.find((i) => isObject(i) && i[kf] === kv);
      if (cur === undefined) return { found: false };
    } else if (p.startsWith('v:')) {
      const v = JSON.parse(p.slice(2)) as unknown;
      return { found: Array.isArray(cur) && cur.includes(v), value: v };
    } else return { found: false };
  }
  return { found: true, value: cur };
}

/** Deletes the field at a FieldsV1 path (a `.` marker deletes the list element itself). */
function deleteAt(obj: unknown, path: string[]): void {
  const last = path[path.length - 1]!;
  const elementPath = last === '.' ? path.slice(0, -1) : path;
  const parentPath = elementPath.slice(0, -1);
  const target = elementPath[elementPath.length - 1]!;
  const parent = valueAt(obj, parentPath);
  if (!parent.found) return;
  if (target.startsWith('f:') && isObject(parent.value)) delete parent.value[target.slice(2)];
  else if ((target.startsWith('k:') || target.startsWith('v:')) && Array.isArray(parent.value)) {
    const el = valueAt(obj, elementPath);
    if (!el.found) return;
    const list = parent.value;
    const idx = target.startsWith('v:') ? list.indexOf(el.value) : list.indexOf(el.value);
    if (idx >= 0) list.splice(idx, 1);
  }
}

/** Options of one apply request. */
export interface ApplyOptions {
  manager: string;
  force: boolean;
  apiVersion: string;
  now: Date;
}

/**
 * Applies `config` (a partial object) over `live` (undefined: create) for `manager`. Returns the
 * new object, with `metadata.managedFields` updated. `status` in the config is ignored.
 * @throws SimApiError 409 Conflict when another apply manager owns a field set to a different value
 */
export function serverSideApply(
  live: KubeObject | undefined,
  config: KubeObject,
  opts: ApplyOptions,
): KubeObject {
  const applied = structuredClone(config) as KubeObject;
  delete applied.status;
  const newSet = fieldsOf(applied as unknown as Record<string, unknown>);
  const managed: ManagedEntry[] = structuredClone(
    (live?.metadata.managedFields as ManagedEntry[] | undefined) ?? [],
  );
  const mine = managed.find((m) => m.manager === opts.manager && m.operation === 'Apply' && !m.subresource);
  const others = managed.filter((m) => m !== mine && m.operation === 'Apply' && !m.subresource);

  if (live) {
    const conflicts: string[] = [];
    for (const path of leaves(newSet)) {
      // Owning a list element's existence (`.`) never conflicts; its fields may.
      if (path[path.length - 1] === '.') continue;
      const owners = others.filter((o) => has(o.fieldsV1, path));
      if (owners.length === 0) continue;
      const before = valueAt(live, path);
      const after = valueAt(applied, path);
      if (before.found && after.found && sameJson(before.value, after.value)) continue;
      if (opts.force) for (const o of owners) removePath(o.fieldsV1 ?? {}, path);
      else
        conflicts.push(
          `conflict with "${owners[0]!.manager}": ${path.map((p) => p.replace(/^f:/, '')).join('.')}`,
        );
    }
    if (conflicts.length > 0) {
      throw new SimApiError(
        409,
        'Conflict',
        `Apply failed with ${conflicts.length} conflict(s): ${conflicts.join('; ')}`,
      );
    }
  }

  const base = live ? structuredClone(live) : undefined;
  const merged = strategicMergePatch(base, applied) as KubeObject;
  if (live) merged.status = live.status;

  // Fields this manager applied before and omits now: remove them unless someone else owns them.
  if (mine?.fieldsV1) {
    for (const path of leaves(mine.fieldsV1)) {
      if (has(newSet, path)) continue;
      if (others.some((o) => has(o.fieldsV1, path))) continue;
      deleteAt(merged, path);
    }
  }

  // An unchanged field set keeps its entry as is, so a no-op apply (Argo CD re-syncing) changes
  // nothing and does not bump the resourceVersion.
  const unchanged = mine !== undefined && sameJson(mine.fieldsV1, newSet);
  const entry: ManagedEntry = unchanged
    ? mine
    : {
        manager: opts.manager,
        operation: 'Apply',
        apiVersion: opts.apiVersion,
        time: opts.now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        fieldsType: 'FieldsV1',
        fieldsV1: newSet,
      };
  const entries = mine ? managed.map((m) => (m === mine ? entry : m)) : [...managed, entry];
  // A manager left owning nothing (after a forced takeover) is dropped, as the API server does.
  merged.metadata.managedFields = entries.filter(
    (m) => !(m.fieldsV1 && Object.keys(m.fieldsV1).length === 0),
  );
  return merged;
}
