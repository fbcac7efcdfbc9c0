/**
 * Issue 23 items 1 and 3 through whole reconcile passes against the fake GitHub, which answers as
 * GitHub does (title over 256 or body over 65,536 characters: 422 Validation Failed; optionally 403
 * on adding labels). Inputs: `test/fixtures/fleet-faults/F01` (12 EKS-named nodes, whose names in
 * a title are 570 characters) and `F08` (a token that may open pull requests but not create
 * labels); each folder's expected.json names the public report it follows.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStatusView } from '../../src/status/load.js';
import type { KubeObject } from '../../src/sim/index.js';
import { statusStoreOf } from '../../src/store/index.js';
import { FakeGitHub, GITHUB_LIMITS } from '../support/github-server.js';
import { startHarness, type Harness } from '../support/reconcile-harness.js';

const fixture = (name: string, file: string): string =>
  readFileSync(new URL(`../fixtures/fleet-faults/${name}/${file}`, import.meta.url), 'utf8');

function input(name: string): { files: Record<string, string>; nodes: KubeObject[] } {
  return {
    files: { 'algorithms/resnet50-infer.yaml': fixture(name, 'algorithms/resnet50-infer.yaml') },
    nodes: (JSON.parse(fixture(name, 'nodes.json')) as { items: KubeObject[] }).items,
  };
}

const harnesses: Harness[] = [];
const servers: FakeGitHub[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
  await Promise.all(servers.map((s) => s.close()));
});

async function fresh(name: string, labels: 'allowed' | 'forbidden' = 'allowed') {
  const gh = await FakeGitHub.start({ labels });
  servers.push(gh);
  const h = await startHarness({ ...input(name), provider: 'github', github: gh });
  harnesses.push(h);
  return { h, gh };
}

const pools = (r: Awaited<ReturnType<Harness['pass']>>) =>
  r.writeBack.find((w) => w.branch === 'gpuops/prod/pools');

describe('F01: twelve EKS node names in the pools pull request', () => {
  it('opens the pools PR with a title of counts (≤ 256), the names in the body; pass 2 changes nothing', async () => {
    const { h, gh } = await fresh('F01');
    const first = await h.pass();
    expect(pools(first)).toMatchObject({ action: 'created', pullRequest: { number: 1 } });
    const posts = gh.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/pulls'));
    expect(posts.map((r) => r.status)).toEqual([201]);
    const pr = gh.pulls[0]!;
    expect(pr.title.length).toBeLessThanOrEqual(GITHUB_LIMITS.title);
    expect(pr.title).toBe(
      'gpuops(prod): create Namespace algorithms with RoleBinding gpuops-benchmark; move 12 nodes: 1 into test, 11 into unused',
    );
    // Every node is named in the body, the first (by name) as the test node.
    const names = input('F01').nodes.map((n) => n.metadata!.name as string);
    for (const n of names) expect(pr.body).toContain(`| ${n} |`);
    expect(pr.body).toContain(`| ${[...names].sort()[0]} | none | test | TestPool |`);
    // The Namespace the pools PR carries exists on its branch: nothing waits for it any more.
    expect(h.file('gpuops/prod/pools', 'clusters/prod/namespaces/algorithms.yaml')).toContain(
      'kind: Namespace',
    );

    const writes = gh.writes().length;
    const second = await h.pass();
    expect(pools(second)).toMatchObject({ action: 'unchanged' });
    expect(second.writeBack.filter((w) => w.action === 'failed')).toEqual([]);
    expect(gh.writes().length).toBe(writes);
    gh.verify();
  });
});

describe('F08: a token that may open pull requests but not add labels', () => {
  it('the pools PR is created with a warning, recorded, and shown by status; pass 2 does not fail', async () => {
    const { h, gh } = await fresh('F08', 'forbidden');
    const first = await h.pass();
    const w = pools(first)!;
    expect(w.action).toBe('created');
    expect(w.warnings).toEqual([
      expect.stringMatching(
        /^labels gpuops, gpuops\/pools not added to #1: add labels: 403 You do not have permission to create labels/,
      ),
    ]);
    expect(gh.requests.filter((r) => r.path.endsWith('/labels')).map((r) => r.status)).toEqual([403]);
    const [rec] = await h.store.pullRequests('prod');
    expect(rec).toMatchObject({ branch: 'gpuops/prod/pools', number: 1, state: 'open' });
    const view = await loadStatusView(statusStoreOf(h.store)!, 'prod', new Date());
    expect(view.openPullRequests.map((p) => p.branch)).toContain('gpuops/prod/pools');

    // The same host (one `gpuops run`) does not ask again after a 403, and still says so.
    const second = await h.pass();
    expect(pools(second)).toMatchObject({ action: 'unchanged' });
    expect(pools(second)!.warnings?.[0]).toMatch(/not tried again until restart/);
    expect(second.writeBack.filter((r) => r.action === 'failed')).toEqual([]);
    expect(gh.requests.filter((r) => r.path.endsWith('/labels'))).toHaveLength(1);
    gh.verify();
  });

  it('the neighbour: labels allowed, the PR gets them and no warning', async () => {
    const { h, gh } = await fresh('F08', 'allowed');
    const w = pools(await h.pass())!;
    expect(w).toMatchObject({ action: 'created' });
    expect(w.warnings).toBeUndefined();
    expect(gh.pulls[0]!.labels).toEqual(['gpuops', 'gpuops/pools']);
    gh.verify();
  });
});
