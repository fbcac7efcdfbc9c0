/**
 * The PostgreSQL connection pool of the store, its migrations, and the SQL helpers its queries
 * share (the UNNEST bulk insert).
 */
import pg from 'pg';
import { storeError } from './errors.js';
import { migrationSql, pendingMigrations, SCHEMA_MIGRATIONS_DDL } from './migrations.js';
import { type Cell } from './rows.js';

/** One result row as `pg` gives it: column name → value (`int8` as text, `json` parsed). */
export type Row = Record<string, unknown>;

/** Rows per UNNEST statement. */
const BATCH = 5_000;

/**
 * Advisory lock held while migrating, so that two gpuops processes starting at once against the
 * same database apply each migration once (the second waits, then finds nothing pending).
 * An arbitrary constant: "gpuops" in ASCII.
 */
const MIGRATION_LOCK = 0x6770756f7073;

/**
 * Advisory lock held by every `saveSnapshot` transaction: snapshot writers take turns, so one
 * writer's retention never deletes `snapshot_contents` that another has just found by digest and
 * is about to name (a save would then fail on the foreign key). "gpuops" + 1.
 */
export const SNAPSHOT_LOCK = MIGRATION_LOCK + 1;

/** PostgreSQL element types of the bulk-inserted columns (utilisation samples and decisions). */
const PG_TYPES: Record<string, string> = {
  algorithm: 'text',
  namespace: 'text',
  pod: 'text',
  utilization: 'float8',
  at: 'text',
  at_ms: 'int8',
  kind: 'text',
  subject: 'text',
  action: 'text',
  reason: 'text',
  message: 'text',
  replicas_from: 'int',
  replicas_to: 'int',
  ready_pods: 'int',
};

/** `INSERT` of one row, a `$n` per column. */
export function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
}

/** Inserts rows (arrays in `columns` order) in batches of {@link BATCH}, one UNNEST each. */
export async function insertUnnest(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: Cell[][],
): Promise<void> {
  const casts = columns.map((c, i) => {
    const type = PG_TYPES[c];
    if (!type) throw new Error(`no PostgreSQL type for column ${table}.${c}`);
    return `$${i + 1}::${type}[]`;
  });
  const sql = `INSERT INTO ${table} (${columns.join(', ')}) SELECT * FROM UNNEST(${casts.join(', ')})`;
  for (let start = 0; start < rows.length; start += BATCH) {
    const batch = rows.slice(start, start + BATCH);
    const arrays = columns.map((_, i) => batch.map((r) => r[i] ?? null));
    await client.query(sql, arrays);
  }
}

/** How the PostgreSQL store connects and what it keeps. */
export interface PostgresStoreOptions {
  /** Snapshots kept by `saveSnapshot` (newest first); older ones are deleted. */
  keepSnapshots: number;
  /** Pool size (default 5). */
  maxConnections?: number;
  /**
   * Every connection is read-only (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`, sent
   * before its first query): a write, a migration included, fails with SQLSTATE 25006. Default false.
   */
  readOnly?: boolean;
}

/**
 * The connection pool of the PostgreSQL store: connecting, transactions, the schema migrations,
 * and errors as StoreErrors naming the operation. The queries by table group
 * (postgres-snapshots.ts, postgres-benchmarks.ts, postgres-history.ts, postgres-pull-requests.ts)
 * run on it.
 */
export class PgSession {
  private readonly pool: pg.Pool;

  /** Connects lazily; the first query (usually `migrate`) reports a bad URL or password. */
  constructor(
    connectionString: string,
    readonly options: PostgresStoreOptions,
  ) {
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 5 });
    // An idle client that loses its connection (server restart) must not crash the process:
    // the pool drops it and the next query opens a new one, or reports a StoreError.
    this.pool.on('error', () => undefined);
    // A client runs its queries in order, so this one precedes whatever the caller sends.
    // (Not `options=-c default_transaction_read_only=on`: an `options` in the URL would replace it.)
    if (options.readOnly) {
      this.pool.on('connect', (client) => {
        client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY').catch(() => undefined);
      });
    }
  }

  /** `fn` on a pooled client; any error becomes a StoreError naming `operation`. */
  async withClient<T>(operation: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw storeError(operation, err);
    }
    try {
      return await fn(client);
    } catch (err) {
      throw storeError(operation, err);
    } finally {
      client.release();
    }
  }

  /** `fn` in one transaction (`begin`: its BEGIN statement), rolled back when it throws. */
  transaction<T>(operation: string, fn: (c: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query(begin);
      try {
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    });
  }

  /** The rows of one statement on a pooled client. */
  query(operation: string, sql: string, params: unknown[] = []): Promise<Row[]> {
    return this.withClient(operation, async (c) => (await c.query(sql, params)).rows as Row[]);
  }

  migrate(): Promise<void> {
    return this.transaction('migrate', async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await c.query(SCHEMA_MIGRATIONS_DDL);
      const applied = (await c.query('SELECT id FROM schema_migrations')).rows.map((r: Row) => Number(r.id));
      for (const m of pendingMigrations(applied)) {
        await c.query(migrationSql(m, 'postgres'));
        await c.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
          m.id,
          m.name,
          new Date().toISOString(),
        ]);
      }
    });
  }

  async appliedMigrations(): Promise<number[]> {
    const rows = await this.query(
      'appliedMigrations',
      // to_regclass follows search_path, as the store's own queries do.
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS present`,
    );
    if (rows[0]?.present !== true) return [];
    return (await this.query('appliedMigrations', 'SELECT id FROM schema_migrations ORDER BY id')).map((r) =>
      Number(r.id),
    );
  }

  async close(): Promise<void> {
    try {
      await this.pool.end();
    } catch (err) {
      throw storeError('close', err);
    }
  }
}
