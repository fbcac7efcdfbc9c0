/**
 * The two databases every store test runs on: a SQLite file in a temporary folder and a schema of
 * the real PostgreSQL server (test/store/postgres-server.ts). `setup`/`teardown` go in
 * beforeAll/afterAll; `url` gives a new, empty database; `raw` runs SQL beside the Store (a SELECT
 * returns its rows). Teardown drops the schemas it made, so a shared server (CI's) is left as found.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'libsql';
import pg from 'pg';
import { MIGRATIONS, migrationSql, SCHEMA_MIGRATIONS_DDL } from '../../src/store/migrations.js';
import { startTestPostgres, type TestPostgres } from '../store/postgres-server.js';

export type Row = Record<string, unknown>;

export interface StoreBackend {
  name: 'sqlite' | 'postgres';
  url(): Promise<string>;
  raw(url: string, sql: string): Promise<Row[]>;
}

/** The backends and their shared setup; `prefix` names the temporary folder and the schemas. */
export function storeBackends(prefix: string): {
  backends: StoreBackend[];
  setup(): Promise<void>;
  teardown(): Promise<void>;
} {
  let dir = '';
  let server: TestPostgres | undefined;
  const schemas: string[] = [];
  const unique = () => `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const query = async (url: string, sql: string): Promise<Row[]> => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(sql)).rows as Row[];
    } finally {
      await c.end();
    }
  };
  return {
    backends: [
      {
        name: 'sqlite',
        url: async () => `sqlite:${path.join(dir, `${unique()}.db`)}`,
        raw: async (url, sql) => {
          const db = new Database(url.slice('sqlite:'.length));
          try {
            return /^\s*select/i.test(sql) ? (db.prepare(sql).all() as Row[]) : (db.exec(sql), []);
          } finally {
            db.close();
          }
        },
      },
      {
        name: 'postgres',
        url: async () => {
          if (!server) throw new Error('PostgreSQL did not start');
          const schema = `${prefix}_${unique()}`;
          schemas.push(schema);
          await query(server.url, `CREATE SCHEMA ${schema}`);
          const sep = server.url.includes('?') ? '&' : '?';
          return `${server.url}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
        },
        raw: query,
      },
    ],
    setup: async () => {
      dir = mkdtempSync(path.join(tmpdir(), `gpuops-${prefix}-`));
      server = await startTestPostgres();
    },
    teardown: async () => {
      if (server) {
        for (const s of schemas.splice(0)) await query(server.url, `DROP SCHEMA IF EXISTS ${s} CASCADE`);
        await server.stop();
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes the schema as a gpuops that knew migrations 1..`upTo` left it, with its records. */
export async function schemaAt(backend: StoreBackend, url: string, upTo: number): Promise<void> {
  const applied = MIGRATIONS.filter((m) => m.id <= upTo);
  await backend.raw(
    url,
    [
      SCHEMA_MIGRATIONS_DDL,
      ...applied.map((m) => migrationSql(m, backend.name)),
      ...applied.map(
        (m) =>
          `INSERT INTO schema_migrations (id, name, applied_at) VALUES (${m.id}, '${m.name}', '2026-01-01T00:00:00Z')`,
      ),
    ].join(';\n'),
  );
}

/**
 * SQL counting the node or pod records stored, as `n`: over every stored part (migration 8) that
 * some contents name as that kind, each part once however many contents share it.
 */
export function storedRecordsSql(dialect: string, column: 'nodes' | 'pods'): string {
  const doc = dialect === 'postgres' ? 'records::json' : 'records';
  return `SELECT COALESCE(SUM(json_array_length(${doc})), 0) AS n FROM snapshot_parts
    WHERE digest IN (SELECT part FROM contents_parts WHERE kind = '${column}')`;
}
