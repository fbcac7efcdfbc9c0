/**
 * What a checkpoint of SQLite's write-ahead log did (`Store.checkpoint`, types.ts): SQLite's
 * `PRAGMA wal_checkpoint(PASSIVE)` waits for the log to reach the disk (fsync), copies its pages
 * into the database file and waits for the file (fsync)
 * (https://www.sqlite.org/pragma.html#pragma_wal_checkpoint); when it copied all of it, the
 * SQLite store then starts the log over itself (a commit writing `user_version` back, an fsync;
 * it can throw disk full, read-only file or I/O errors). PASSIVE waits for no reader or writer:
 * it copies what it can. The controller loop runs it between passes (issue 42: run by
 * SQLite itself, it landed in whichever commit of a pass carried the log past its limit).
 */

/** What one `Store.checkpoint` (types.ts) did (SQLite's `wal_checkpoint` row). */
export interface WalCheckpoint {
  /** A writer or reader held a lock it needed; it copied what it could. */
  busy: boolean;
  /** Pages (frames of 4 KiB) in the log when it ran. */
  logPages: number;
  /**
   * Of those, pages now in the database file: all of them when not `busy` (the checkpoint then
   * starts the log over itself, unless that one page is its last start); fewer while a reader
   * holds the log.
   */
  copiedPages: number;
}
