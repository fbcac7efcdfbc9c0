/**
 * The cells of a table row and their dialect-neutral codecs, shared by both stores and the row
 * conversions by table group (snapshot-rows.ts, benchmark-rows.ts, decision-rows.ts,
 * node-activity-rows.ts).
 */
import { StoreError } from './errors.js';

/** A value as it goes into a statement before dialect encoding. */
export type Cell = string | number | boolean | null;

/**
 * Epoch milliseconds of an ISO-8601 time, for ordering and ranges.
 * @throws StoreError naming `operation` and `field` when the text is not a date.
 */
export function toMs(operation: string, field: string, iso: string): number {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new StoreError(operation, `${field}: ${JSON.stringify(iso)} is not an ISO-8601 time`);
  }
  return ms;
}

/** A JSON column as read: SQLite gives text, PostgreSQL `json` gives the parsed value. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A boolean column as read: SQLite gives 0/1, PostgreSQL gives a boolean. */
export function fromBool(value: unknown): boolean {
  return value === true || value === 1;
}

/** A nullable numeric column (PostgreSQL BIGINT comes back as text). */
export function fromNum(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A row as the driver returns it, by column name. */
export type Row = Record<string, unknown>;

/** Groups rows (already in the wanted order) by `key`, keeping that order within each group. */
export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = out.get(k);
    if (group) group.push(item);
    else out.set(k, [item]);
  }
  return out;
}
