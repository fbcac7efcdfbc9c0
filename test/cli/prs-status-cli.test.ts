/**
 * `gpuops prs --all`, `gpuops prs show ID` and `gpuops status` as a person runs them, over a
 * SQLite database written through the Store: a pull request that was merged and the one that
 * replaced it can both be read back, with their bodies; times are UTC; a missing database is an
 * error naming --database, never an empty answer (and never creates the file).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSnapshot } from '../store/snapshot-factory.js';
import { openStore, statusStoreOf } from '../../src/store/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function gpuops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let dir = '';
let db = '';
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-prs-cli-'));
  db = `sqlite:${path.join(dir, 'state.db')}`;
  const store = statusStoreOf(await openStore(db))!;
  const base = {
    cluster: 'prod',
    branch: 'gpuops/prod/pools',
    kind: 'pools',
    subject: 'pools',
    desiredHash: 'h',
    url: null,
  };
  await store.upsertPullRequest({
    ...base,
    title: 'gpuops(prod): assign 3 GPU nodes to pools',
    body: 'Pools body | with a pipe',
    number: null,
    state: 'open',
    updatedAt: '2026-11-30T10:00:00.000Z',
  });
  await store.upsertPullRequest({
    ...base,
    title: 'gpuops(prod): assign 3 GPU nodes to pools',
    body: 'Pools body | with a pipe',
    number: null,
    state: 'merged',
    updatedAt: '2026-11-30T10:05:00.000Z',
  });
  await store.upsertPullRequest({
    ...base,
    title: 'gpuops(prod): move gpu-h100-01 into long-task',
    body: 'Move body',
    number: null,
    state: 'open',
    updatedAt: '2026-11-30T11:00:00.000Z',
  });
  await store.saveSnapshot(makeSnapshot(6, 4, '2026-11-30T11:00:00.000Z'));
  await store.close();
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gpuops prs and status', { timeout: 90_000 }, () => {
  it('prs shows the branch once; prs --all shows both cycles with ids, UTC times and outcomes', async () => {
    const latest = await gpuops('prs', '--database', db, '--cluster', 'prod');
    expect(latest.code).toBe(0);
    expect(latest.stdout.trimEnd().split('\n')).toHaveLength(2);
    const all = await gpuops('prs', '--all', '--database', db, '--cluster', 'prod');
    expect(all.code).toBe(0);
    const rows = all.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STATE\s+KIND\s+SUBJECT\s+PR\s+OPENED \(UTC\)\s+CLOSED \(UTC\)\s+TITLE$/);
    expect(rows.slice(1).map((r) => r.split(/\s{2,}/).slice(0, 2))).toEqual([
      ['2', 'open'],
      ['1', 'merged'],
    ]);
    expect(rows[2]).toContain('2026-11-30T10:05:00.000Z');
  });

  it('prs show ID prints the whole body of a merged pull request', async () => {
    const r = await gpuops('prs', 'show', '1', '--database', db);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('state:   merged');
    expect(r.stdout).toContain('closed:  2026-11-30T10:05:00.000Z (UTC)');
    expect(r.stdout.trimEnd().endsWith('Pools body | with a pipe')).toBe(true);
    const json = await gpuops('prs', 'show', '2', '--database', db, '--output', 'json');
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 2, body: 'Move body', closedAt: null });
  });

  it('prs show: an unknown id exits 1, a bad id exits 2', async () => {
    const unknown = await gpuops('prs', 'show', '42', '--database', db);
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      expect.stringContaining('no pull request with id 42'),
    ]);
    const bad = await gpuops('prs', 'show', 'x1', '--database', db);
    expect(bad.code).toBe(2);
  });

  it('status prints every section from the database alone (text, json, html)', async () => {
    const text = await gpuops('status', '--database', db, '--cluster', 'prod');
    expect(text.code).toBe(0);
    for (const h of [
      'POOLS',
      'GPU NODES IN NO POOL',
      'ALGORITHMS',
      'BENCHMARKS IN FLIGHT',
      'OPEN PULL REQUESTS',
      'LAST DECISIONS',
    ])
      expect(text.stdout).toContain(h);
    expect(text.stdout).toContain('gpuops/prod/pools');
    const json = JSON.parse(
      (await gpuops('status', '--database', db, '--cluster', 'prod', '-o', 'json')).stdout,
    ) as {
      snapshotAt: string;
      openPullRequests: unknown[];
    };
    expect(json.snapshotAt).toBe('2026-11-30T11:00:00.000Z');
    expect(json.openPullRequests).toHaveLength(1);
    const html = await gpuops('status', '--database', db, '-o', 'html');
    expect(html.stdout).toMatch(/^<!doctype html>/);
    expect((await gpuops('status', '--database', db, '-o', 'yaml')).code).toBe(2);
  });

  it('a missing database is an error naming --database, and no file is created', async () => {
    const missing = path.join(dir, 'nope', 'state.db');
    for (const args of [['status'], ['prs'], ['prs', '--all']]) {
      const r = await gpuops(...args, '--database', `sqlite:${missing}`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`--database: no database at ${missing}`);
    }
    expect(existsSync(missing)).toBe(false);
  });
});
