/**
 * The commands that only read (`status`, `prs`, `reconcile --dry-run`) as a person runs them,
 * against SQLite and a real PostgreSQL (issue 29 item 4): a database one migration behind is
 * refused with a message naming `gpuops migrate`, and is left exactly as it was (against a shared
 * PostgreSQL, one `status` from a newer laptop build upgraded production); a 0-byte file stays 0
 * bytes; `gpuops migrate` applies what is pending, after which `status` reads it.
 */
import { execFile } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { schemaAt, storeBackends } from '../support/store-backends.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LATEST = Math.max(...MIGRATIONS.map((m) => m.id));

function gpuops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const { backends, setup, teardown } = storeBackends('readonlycli');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('read-only commands on $name', (backend) => {
  const applied = async (url: string) =>
    (await backend.raw(url, 'SELECT id FROM schema_migrations ORDER BY id')).map((r) => Number(r.id));

  it('status on a database one migration behind exits 1 naming gpuops migrate; migrate, then status reads it', async () => {
    const url = await backend.url();
    await schemaAt(backend, url, LATEST - 1);
    const before = await applied(url);
    const status = await gpuops('status', '--database', url);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`is at schema migration ${LATEST - 1}, this gpuops needs ${LATEST}`);
    expect(status.stderr).toContain(
      'a read-only command never changes the schema: run `gpuops migrate --database ',
    );
    expect(status.stdout).toBe('');
    expect(await applied(url)).toEqual(before);

    const migrate = await gpuops('migrate', '--database', url);
    expect(migrate.stderr).toBe('');
    expect(migrate.stdout).toBe(
      `applied schema migration ${LATEST} (${MIGRATIONS.find((m) => m.id === LATEST)!.name}); now at ${LATEST}\n`,
    );
    expect(await applied(url)).toEqual(MIGRATIONS.map((m) => m.id));
    const again = await gpuops('migrate', '--database', url);
    expect(again.stdout).toBe(`the schema is at migration ${LATEST}: nothing to apply\n`);
    const after = await gpuops('status', '--database', url, '--output', 'json');
    expect(after.code).toBe(0);
    expect(JSON.parse(after.stdout)).toHaveProperty('cluster', 'default');
  });

  it('prs and reconcile --dry-run refuse a database one migration behind and leave it so', async () => {
    const url = await backend.url();
    await schemaAt(backend, url, LATEST - 1);
    const prs = await gpuops('prs', '--all', '--database', url);
    expect(prs.code).toBe(1);
    expect(prs.stderr).toContain('run `gpuops migrate');
    // The store opens first: the refusal comes before the repo or the cluster is touched.
    const dryRun = await gpuops(
      'reconcile',
      '--once',
      '--dry-run',
      '--repo-url',
      path.join(root, 'no-such-repo'),
      '--database',
      url,
    );
    expect(dryRun.code).toBe(1);
    expect(dryRun.stderr).toContain(`is at schema migration ${LATEST - 1}`);
    expect(await applied(url)).toEqual(MIGRATIONS.filter((m) => m.id < LATEST).map((m) => m.id));
  });
});

describe('read-only commands on a SQLite file', () => {
  const sqlite = backends.find((b) => b.name === 'sqlite')!;

  it('status on a 0-byte file says it has no gpuops schema and leaves it 0 bytes', async () => {
    const url = await sqlite.url();
    const file = url.slice('sqlite:'.length);
    writeFileSync(file, '');
    const status = await gpuops('status', '--database', url);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`the SQLite database ${file} (--database) has no gpuops schema`);
    expect(statSync(file).size).toBe(0);
  });
});
