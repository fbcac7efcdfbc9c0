/**
 * Issue 13.10: no two subjects' pull requests touch the same file, so a person can merge gpuops's
 * pull requests in any order. One real pass opens the pools PR (which also migrates the old
 * layout: it deletes the root and nested kustomization files) and three placement PRs at once;
 * then eight orders of merging the four branches are tried with real `git merge` in a clone:
 * no conflict in any order, the same tree at the end, and Argo CD (the applier, directory source)
 * syncs that tree without an error.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyGitOpsFolder } from '../../src/gitops-apply/index.js';
import { renderNamespaceFile } from '../../src/manifests/namespaces.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';
import { git } from '../gitops/helpers.js';

const OLD_KUSTOMIZATION = (resources: string[]) =>
  [
    'apiVersion: kustomize.config.k8s.io/v1beta1',
    'kind: Kustomization',
    'resources:',
    ...resources.map((r) => `  - ${r}`),
    '',
  ].join('\n');

/** main as the old layout left it: a root list, a nodes list and one algorithm folder with its own list. */
const FILES = {
  'README.md': '# gitops\n',
  'algorithms/a-quick.yaml': algorithmFile('a-quick', { benchSeconds: 40 }),
  'algorithms/b-slow.yaml': algorithmFile('b-slow', { benchSeconds: 900 }),
  'algorithms/c-mid.yaml': algorithmFile('c-mid', { benchSeconds: 120 }),
  'clusters/prod/kustomization.yaml': OLD_KUSTOMIZATION(['nodes', 'algorithms/old']),
  'clusters/prod/nodes/kustomization.yaml': OLD_KUSTOMIZATION([]),
  'clusters/prod/algorithms/old/kustomization.yaml': OLD_KUSTOMIZATION([]),
  // The namespace is in Git already, so the first pass benchmarks and places at once.
  'clusters/prod/namespaces/algorithms.yaml': renderNamespaceFile('prod', 'algorithms').content,
};
/** Already labelled in the cluster, so the first pass benchmarks and places at once. */
const NODES = [
  gpuNode('gpu-test', 2, 'test'),
  gpuNode('gpu-long', 4, 'long-task'),
  gpuNode('gpu-short', 4, 'short-task'),
];

let h: Harness;
let work: string;
let branches: string[];

beforeAll(async () => {
  h = await startHarness({ files: FILES, nodes: NODES });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-merge-order-'));
  // Benchmarks run in the background (no pass waits on a Job): passes go on, 5 simulated
  // minutes apart, until each algorithm's placement pull request is open beside the pools one.
  const created = new Set<string>();
  for (let i = 0; i < 40 && created.size < 4; i++) {
    const pass = await h.pass();
    for (const r of pass.writeBack) if (r.action === 'created') created.add(r.branch);
    h.sim.clock.advance(300);
  }
  branches = [...created].sort();
});

afterAll(async () => {
  await h.close();
  rmSync(work, { recursive: true, force: true });
});

/** Every rotation of `xs` and of its reverse: each branch is merged first, last and in between. */
function orders<T>(xs: T[]): T[][] {
  const rotations = (ys: T[]) => ys.map((_, i) => [...ys.slice(i), ...ys.slice(0, i)]);
  return [...rotations(xs), ...rotations([...xs].reverse())];
}

const REVIEWER = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Reviewer',
  GIT_AUTHOR_EMAIL: 'reviewer@example.com',
  GIT_COMMITTER_NAME: 'Reviewer',
  GIT_COMMITTER_EMAIL: 'reviewer@example.com',
};

/**
 * In one clone (made once), starts from origin/main and merges `order` with `git merge --no-ff`,
 * as a person pressing GitHub's merge button one PR after the other; returns the tree or the conflict.
 */
function mergeInOrder(order: string[]): { tree: string } | { conflict: string } {
  const dir = path.join(work, 'clone');
  if (!existsSync(dir)) git(work, 'clone', '-q', h.repo.url, dir);
  git(dir, 'checkout', '-q', '--detach', 'origin/main');
  git(dir, 'reset', '-q', '--hard');
  for (const b of order) {
    try {
      execFileSync('git', ['-C', dir, 'merge', '--no-ff', '-q', '-m', `Merge ${b}`, `origin/${b}`], {
        stdio: 'pipe',
        env: REVIEWER,
      });
    } catch (err) {
      const out = (err as { stdout?: Buffer }).stdout?.toString() ?? String(err);
      git(dir, 'merge', '--abort');
      return { conflict: `${b}: ${out}` };
    }
  }
  return { tree: git(dir, 'rev-parse', 'HEAD^{tree}') };
}

describe('merging gpuops pull requests in any order', () => {
  it('the passes open the pools PR and a placement PR per algorithm, no file in two of them', () => {
    expect(branches).toEqual([
      'gpuops/prod/placement/a-quick',
      'gpuops/prod/placement/b-slow',
      'gpuops/prod/placement/c-mid',
      'gpuops/prod/pools',
    ]);
    const owner = new Map<string, string>();
    for (const b of branches) {
      const changed = git(h.repo.remote, 'diff', '--name-only', `main...${b}`).split('\n');
      for (const f of changed) {
        expect(owner.get(f), `${f} is changed by ${owner.get(f)} and ${b}`).toBeUndefined();
        owner.set(f, b);
      }
    }
    // The pools PR carries the migration and the namespace; placements only their own folder.
    expect([...owner].filter(([, b]) => b === 'gpuops/prod/pools').map(([f]) => f)).toEqual(
      expect.arrayContaining([
        'clusters/prod/kustomization.yaml',
        'clusters/prod/nodes/kustomization.yaml',
        'clusters/prod/algorithms/old/kustomization.yaml',
      ]),
    );
  });

  it('eight orders (each PR first, last and in between) merge without a conflict and end in the same tree', () => {
    const trees = new Set<string>();
    for (const order of orders(branches)) {
      const r = mergeInOrder(order);
      expect(r, order.join(' → ')).not.toHaveProperty('conflict');
      if ('tree' in r) trees.add(r.tree);
    }
    expect(trees.size).toBe(1);
  }, 120_000);

  it('the merged tree has no kustomization file and Argo CD syncs it cleanly, Namespace first', async () => {
    const dir = path.join(work, 'clone');
    mergeInOrder([...branches].reverse());
    const files = git(dir, 'ls-tree', '-r', '--name-only', 'HEAD', 'clusters/prod/').split('\n');
    expect(files.filter((f) => f.endsWith('kustomization.yaml'))).toEqual([]);
    const summary = await applyGitOpsFolder(h.kc, path.join(dir, 'clusters', 'prod'));
    expect(summary.errors).toEqual([]);
    expect(summary.applied[0]).toMatchObject({ kind: 'Namespace', name: 'algorithms', wave: -2 });
    expect(summary.applied.filter((a) => a.kind === 'Deployment').map((a) => a.name)).toEqual([
      'a-quick',
      'b-slow',
      'c-mid',
    ]);
  });
});
