/**
 * A store opened read-only (issue 29 item 4: `status`, `prs`, `plan` and `--dry-run` migrated the
 * schema) on SQLite (a real file) and a real PostgreSQL server: it never migrates, refuses a
 * database with migrations pending with a message naming `gpuops migrate`, refuses every write,
 * and reads an up-to-date database as a writable store does.
 */
import { statSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openStore } from '../../src/store/open-store.js';
import { StoreSchemaBehindError } from '../../src/store/schema-behind.js';
import type { Store } from '../../src/store/types.js';
import { makeSnapshot } from './snapshot-factory.js';
import { schemaAt, storeBackends } from '../support/store-backends.js';

const { backends, setup, teardown } = storeBackends('readonly');
beforeAll(setup, 120_000);
afterAll(teardown);

const LATEST = Math.max(...MIGRATIONS.map((m) => m.id));

describe.each(backends)('a read-only store on $name', (backend) => {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  const applied = async (url: string) =>
    (await backend.raw(url, 'SELECT id FROM schema_migrations ORDER BY id')).map((r) => Number(r.id));

  it('refuses a database one migration behind, names what to run, and migrates nothing', async () => {
    const url = await backend.url();
    await schemaAt(backend, url, LATEST - 1);
    const err = await openStore(url, { readOnly: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreSchemaBehindError);
    const last = MIGRATIONS.find((m) => m.id === LATEST)!;
    expect((err as Error).message).toContain(
      `is at schema migration ${LATEST - 1}, this gpuops needs ${LATEST} (${LATEST} ${last.name})`,
    );
    expect((err as Error).message).toContain('run `gpuops migrate --database ');
    expect((err as StoreSchemaBehindError).pending.map((m) => m.id)).toEqual([LATEST]);
    expect(await applied(url)).toEqual(MIGRATIONS.filter((m) => m.id < LATEST).map((m) => m.id));
    // The writable open (what `run` and `gpuops migrate` do) then brings it up to date.
    open.push(await openStore(url));
    expect(await applied(url)).toEqual(MIGRATIONS.map((m) => m.id));
  });

  it('refuses an empty database as one with no gpuops schema, and creates no table', async () => {
    const url = await backend.url();
    if (backend.name === 'sqlite') writeFileSync(url.slice('sqlite:'.length), ''); // a 0-byte file
    await expect(openStore(url, { readOnly: true })).rejects.toThrow(/has no gpuops schema/);
    if (backend.name === 'sqlite') {
      expect(statSync(url.slice('sqlite:'.length)).size).toBe(0);
    } else {
      const tables = await backend.raw(
        url,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
      );
      expect(tables).toEqual([]);
    }
  });

  it('reads an up-to-date database and refuses every write', async () => {
    const url = await backend.url();
    const writer = await openStore(url);
    open.push(writer);
    const snapshot = makeSnapshot(2, 3, '2026-12-01T10:00:00.000Z');
    await writer.saveSnapshot(snapshot);
    const reader = await openStore(url, { readOnly: true });
    open.push(reader);
    expect(await reader.latestSnapshot()).toStrictEqual(snapshot);
    expect(await reader.appliedMigrations()).toEqual(MIGRATIONS.map((m) => m.id));
    await expect(reader.saveSnapshot(makeSnapshot(1, 1, '2026-12-01T10:01:00.000Z'))).rejects.toThrow(
      backend.name === 'sqlite' ? /readonly database/ : /read-only transaction/,
    );
    expect((await writer.latestSnapshot())!.takenAt).toBe(snapshot.takenAt);
  });
});
