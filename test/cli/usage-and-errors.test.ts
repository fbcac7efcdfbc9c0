/**
 * Issue 16 item 6: every usage error of every command exits 2 (unknown option, missing argument or
 * option, invalid choice, a missing required setting), `--output` is checked wherever it exists,
 * and a database that cannot be reached or opened is named with `--database`, never with an
 * internal step (`store migrate: …`). Runs the command functions in process (`main`), as
 * `bin/gpuops.js` does; one row goes through the built binary to pin the exit code it sets.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runMain } from '../support/run-main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
const work = mkdtempSync(path.join(tmpdir(), 'gpuops-usage-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = runMain;

describe('usage errors exit 2, for every command', { timeout: 60_000 }, () => {
  const rows: [string, string[], RegExp][] = [
    ['an unknown command', ['bogus'], /unknown command 'bogus'/],
    ['demo: unknown option', ['demo', '--bogus'], /unknown option '--bogus'/],
    ['validate: unknown option', ['validate', '--bogus'], /unknown option/],
    ['validate: two paths', ['validate', 'a', 'b'], /too many arguments/],
    ['validate: --output yaml', ['validate', '-o', 'yaml'], /argument 'yaml' is invalid/],
    ['plan: no --repo', ['plan'], /required option '--repo <dir>' not specified/],
    ['plan: --output yaml', ['plan', '--repo', '.', '--output', 'yaml'], /argument 'yaml' is invalid/],
    ['plan: --nodes without --pods', ['plan', '--repo', '.', '--nodes', 'n.json'], /go together/],
    ['reconcile: unknown option', ['reconcile', '--bogus'], /unknown option/],
    ['reconcile: --output yaml', ['reconcile', '--output', 'yaml'], /argument 'yaml' is invalid/],
    ['reconcile: no --repo-url', ['reconcile', '--once'], /--repo-url: the GitOps repo remote is required/],
    [
      'reconcile: --provider bitbucket',
      ['reconcile', '--provider', 'bitbucket'],
      /--provider: must be one of git, github, gitlab, gitea, forgejo, got "bitbucket"/,
    ],
    ['run: unknown option', ['run', '--bogus'], /unknown option/],
    ['run: --interval 0', ['run', '--interval', '0'], /--interval must be a number of seconds/],
    ['run: no --repo-url', ['run'], /--repo-url: the GitOps repo remote is required/],
    ['snapshot: --output yaml', ['snapshot', '-o', 'yaml'], /argument 'yaml' is invalid/],
    ['benchmark: no name', ['benchmark'], /missing required argument 'name'/],
    ['benchmark: --output yaml', ['benchmark', 'x', '-o', 'yaml'], /argument 'yaml' is invalid/],
    ['prs: --output yaml', ['prs', '-o', 'yaml'], /argument 'yaml' is invalid/],
    ['prs show: no id', ['prs', 'show'], /missing required argument 'id'/],
    ['status: --output yaml', ['status', '--output', 'yaml'], /argument 'yaml' is invalid/],
    ['sim: unknown option', ['sim', '--bogus'], /unknown option/],
    ['replay: no --trace', ['replay'], /^gpuops: replay needs --trace FILE, .*bundled trace.*\n$/],
    ['replay: --output yaml', ['replay', '--trace', 't', '--output', 'yaml'], /argument 'yaml' is invalid/],
    [
      'replay: --nodes 2.5',
      ['replay', '--trace', 't', '--nodes', '2.5'],
      /expected a whole number ≥ 0 or "auto", got "2.5"/,
    ],
    [
      'replay: --nodes -1',
      ['replay', '--trace', 't', '--nodes', '-1'],
      /expected a whole number ≥ 0 or "auto", got "-1"/,
    ],
    [
      'replay: --nodes for one service',
      ['replay', '--trace', 'test/fixtures/none.csv', '--nodes', '4'],
      /--nodes replays a fleet: give --services K/,
    ],
    [
      'replay: --scheduler-scoring Spread',
      ['replay', '--trace', 't', '--scheduler-scoring', 'Spread'],
      /argument 'Spread' is invalid/,
    ],
    [
      'replay: --scored-resources gpu',
      ['replay', '--trace', 't', '--scored-resources', 'cpu,gpu'],
      /--scored-resources: "gpu" is not one of cpu, memory, nvidia.com\/gpu/,
    ],
  ];
  it.each(rows)('%s', async (_name, args, message) => {
    const r = await run(...args);
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
  });

  it('the built binary sets exit code 2 too', async () => {
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile('node', ['bin/gpuops.js', 'reconcile', '-o', 'yaml'], { cwd: ROOT }, (err, _o, stderr) =>
        resolve({ code: err ? (err.code as number) : 0, stderr }),
      ),
    );
    expect(r.stderr).toMatch(/argument 'yaml' is invalid\. Allowed choices are text, json/);
    expect(r.code).toBe(2);
  });
});

describe('a database that cannot be reached or opened names --database and the server', () => {
  const dumps = ['--nodes', path.join(FIXTURE, 'nodes.json'), '--pods', path.join(FIXTURE, 'pods.json')];

  it.each([
    ['status', ['status']],
    ['prs', ['prs']],
    ['snapshot', ['snapshot', ...dumps]],
  ])('%s: PostgreSQL refusing the connection (no password in the message)', async (_name, args) => {
    const r = await run(...args, '--database', 'postgres://gpuops:s3cret@127.0.0.1:1/gpuops');
    expect(r.err).toBe(
      'gpuops: cannot connect to PostgreSQL at 127.0.0.1:1 (--database): connection refused\n',
    );
    expect(r.code).toBe(1);
  });

  it('a host name that does not resolve', async () => {
    const r = await run('status', '--database', 'postgresql://gpuops@no-such-host.invalid/gpuops');
    expect(r.err).toBe(
      'gpuops: cannot connect to PostgreSQL at no-such-host.invalid:5432 (--database): host not found\n',
    );
  });

  it('a SQLite path that cannot be opened, and a file that is not a database', async () => {
    const file = path.join(work, 'plain-file');
    writeFileSync(file, 'not a database\n');
    const under = await run('snapshot', ...dumps, '--database', `sqlite:${file}/state.db`);
    expect(under.err).toMatch(
      new RegExp(
        `^gpuops: cannot open SQLite database ${file}/state\\.db \\(--database\\): .*(EEXIST|ENOTDIR)`,
      ),
    );
    expect(under.code).toBe(1);
    // A folder that cannot be made (Node's recursive mkdir loops forever under /proc): an error, at once.
    const proc = await run('snapshot', ...dumps, '--database', 'sqlite:/proc/gpuops-no-such/state.db');
    expect(proc.err).toBe(
      "gpuops: cannot open SQLite database /proc/gpuops-no-such/state.db (--database): ENOENT: no such file or directory, mkdir '/proc/gpuops-no-such'\n",
    );
    expect(proc.code).toBe(1);
    // The same for the demo's folder (`--dir`): an error naming the folder, not a hang.
    const demo = await run('demo', '--dir', '/proc/gpuops-no-such/demo');
    expect(demo.err).toContain(
      "gpuops demo: ENOENT: no such file or directory, mkdir '/proc/gpuops-no-such'\n",
    );
    expect(demo.code).toBe(1);
    const notDb = await run('status', '--database', `sqlite:${file}`);
    expect(notDb.err).toBe(
      `gpuops: cannot open SQLite database ${file} (--database): file is not a database\n`,
    );
    expect(notDb.code).toBe(1);
  });
});

describe('--kubeconfig naming no file is a usage error (exit 2) naming the file', { timeout: 60_000 }, () => {
  it.each([
    ['plan (live cluster)', ['plan', '--repo', path.join(ROOT, 'examples/gitops-repo')]],
    [
      'reconcile --once',
      ['reconcile', '--once', '--repo-url', path.join(work, 'no-remote.git'), '--dry-run'],
    ],
  ])('%s', async (_name, args) => {
    const missing = path.join(work, 'no-such-kubeconfig');
    const r = await run(...args, '--kubeconfig', missing);
    expect(r.err).toBe(`gpuops: --kubeconfig: no file at ${missing}\n`);
    expect(r.code).toBe(2);
  });
});

describe('plan without cluster access', () => {
  it('says how to plan offline: --nodes and --pods', async () => {
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('HOME', work);
    try {
      const r = await run('plan', '--repo', path.join(ROOT, 'examples/gitops-repo'));
      expect(r.err).toMatch(/^gpuops: no cluster access: .*\n.*--nodes FILE --pods FILE/);
      expect(r.code).toBe(1);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
