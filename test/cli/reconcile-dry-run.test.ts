/**
 * Issue 16 item 6: `gpuops reconcile --dry-run` writes nothing: no database file (not even its
 * folder), no commit or branch on the GitOps origin. Against the simulated cluster over HTTP and a
 * real bare Git repository.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runMain } from '../support/run-main.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');
let sim: SimCluster;
let work: string;
let origin: string;

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    encoding: 'utf8',
  });

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: JSON.parse(readFileSync(path.join(FIXTURE, 'nodes.json'), 'utf8')),
    pods: JSON.parse(readFileSync(path.join(FIXTURE, 'pods.json'), 'utf8')),
  });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-dry-run-'));
  sim.writeKubeconfig(path.join(work, 'kubeconfig'));
  const seed = path.join(work, 'seed');
  cpSync(path.join(ROOT, 'examples/gitops-repo'), seed, { recursive: true });
  git('init', '-q', '-b', 'main', seed);
  git('-C', seed, 'add', '-A');
  git('-C', seed, 'commit', '-q', '-m', 'seed');
  origin = path.join(work, 'origin.git');
  git('clone', '-q', '--bare', seed, origin);
});

afterAll(async () => {
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const run = runMain;

describe('gpuops reconcile --dry-run', { timeout: 90_000 }, () => {
  it('decides and prints, and creates no database file, no branch, no commit', async () => {
    vi.stubEnv('GPUOPS_CACHE_DIR', path.join(work, 'cache'));
    try {
      const db = path.join(work, 'state', 'gpuops.db');
      const refsBefore = git('-C', origin, 'for-each-ref');
      const args = [
        'reconcile',
        '--once',
        '--dry-run',
        '--repo-url',
        `file://${origin}`,
        '--kubeconfig',
        path.join(work, 'kubeconfig'),
        '--database',
        `sqlite:${db}`,
      ];
      const r = await run(...args, '--output', 'json');
      expect(r.code).toBe(0);
      const pass = JSON.parse(r.out) as { writeBack: { action: string }[]; pools: { node: string }[] };
      expect(pass.pools).toHaveLength(13);
      // It would open the pools pull request, and says so; nothing is written.
      expect(pass.writeBack.length).toBeGreaterThan(0);
      expect(existsSync(db)).toBe(false);
      expect(existsSync(path.dirname(db))).toBe(false);
      expect(git('-C', origin, 'for-each-ref')).toBe(refsBefore);
      const text = await run(...args);
      expect(text.out).toContain('change sets (dry run: nothing written):');
      expect(existsSync(db)).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
