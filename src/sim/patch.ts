/**
 * The three patch formats of the Kubernetes API:
 * - JSON merge patch (RFC 7386, `application/merge-patch+json`);
 * - strategic merge patch (`application/strategic-merge-patch+json`): like merge patch, but lists
 *   with a `patchMergeKey` in the Kubernetes types are merged element by element (containers by
 *   `name`, env by `name`, volumeMounts by `mountPath`, conditions by `type`, ...); every other list
 *   is replaced whole, as the API server does (so `tolerations` and node `taints` are replaced).
 *   Directives `$patch: delete|replace|merge`, `$deleteFromPrimitiveList/<field>`, and dropping
 *   `$setElementOrder/` and `$retainKeys` are supported;
 * - JSON patch (RFC 6902, `application/json-patch+json`): add, remove, replace, move, copy, test.
 */
import { SimApiError } from './types.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? { ...(target as JsonObject) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v) as Json;
  }
  return out;
}

/** Field name → merge key for lists merged element by element (from the Kubernetes API types). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  resourceClaims: 'name',
  addresses: 'type',
};

/** Lists of primitives that strategic merge treats as sets (merged, not replaced). */
const SET_LISTS = new Set(['finalizers']);

/** The merge key of a list field, or undefined when the list is atomic (replaced whole). */
export function mergeKeyOf(field: string, items: unknown[]): string | undefined {
  if (field === 'ports') {
    // Container ports merge by containerPort; Service ports by port.
    return items.some((i) => isObject(i) && 'containerPort' in i) ? 'containerPort' : 'port';
  }
  return MERGE_KEYS[field];
}

/**
 * How strategic merge treats a list field whose items have the fields `itemFields` (empty for a
 * list of primitives): merged by `mergeKey`, merged as a set (`set`), or replaced whole (`{}`).
 * The OpenAPI document states the same as `x-kubernetes-patch-merge-key`/`-strategy`, so a
 * client's patch and this server's merge agree.
 */
export function listPatchStrategy(
  field: string,
  itemFields: readonly string[],
): { mergeKey?: string; set?: true } {
  if (SET_LISTS.has(field) && itemFields.length === 0) return { set: true };
  const key = mergeKeyOf(field, itemFields.includes('containerPort') ? [{ containerPort: 0 }] : []);
  return key && itemFields.includes(key) ? { mergeKey: key } : {};
}

function mergeList(field: string, target: unknown, patch: Json[]): Json[] {
  const base = Array.isArray(target) ? (target as Json[]) : [];
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map(stripDirectives);
  }
  if (SET_LISTS.has(field)) {
    const out = [...base];
    for (const p of patch) if (!out.includes(p)) out.push(p);
    return out;
  }
  const key = mergeKeyOf(field, [...base, ...patch]);
  if (!key || !patch.every(isObject)) return patch.map(stripDirectives);
  const out: Json[] = base.map((b) => structuredClone(b));
  for (const p of patch as JsonObject[]) {
    const idx = out.findIndex((b) => isObject(b) && b[key] === p[key]);
    if (p.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMergePatch(out[idx], p) as Json;
    else out.push(stripDirectives(p));
  }
  return out;
}

function stripDirectives(v: Json): Json {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$') || k.startsWith('$setElementOrder/') || k.startsWith('$deleteFromPrimitiveList/'))
      continue;
    if (x === null) continue;
    out[k] = stripDirectives(x);
  }
  return out;
}

/** Strategic merge patch (see the module comment for the supported rules and directives). */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  if (patch.$patch === 'replace') return stripDirectives(patch);
  if (patch.$patch === 'delete') return undefined;
  const out: JsonObject = isObject(target) ? { ...(target as JsonObject) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const cur = out[field];
      if (Array.isArray(cur) && Array.isArray(v)) out[field] = cur.filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
    else if (isObject(v)) {
      const merged = strategicMergePatch(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged as Json;
    } else out[k] = v;
  }
  return out;
}

/** One RFC 6902 operation. */
export interface JsonPatchOp {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new SimApiError(400, 'BadRequest', `invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function invalid(message: string): SimApiError {
  return new SimApiError(422, 'Invalid', message);
}

function resolveParent(doc: unknown, tokens: string[], path: string): { parent: Json; last: string } {
  let cur = doc as Json;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)] as Json;
    else if (isObject(cur)) cur = cur[t] as Json;
    else cur = undefined as unknown as Json;
    if (cur === undefined) throw invalid(`doc is missing path: "${path}"`);
  }
  return { parent: cur, last: tokens[tokens.length - 1]! };
}

function getAt(doc: unknown, path: string): unknown {
  let cur = doc as Json;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)] as Json;
    else if (isObject(cur)) cur = cur[t] as Json;
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  const { parent, last } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = Number(last);
    if (!Number.isInteger(i) || i < 0 || i >= parent.length) throw invalid(`doc is missing path: "${path}"`);
    return parent.splice(i, 1)[0];
  }
  if (isObject(parent) && last in parent) {
    const v = parent[last];
    delete parent[last];
    return v;
  }
  throw invalid(`doc is missing path: "${path}"`);
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, last } = resolveParent(doc, tokens, path);
  const v = structuredClone(value) as Json;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > parent.length || (replace && i >= parent.length)) {
      throw invalid(`doc is missing path: "${path}"`);
    }
    if (replace) parent[i] = v;
    else parent.splice(i, 0, v);
  } else if (isObject(parent)) {
    if (replace && !(last in parent)) throw invalid(`doc is missing path: "${path}"`);
    parent[last] = v;
  } else throw invalid(`doc is missing path: "${path}"`);
  return doc;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Applies an RFC 6902 JSON patch to a copy of `doc`.
 * @throws SimApiError 400 when the patch is not an array of operations; 422 Invalid when a path
 * is missing or a `test` fails (the API server answers 422 for both).
 */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    throw new SimApiError(
      400,
      'BadRequest',
      'json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    );
  }
  let out = structuredClone(doc);
  for (const raw of ops as JsonPatchOp[]) {
    if (!isObject(raw) || typeof raw.path !== 'string')
      throw new SimApiError(400, 'BadRequest', 'invalid JSON patch operation');
    switch (raw.op) {
      case 'add':
        out = addAt(out, raw.path, raw.value, false);
        break;
      case 'replace':
        out = addAt(out, raw.path, raw.value, true);
        break;
      case 'remove':
        removeAt(out, raw.path);
        break;
      case 'move': {
        const v = removeAt(out, raw.from ?? '');
        out = addAt(out, raw.path, v, false);
        break;
      }
      case 'copy': {
        const v = getAt(out, raw.from ?? '');
        if (v === undefined) throw invalid(`doc is missing from path: "${raw.from}"`);
        out = addAt(out, raw.path, v, false);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(out, raw.path), raw.value)) throw invalid(`testing value ${raw.path} failed`);
        break;
      default:
        throw new SimApiError(
          400,
          'BadRequest',
          `unknown JSON patch operation "${String((raw as { op: unknown }).op)}"`,
        );
    }
  }
  return out;
}
