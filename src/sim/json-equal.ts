/**
 * Deep equality of JSON documents for the simulator's "did anything change?" checks (a no-op
 * write keeps its resourceVersion; a controller writes status only when it changed).
 */
import { isDeepStrictEqual } from 'node:util';

/**
 * True when `a` and `b` are the same JSON document. Key order is ignored, as the API server
 * compares decoded objects, not bytes (`{a, b}` equals `{b, a}`; `JSON.stringify` would differ);
 * array order counts. A property whose value is `undefined` counts as absent, as it does once
 * the object is serialised (`{a: undefined}` equals `{}`). Values are JSON: no functions, dates,
 * maps or cycles.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutUndefined(a), withoutUndefined(b));
}

/** `value` with every `undefined`-valued property dropped (a copy only where one was found). */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withoutUndefined);
    return items.some((x, i) => x !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const w = v === undefined ? undefined : withoutUndefined(v);
    if (w === v && v !== undefined) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    if (w === undefined) delete copy[k];
    else copy[k] = w;
  }
  return copy ?? value;
}
