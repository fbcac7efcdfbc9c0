/**
 * Issue 23 item 11: a `--cluster` the database does not hold says which clusters it does hold,
 * instead of an empty page or "No pull requests recorded". The rule as a table, then `gpuops
 * status` and `gpuops prs --all` as an operator runs them: `status --cluster prod` on a database
 * that holds only `default`, and `prs --all` without `--cluster` on a database that holds only
 * `demo` (as `gpuops demo` leaves it, with 11 pull requests).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseCluster, unknownClusterWarning } from '../../src/cli/cluster-choice.js';
import { UsageError } from '../../src/cli/settings.js';
import { openStore, statusStoreOf } from '../../src/store/index.js';

describe('chooseCluster', () => {
  it.each<[string, string, boolean, string[], string | RegExp]>([
    ['GivenAndHeld', 'prod', true, ['default', 'prod'], 'prod'],
    ['GivenOnAnEmptyDatabase: nothing to compare with', 'prod', true, [], 'prod'],
    [
      'GivenAndNotHeld: names what is held',
      'prod',
      true,
      ['default'],
      /^--cluster prod: the database db holds nothing of cluster "prod"; it holds cluster default \(--cluster default\)$/,
    ],
    ['NotGivenDefaultHeld', 'default', false, ['default', 'prod'], 'default'],
    ['NotGivenOneOtherHeld: that one', 'default', false, ['demo'], 'demo'],
    [
      'NotGivenTwoOthersHeld: names both',
      'default',
      false,
      ['a', 'b'],
      /^--cluster: not given, and the database db has no "default"; it holds clusters a, b$/,
    ],
  ])('%s', (_name, asked, given, known, want) => {
    if (typeof want === 'string') expect(chooseCluster(asked, given, known, 'db').cluster).toBe(want);
    else {
      expect(() => chooseCluster(asked, given, known, 'db')).toThrow(UsageError);
      expect(() => chooseCluster(asked, given, known, 'db')).toThrow(want);
    }
  });

  it('says on stderr which cluster it picked when none was given', () => {
    expect(chooseCluster('default', false, ['demo'], 'db').note).toBe(
      'gpuops: no --cluster given; showing cluster "demo", the only one in db',
    );
    expect(chooseCluster('default', false, ['default'], 'db').note).toBeNull();
  });
});

describe('unknownClusterWarning (plan --repo)', () => {
  it.each<[string, string, string[], string | null]>([
    ['HeldFolder', 'prod', ['prod', 'staging'], null],
    ['NoClustersYet: a first pass', 'prod', [], null],
    [
      'OtherFolders',
      'prdo',
      ['staging', 'prod'],
      'the repo has no clusters/prdo/, only clusters/prod/, clusters/staging/: every file of cluster "prdo" would be new (did you mean --cluster prod?)',
    ],
  ])('%s', (_name, cluster, known, want) => {
    expect(unknownClusterWarning(cluster, known)).toBe(want);
  });
});

const root = fileURLToPath(new URL('../..', import.meta.url));
function gpuops(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'node',
      ['bin/gpuops.js', ...args],
      { cwd: root, env: { ...process.env, GPUOPS_CLUSTER: '', ...env } },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

let dir = '';
/** A database holding pull requests of the given clusters, `n` each. */
async function database(name: string, clusters: Record<string, number>): Promise<string> {
  const url = `sqlite:${path.join(dir, `${name}.db`)}`;
  const store = statusStoreOf(await openStore(url))!;
  for (const [cluster, n] of Object.entries(clusters))
    for (let i = 0; i < n; i++)
      await store.upsertPullRequest({
        cluster,
        branch: `gpuops/${cluster}/placement/alg-${i}`,
        kind: 'placement',
        subject: `alg-${i}`,
        title: `gpuops(${cluster}): place alg-${i} on short-task`,
        body: 'b',
        desiredHash: 'h',
        number: null,
        url: null,
        state: 'open',
        updatedAt: `2026-11-30T10:${String(i).padStart(2, '0')}:00.000Z`,
      });
  await store.close();
  return url;
}

let onlyDefault = '';
let onlyDemo = '';
let two = '';
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-cluster-choice-'));
  [onlyDefault, onlyDemo, two] = await Promise.all([
    database('default', { default: 2 }),
    database('demo', { demo: 11 }),
    database('two', { a: 1, b: 1 }),
  ]);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('status and prs with a cluster the database does not hold', { timeout: 90_000 }, () => {
  it('status --cluster prod on a database of default: exit 2, naming default', async () => {
    const r = await gpuops(['status', '--cluster', 'prod', '--database', onlyDefault]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('holds nothing of cluster "prod"; it holds cluster default');
    expect(r.stdout).toBe('');
  });

  it('the neighbour: status --cluster default on the same database shows it', async () => {
    const r = await gpuops(['status', '--cluster', 'default', '--database', onlyDefault, '-o', 'json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { openPullRequests: unknown[] }).openPullRequests).toHaveLength(2);
  });

  it('GPUOPS_CLUSTER counts as given: prs on an unknown one exits 2', async () => {
    const r = await gpuops(['prs', '--database', onlyDemo], { GPUOPS_CLUSTER: 'prod' });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('it holds cluster demo')]);
  });

  it('prs --all without --cluster on the demo database lists its 11 pull requests', async () => {
    const r = await gpuops(['prs', '--all', '--database', onlyDemo]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('No pull requests recorded');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(12);
    expect(r.stderr).toContain('showing cluster "demo", the only one in');
  });

  it('JSON output gets no note on stderr (scripts read it with stderr merged in)', async () => {
    const r = await gpuops(['status', '--database', onlyDemo, '-o', 'json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((JSON.parse(r.stdout) as { cluster: string }).cluster).toBe('demo');
  });

  it('without --cluster on a database of two clusters, neither default: exit 2 naming both', async () => {
    const r = await gpuops(['status', '--database', two]);
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining('it holds clusters a, b')]);
  });
});
