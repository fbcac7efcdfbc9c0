import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, migrationSql, SCHEMA_MIGRATIONS_DDL } from '../../src/store/migrations.js';

/**
 * A shipped migration must never change: a database records only the ids it applied, so an edited
 * migration would leave old and new databases with different schemas under the same number. The
 * digest covers the id, name and statements in both dialects of migrations 1–11, as they were
 * before the migrations were split into files by group; migrations appended later leave it as is.
 */
const SHIPPED = 11;

function migrationsDigest(): string {
  const hash = createHash('sha256');
  for (const dialect of ['sqlite', 'postgres'] as const)
    for (const m of MIGRATIONS.filter((m) => m.id <= SHIPPED))
      hash.update(`${m.id}\0${m.name}\0${dialect}\0${migrationSql(m, dialect)}\0`);
  hash.update(SCHEMA_MIGRATIONS_DDL);
  return hash.digest('hex');
}

describe('schema migrations', () => {
  it('are numbered 1..n in order', () => {
    expect(MIGRATIONS.map((m) => m.id)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it('keep the statements of every shipped migration byte for byte', () => {
    expect(migrationsDigest()).toBe('0acc92fe0c85bac8a62530b083619b3180001e8a84b1d225af9d3a952ce34676');
  });
});
