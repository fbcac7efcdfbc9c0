/**
 * A mistyped `--cluster` is refused by `reconcile` and `run` (exit 2, before any pass or Lease):
 * a cluster neither the repo (`clusters/<name>/` on the base branch) nor the database has seen,
 * unless `--new-cluster` says it is new. A first run (no `clusters/`, an empty database) goes on.
 * The rule as a table; the commands against the simulated cluster over HTTP and a real bare repo.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newClusterRefusal } from '../../src/cli/cluster-choice.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { runMain } from '../support/run-main.js';

describe('newClusterRefusal', () => {
  it.each([
    ['first run: no clusters/ folder, empty database', 'prod', [], [], false, null],
    ['the repo has the folder', 'prod', ['prod'], [], false, null],
    ['the database knows it (its folder not merged yet)', 'prod', [], ['prod'], false, null],
    [
      'a typo of a folder in the repo',
      'prd',
      ['prod'],
      [],
      false,
      /clusters\/prod\/.*--cluster prod\?.*--new-cluster/,
    ],
    [
      'a typo of a cluster in the database',
      'prd',
      [],
      ['prod'],
      false,
      /database holds cluster prod.*--cluster prod\?/,
    ],
    ['a new cluster, said so', 'staging', ['prod'], ['prod'], true, null],
    [
      'several known: the first named',
      'dev',
      ['prod', 'edge'],
      ['qa'],
      false,
      /clusters\/edge\/, clusters\/prod\/; the database holds cluster qa\).*--cluster edge\?/,
    ],
  ] as const)('%s', (_name, cluster, repo, database, isNew, expected) => {
    const got = newClusterRefusal(cluster, { repo, database }, isNew);
    if (expected === null) expect(got).toBeNull();
    else expect(got).toMatch(expected);
  });
});

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
let sim: SimCluster;
let work: string;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });

/** A bare origin seeded with the example repo, and with `clusters/<c>/nodes/x.yaml` for each of `clusters`. */
function origin(name: string, clusters: string[]): string {
  const seed = path.join(work, `${name}-seed`);
  cpSync(path.join(ROOT, 'examples/gitops-repo'), seed, { recursive: true });
  for (const c of clusters) {
    mkdirSync(path.join(seed, 'clusters', c, 'nodes'), { recursive: true });
    writeFileSync(
      path.join(seed, 'clusters', c, 'nodes', 'x.yaml'),
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: x\n',
    );
  }
  git('init', '-q', '-b', 'main', seed);
  git('-C', seed, 'add', '-A');
  git('-C', seed, 'commit', '-q', '-m', 'seed');
  const bare = path.join(work, `${name}.git`);
  git('clone', '-q', '--bare', seed, bare);
  return bare;
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(path.join(FIXTURE, 'nodes.json'), 'utf8')),
    pods: JSON.parse(readFileSync(path.join(FIXTURE, 'pods.json'), 'utf8')),
  });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-cluster-refusal-'));
  sim.writeKubeconfig(path.join(work, 'kubeconfig'));
  vi.stubEnv('GPUOPS_CACHE_DIR', path.join(work, 'cache'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const connection = (repo: string, db: string, cluster: string) => [
  '--repo-url',
  `file://${repo}`,
  '--kubeconfig',
  path.join(work, 'kubeconfig'),
  '--database',
  `sqlite:${path.join(work, db)}`,
  '--cluster',
  cluster,
];

describe('gpuops reconcile and run refuse a cluster nobody has seen', { timeout: 120_000 }, () => {
  it("reconcile: a typo of the repo's cluster is exit 2 and writes nothing; the right name and --new-cluster pass", async () => {
    const repo = origin('typo', ['prod']);
    const refs = git('-C', repo, 'for-each-ref');
    const typo = await runMain('reconcile', '--once', ...connection(repo, 'typo.db', 'prd'));
    expect(typo.code).toBe(2);
    expect(typo.err).toContain(
      '--cluster prd: neither the repo nor the database has seen cluster "prd" (the repo has clusters/prod/)',
    );
    expect(typo.err).toContain('Did you mean --cluster prod? For a new cluster, pass --new-cluster');
    expect(typo.out).toBe('');
    expect(git('-C', repo, 'for-each-ref')).toBe(refs);

    const right = await runMain('reconcile', '--once', '--dry-run', ...connection(repo, 'typo.db', 'prod'));
    expect(right.code).toBe(0);
    const fresh = await runMain(
      'reconcile',
      '--once',
      '--dry-run',
      '--new-cluster',
      ...connection(repo, 'typo.db', 'prd'),
    );
    expect(fresh.code).toBe(0);
    expect(fresh.out).toContain('change sets (dry run: nothing written):');
  });

  it('reconcile: a first run (no clusters/, empty database) goes on; then the database knows the cluster', async () => {
    const repo = origin('first', []);
    const first = await runMain('reconcile', '--once', ...connection(repo, 'first.db', 'prod'));
    expect(first.code).toBe(0);
    expect(first.out).toContain('gpuops/prod/pools');
    // The pools pull request is not merged: the repo still has no clusters/, the database has prod.
    const typo = await runMain('reconcile', '--once', ...connection(repo, 'first.db', 'prd'));
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('the database holds cluster prod');
  });

  it('run: refused before the Lease is taken, exit 2', async () => {
    const repo = origin('run', ['prod']);
    const r = await runMain('run', '--health-port', '0', ...connection(repo, 'run.db', 'prd'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('--cluster prd: neither the repo nor the database has seen cluster "prd"');
    const leases = await fetch(`${sim.url}/apis/coordination.k8s.io/v1/leases`, {
      headers: { authorization: `Bearer ${sim.token}` },
    }).then((x) => x.json() as Promise<{ items: unknown[] }>);
    expect(leases.items).toEqual([]);
  });
});
