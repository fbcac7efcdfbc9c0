/**
 * The three patch formats of the Kubernetes API:
 * - JSON merge patch (RFC 7386, `application/merge-patch+json`);
 * - strategic merge patch (`application/strategic-merge-patch+json`): like merge patch, but lists
 *   with a `patchMergeKey` in the Kubernetes types are merged element by element (containers by
 *   `name`, env by `name`, volumeMounts by `mountPath`, conditions by `type`, ...); every other list
 *   is replaced whole, as the API server does (so `tolerations` and node `taints` are replaced).
 *   Directives `$patch: delete|replace|merge`, `$deleteFromPrimitiveList/<field>`, and dropping
 *   `$setElementOrder/` and `$retainKeys` are supported;
 * - JSON patch (RFC 6902, `application/json-patch+json`): add, remove, replace, move, copy, test,
 *   applied by `fast-json-patch`.
 */
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { SimApiError } from './types.js';

const { applyPatch, JsonPatchError } = fastJsonPatch;

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

/** The API server's limit on operations in one JSON patch (`maxJSONPatchOperations`). */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** The failed operation's message, in the words of the API server's json-patch library. */
function patchFailure(err: InstanceType<typeof JsonPatchError>): string {
  const op = (err.operation ?? {}) as Partial<JsonPatchOp>;
  switch (err.name) {
    case 'TEST_OPERATION_FAILED':
      return `testing value ${op.path} failed`;
    case 'OPERATION_PATH_UNRESOLVABLE':
    case 'OPERATION_PATH_CANNOT_ADD':
    case 'OPERATION_VALUE_OUT_OF_BOUNDS':
    case 'OPERATION_PATH_ILLEGAL_ARRAY_INDEX':
      return `${op.op} operation does not apply: doc is missing path: "${op.path}"`;
    case 'OPERATION_FROM_UNRESOLVABLE':
      return `${op.op} operation does not apply: doc is missing from path: "${op.from}"`;
    case 'OPERATION_OP_INVALID':
      return `Unexpected kind: ${String(op.op)}`;
    default:
      return `${err.message.split('\n')[0]} (operation ${err.index ?? 0})`;
  }
}

/**
 * The API server's answer to a patch that does not apply: `NewGenericServerResponse(422, …)`, whose
 * message is generic and whose one cause carries the json-patch error (kubectl prints "The request
 * is invalid: : testing value /x failed").
 */
function unprocessable(cause: string): SimApiError {
  return new SimApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ type: 'UnexpectedServerResponse', message: cause }],
  });
}

/**
 * Applies an RFC 6902 JSON patch to a copy of `doc` with `fast-json-patch` (validated, all or
 * nothing: `doc` is never modified). JSON pointers unescape `~1` to `/` and `~0` to `~`.
 * Status codes follow the API server's PATCH handler (`k8s.io/apiserver` `handlers/patch.go`):
 * a body that does not decode as a list of operations is 400 BadRequest; more than 10,000
 * operations is 413; any operation that does not apply (a failed `test`, a missing path, an
 * unknown `op`, a pointer without a leading `/`, a missing `value`) is 422 Invalid, its cause naming
 * the operation.
 * @throws SimApiError 400, 413 or 422 as above
 */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops) || !ops.every(isObject)) {
    throw new SimApiError(
      400,
      'BadRequest',
      `json: cannot unmarshal ${Array.isArray(ops) ? 'array element' : 'object'} into Go value of type jsonpatch.Patch`,
    );
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new SimApiError(
      413,
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  try {
    return applyPatch(structuredClone(doc), ops as unknown as Operation[], true, true, true).newDocument;
  } catch (err) {
    if (err instanceof JsonPatchError) throw unprocessable(patchFailure(err));
    // `__proto__` / `constructor/prototype` paths are refused with a TypeError.
    if (err instanceof TypeError && /JSON-Patch/.test(err.message)) throw unprocessable(err.message);
    throw err;
  }
}
