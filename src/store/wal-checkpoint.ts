/**
 * What a checkpoint of SQLite's write-ahead log did (`Store.checkpoint`, types.ts): SQLite's
 * `PRAGMA wal_checkpoint(PASSIVE)` waits for the log to reach the disk (fsync), copies its pages
 * into the database file, waits for the file (fsync), and lets the next commit start the log over
 * (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint). PASSIVE waits for no reader or
 * writer: it copies what it can. The controller loop runs it between passes (issue 42: run by
 * SQLite itself, it landed in whichever commit of a pass carried the log past its limit).
 */

/** What one `Store.checkpoint` (types.ts) did (SQLite's `wal_checkpoint` row). */
export interface WalCheckpoint {
  /** A writer or reader held a lock it needed; it copied what it could. */
  busy: boolean;
  /** Pages (frames of 4 KiB) in the log when it ran. */
  logPages: number;
  /**
   * Of those, pages now in the database file: all of them when not `busy` (the next commit then
   * starts the log over); fewer while a reader holds the log.
   */
  copiedPages: number;
}
