/**
 * A SQLite transaction that reports the error that ended it. The driver's own wrapper
 * (`Database.transaction`, as better-sqlite3's) answers any failure with `ROLLBACK`; but SQLite
 * itself rolls the transaction back on some errors — `SQLITE_FULL` (disk full), `SQLITE_IOERR`,
 * `SQLITE_NOMEM`, `SQLITE_BUSY` in some cases (https://www.sqlite.org/lang_transaction.html,
 * "Response To Errors Within A Transaction") — and then that `ROLLBACK` throws "cannot rollback -
 * no transaction is active", which replaces the real error. Here `ROLLBACK` runs only while a
 * transaction is still open, and the first error is the one thrown.
 */

/** The part of the driver's `Database` a transaction needs. */
export interface SqliteTransactionDb {
  exec(sql: string): unknown;
  readonly inTransaction: boolean;
}

/**
 * Runs `fn` in one transaction (`BEGIN <mode>` … `COMMIT`) and returns its result.
 * @param mode `IMMEDIATE` takes the write lock first; '' (default) is a deferred transaction
 * @throws the first error: of `BEGIN`, of `fn`, or of `COMMIT` (the transaction rolled back)
 */
export function transaction<T>(db: SqliteTransactionDb, fn: () => T, mode: '' | 'IMMEDIATE' = ''): T {
  db.exec(mode ? `BEGIN ${mode}` : 'BEGIN');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // The error to report is the one that ended the transaction, not this one.
      }
    }
    throw err;
  }
}
