import type { FieldProblem } from './schema-errors.js';
import type { PathSegment } from './yaml-documents.js';

/** One side of a cross-field rule: its value, and whether the document itself sets it. */
export interface Bound {
  value: number;
  /** True when the document sets this field; false when the value is the fallback (a policy default). */
  own: boolean;
}

/** True when `prefix` is `path` or lies above it. */
function covers(prefix: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => path[i] === seg);
}

/** The value at `path` in `value`, or `undefined` when some step is missing or not a mapping. */
function valueAt(value: unknown, path: readonly PathSegment[]): unknown {
  let node = value;
  for (const seg of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[String(seg)];
  }
  return node;
}

/**
 * The number a cross-field rule compares at `path`, so that cross-field rules run beside the
 * schema's own checks (all errors in one round) without judging a value the schema already rejects.
 *
 * - The document sets a finite number there and no schema problem lies on or above `path`: that
 *   number, `own: true`.
 * - The document sets nothing there and no schema problem lies on or above `path`: `fallback`
 *   (the policy default), `own: false`; `undefined` when there is no fallback.
 * - Anything else (a string, `0.5` where a whole number is due, `spec.scaling` given as a list):
 *   `undefined`. That value's own problem is reported; a cross-field message about it would only
 *   repeat it.
 *
 * @param value    the document (or, for a policy, the merge so far) as parsed
 * @param problems the schema problems already found in `value`
 */
export function boundAt(
  value: unknown,
  path: readonly PathSegment[],
  problems: readonly FieldProblem[],
  fallback?: number,
): Bound | undefined {
  if (problems.some((p) => covers(p.path, path))) return undefined;
  const v = valueAt(value, path);
  if (v === undefined) return fallback === undefined ? undefined : { value: fallback, own: false };
  return typeof v === 'number' && Number.isFinite(v) ? { value: v, own: true } : undefined;
}

/** The string at `path` when the schema found nothing wrong on or above it, else `undefined`. */
export function stringAt(
  value: unknown,
  path: readonly PathSegment[],
  problems: readonly FieldProblem[],
): string | undefined {
  if (problems.some((p) => covers(p.path, path))) return undefined;
  const v = valueAt(value, path);
  return typeof v === 'string' ? v : undefined;
}
