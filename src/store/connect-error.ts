/**
 * The error a person reads when the database cannot be reached or opened: it names the server or
 * file and the setting that chose it, never a Store method (`store migrate: connect ECONNREFUSED`).
 */
import { StoreError, redactSecrets } from './errors.js';

/**
 * The database named by a setting could not be reached (PostgreSQL) or opened (SQLite). Its
 * message is whole: `cannot connect to PostgreSQL at db:5432 (--database): connection refused`.
 */
export class StoreConnectionError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('connect', message, options);
    this.message = redactSecrets(message);
  }
}

/** Node socket and DNS codes, as a person says them. */
const SOCKET_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (try again)',
};

/**
 * PostgreSQL SQLSTATEs that mean "you did not get a usable connection": class 08 (connection
 * exception), 28 (invalid authorization: wrong password or user), 3D000 (no such database),
 * 57P03 (cannot connect now: the server is starting or shutting down).
 * https://www.postgresql.org/docs/current/errcodes-appendix.html
 */
function isConnectSqlState(code: string): boolean {
  return /^(08|28)/.test(code) || code === '3D000' || code === '57P03';
}

/** The first `code` on `err` or along its `cause` chain (a StoreError wraps the driver's error). */
function codeOf(err: unknown): { code: string; message: string } | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return { code, message: e.message };
  }
  return undefined;
}

/** `host:port` of a PostgreSQL URL (port 5432 when absent), or the redacted URL when unparsable. */
export function postgresServer(url: string): string {
  try {
    const u = new URL(url);
    const host = u.hostname || new URLSearchParams(u.search).get('host') || 'localhost';
    return `${host}:${u.port || '5432'}`;
  } catch {
    return redactSecrets(url);
  }
}

/**
 * Turns a failure to reach or open the database into a {@link StoreConnectionError}:
 * - PostgreSQL, a socket error or a connection SQLSTATE: `cannot connect to PostgreSQL at
 *   HOST:PORT (SETTING): REASON` (`connection refused`, `host not found`, or the server's own
 *   message, e.g. `password authentication failed for user "gpuops"`);
 * - SQLite, any error while opening the file, or a SQLite error (`SQLITE_NOTADB`, …) on its first
 *   use: `cannot open SQLite database FILE (SETTING): REASON`.
 * Any other error (a database migrated by a newer gpuops, …) is returned unchanged.
 *
 * @param url     the database URL (`sqlite:PATH`, `postgres://…`)
 * @param setting where the URL came from, as the person set it (`--database`)
 * @param phase   `open` (creating the store) or `migrate` (its first use)
 */
export function connectionError(
  url: string,
  err: unknown,
  setting: string,
  phase: 'open' | 'migrate',
): unknown {
  if (err instanceof StoreConnectionError) return err;
  if (/^sqlite:/i.test(url)) {
    if (phase === 'migrate' && !codeOf(err)?.code.startsWith('SQLITE_')) return err;
    const file = url.slice('sqlite:'.length).replace(/^\/\//, '');
    const reason = (err instanceof Error ? err.message : String(err)).replace(/^store \w+: /, '');
    return new StoreConnectionError(`cannot open SQLite database ${file} (${setting}): ${reason}`, {
      cause: err,
    });
  }
  const found = codeOf(err);
  if (found === undefined) return err;
  const socket = SOCKET_REASONS[found.code];
  if (socket === undefined && !isConnectSqlState(found.code)) return err;
  const reason = socket ?? found.message;
  return new StoreConnectionError(
    `cannot connect to PostgreSQL at ${postgresServer(url)} (${setting}): ${reason}`,
    { cause: err },
  );
}
