/**
 * The batch insert of a pass's records on SQLite (samples, decisions): every cell a bound
 * parameter, many rows per `INSERT … VALUES` statement, so a number is stored as the double it
 * is. The JSON path it replaces (one JSON text, unpacked by `json_each`) stored a number as
 * SQLite's text-to-double conversion parses it, which is not correctly rounded in SQLite 3.45:
 * about 1 in 10,000 utilisations came back one ULP off (4.039324002358748 → 4.0393240023587484),
 * so the pass could not keep what it wrote in place of reading it back. A bound double goes into
 * the REAL column bit for bit (except −0, which SQLite stores as the integer 0, and NaN, stored as
 * NULL). The CPU time is the JSON path's within its spread (15,000 samples; docs/performance.md).
 */
import { transaction } from './sqlite-transaction.js';
import { toMs, type Cell } from './rows.js';
import type { SqliteSession } from './sqlite-session.js';

/**
 * Bound parameters one statement holds at most (SQLite allows 32,766, but compiling a statement
 * costs about the square of its length: 256 sample rows take 3 ms once, 2,048 rows 100 ms).
 */
export const STATEMENT_PARAMETERS = 1024;

/**
 * Rows per statement for `head` cells a row: the largest power of two whose rows hold at most
 * {@link STATEMENT_PARAMETERS} parameters (at least 1). A shorter rest goes in the powers of two
 * it sums to, so a table has at most about ten statements to prepare, whatever the count.
 */
export function rowsPerStatement(head: number): number {
  return 2 ** Math.max(0, Math.floor(Math.log2(STATEMENT_PARAMETERS / Math.max(1, head))));
}

/**
 * `INSERT` of `rows` rows of `columns`: the last two are the time and its epoch milliseconds
 * (`at`, `at_ms`), bound once as `?1` and `?2` and shared by every row; then the cells of the
 * head columns `shared` marks (by index, in order), bound once too and shared by every row; then
 * each row's other cells in order. Without `shared`, each row's cells follow `?2` (`?3` on).
 */
export function insertRowsSql(
  table: string,
  columns: readonly string[],
  rows: number,
  shared: readonly boolean[] = [],
): string {
  const head = columns.length - 2;
  const sharedAt: number[] = [];
  let next = 3;
  for (let c = 0; c < head; c++) sharedAt.push(shared[c] ? next++ : 0);
  const own = head - (next - 3);
  const values: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    let k = next + r * own;
    for (let c = 0; c < head; c++) cells.push(`?${sharedAt[c] || k++}`);
    values.push(`(${cells.join(', ')}, ?1, ?2)`);
  }
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values.join(', ')}`;
}

/**
 * Inserts `records` in one transaction, in order: `head` gives a record's cells before its time
 * (`columns` minus the last two, `at` and `at_ms`, which come from `record.at`). Records of one
 * time go in statements of {@link rowsPerStatement} rows; a change of time starts a new run.
 * Booleans must be bound first (none of the callers' cells is one). A head column in `sharable`
 * (indexes into the head cells: one that often holds one value, as a decision's kind) whose cell
 * is the same in every row of a statement (`Object.is`) is bound once for them all: binding is
 * most of an insert's time in the driver (1,000 decisions: ~17 ms with 9 cells a row bound, ~10 ms
 * with 4), and the same value goes into each row as before.
 * @throws StoreError naming `operation` when a time is not ISO-8601; the driver's error when a
 *   row does not fit (the transaction is then rolled back: all or none)
 */
export function insertTimedRows<T extends { at: string }>(
  s: SqliteSession,
  table: string,
  columns: readonly string[],
  records: readonly T[],
  head: (r: T) => Cell[],
  operation: string,
  sharable: readonly number[] = [],
): void {
  if (records.length === 0) return;
  const per = rowsPerStatement(columns.length - 2);
  transaction(s.db, () => {
    let start = 0;
    while (start < records.length) {
      const at = records[start]!.at;
      let end = start + 1;
      while (end < records.length && records[end]!.at === at) end++;
      const time: [string, number] = [at, toMs(operation, 'at', at)];
      insertRun(s, { table, columns, per, head, sharable }, records, start, end, time);
      start = end;
    }
  });
}

/** The statement texts built, by table, columns and rows. */
const SQL_TEXTS = new Map<string, string>();

/**
 * What {@link insertRun} inserts with: the table, its columns, rows per statement, the head cells
 * and the sharable ones.
 */
interface RunShape<T> {
  table: string;
  columns: readonly string[];
  per: number;
  head: (r: T) => Cell[];
  sharable: readonly number[];
}

/**
 * Records `start` to `end` (one time: `time`), in statements of `per` rows and the powers of two
 * below it.
 */
function insertRun<T>(
  s: SqliteSession,
  o: RunShape<T>,
  records: readonly T[],
  start: number,
  end: number,
  time: [string, number],
): void {
  let i = start;
  while (i < end) {
    const left = end - i;
    const n = left >= o.per ? o.per : 2 ** Math.floor(Math.log2(left));
    const rows: Cell[][] = [];
    for (let j = i; j < i + n; j++) rows.push(o.head(records[j]!));
    const shared = sharedCells(rows, o.sharable);
    const params: Cell[] = [time[0], time[1]];
    for (let c = 0; c < shared.length; c++) if (shared[c]) params.push(rows[0]![c]!);
    for (const row of rows) for (let c = 0; c < row.length; c++) if (!shared[c]) params.push(row[c]!);
    const key = `${o.table}(${o.columns.join()})${n}/${shared.map(Number).join('')}`;
    let sql = SQL_TEXTS.get(key);
    if (sql === undefined) SQL_TEXTS.set(key, (sql = insertRowsSql(o.table, o.columns, n, shared)));
    s.prepare(sql).run(params);
    i += n;
  }
}

/**
 * By head cell: whether it is bound once for every row of `rows`: a `sharable` cell equal
 * (`Object.is`: −0 is not 0, NaN is NaN) in every row. At most 2^`sharable.length` statement
 * texts per size.
 */
export function sharedCells(rows: readonly (readonly Cell[])[], sharable: readonly number[]): boolean[] {
  const shared: boolean[] = [];
  const first = rows[0];
  if (!first) return shared;
  for (const c of sharable) shared[c] = c < first.length && rows.every((r) => Object.is(r[c], first[c]));
  return Array.from({ length: first.length }, (_, c) => shared[c] === true);
}
