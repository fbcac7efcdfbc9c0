/**
 * What the reductions of Nodes and Pods share: where they put what they could not read, how they
 * read a quantity and a timestamp, and how they leave an optional field out.
 */
// Not re-exported by the package index in 1.4.0; the module has no imports of its own.
import { parseQuantity as quantityValue } from './quantity.js';

/**
 * Where reductions put what they could not read: `warnings` (one line per unparseable quantity,
 * naming object and field) and the quantities parsed so far (the same few strings, "1", "8",
 * repeat across thousands of objects). One context may serve many objects.
 */
export interface ReduceContext {
  warnings: string[];
  quantities: Map<string, number>;
}

/** `{ [key]: value }`, or `{}` when the value is undefined (an optional field left out). */
export function optional<K extends string, V>(key: K, value: V | undefined): { [k in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [k in K]?: V };
}

/** A quantity's value; not a quantity: 0 and a warning naming `where` and `field`. */
export function parseQuantity(
  q: string | undefined,
  where: string,
  field: string,
  ctx: ReduceContext,
): number {
  if (q === undefined || q === null || q === '') return 0;
  const cached = ctx.quantities.get(q);
  if (cached !== undefined) return cached;
  try {
    const v = quantityValue(String(q));
    ctx.quantities.set(q, v);
    return v;
  } catch {
    // reported below
  }
  ctx.warnings.push(`${where}: ${field}: not a Kubernetes quantity: ${JSON.stringify(q)}; counted as 0`);
  return 0;
}

/**
 * A timestamp in one canonical form, `Date.toISOString()` (`2026-01-02T03:04:05.000Z`), whether it
 * came as a `Date` (client-library objects) or an RFC 3339 string (the API server's JSON, kubectl
 * dumps), so snapshots from either source compare and store alike. A string that is no time is
 * kept as it is.
 */
export function isoTime(t: Date | string | undefined): string {
  if (t === undefined || t === null) return '';
  if (t instanceof Date) return t.toISOString();
  const s = String(t);
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? s : new Date(ms).toISOString();
}
