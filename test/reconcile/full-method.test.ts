/**
 * The method end to end through pull requests: pools PR → a person merges it and Argo CD applies
 * the node labels → benchmarks run on the test node of the simulated cluster → one placement PR
 * per algorithm with its pool and measured run time → merged and applied, the Deployments run on
 * their pools, and the next pass proposes nothing.
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const POOL = 'gpuops.dev/pool';
/** quick runs 42 s, slow 900 s; the default threshold is 600 s. */
const FILES = {
  'README.md': '# gitops\n',
  'algorithms/quick.yaml': algorithmFile('quick', { benchSeconds: 42 }),
  'algorithms/slow.yaml': algorithmFile('slow', { benchSeconds: 900 }),
};
const NODES = [
  gpuNode('gpu-a', 2),
  gpuNode('gpu-long', 4, 'long-task'),
  gpuNode('gpu-short', 4, 'short-task'),
  gpuNode('gpu-z', 2),
];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ files: FILES, nodes: NODES });
});
afterAll(async () => {
  await h.close();
});

const labelOf = (node: string) => h.sim.store.get('nodes', undefined, node)?.metadata.labels?.[POOL];

describe('the method through pull requests', () => {
  let second: PassResult;

  it('pass 1: a pools PR only; no benchmark runs before a node carries the test label', async () => {
    const first = await h.pass();
    expect(first.writeBack.map((r) => [r.branch, r.action])).toEqual([['gpuops/prod/pools', 'created']]);
    expect(h.sim.store.list('jobs')).toEqual([]);
    expect(first.plan.placements.map((p) => [p.algorithm, p.pool, p.reason])).toEqual([
      ['quick', null, expect.any(String)],
      ['slow', null, expect.any(String)],
    ]);
    const pools = Object.fromEntries(first.plan.pools.map((p) => [p.node, p.to]));
    expect(pools).toEqual({
      'gpu-a': 'test',
      'gpu-long': 'long-task',
      'gpu-short': 'short-task',
      'gpu-z': 'unused',
    });
  });

  it('merged and applied: the simulated nodes carry the pool labels Git holds', async () => {
    h.merge('gpuops/prod/pools');
    const summary = await h.sync();
    expect(summary.errors).toEqual([]);
    expect(NODES.map((n) => labelOf(n.metadata.name))).toEqual(['test', 'long-task', 'short-task', 'unused']);
  });

  it('pass 2 starts both benchmarks and returns at once; the pass after they ended opens one placement PR each with pool and run time', async () => {
    const starting = await h.pass();
    expect(starting.plan.placements.map((p) => [p.algorithm, p.reason])).toEqual([
      ['quick', 'BenchmarkPending'],
      ['slow', 'BenchmarkPending'],
    ]);
    expect(starting.writeBack).toEqual([]);
    // The benchmarks run on simulated time; no pass waits for them.
    h.sim.clock.advance(960);
    second = await h.pass();
    const jobs = h.sim.store.list('jobs', 'algorithms');
    expect(jobs.map((j) => j.metadata.labels?.['gpuops.dev/algorithm']).sort()).toEqual(['quick', 'slow']);
    const benchPods = h.sim.store.list('pods', 'algorithms').filter((p) => p.metadata.labels?.['job-name']);
    expect(benchPods.length).toBeGreaterThanOrEqual(2);
    expect(new Set(benchPods.map((p) => p.spec.nodeName))).toEqual(new Set(['gpu-a']));

    expect(second.plan.placements.map((p) => [p.algorithm, p.pool, p.runTimeSeconds])).toEqual([
      ['quick', 'short-task', 42],
      ['slow', 'long-task', 900],
    ]);
    expect(second.writeBack.map((r) => [r.branch, r.action])).toEqual([
      ['gpuops/prod/placement/quick', 'created'],
      ['gpuops/prod/placement/slow', 'created'],
    ]);
    for (const [name, pool, seconds] of [
      ['quick', 'short-task', '42'],
      ['slow', 'long-task', '900'],
    ] as const) {
      const branch = `gpuops/prod/placement/${name}`;
      const d = parse(h.file(branch, `clusters/prod/algorithms/${name}/deployment.yaml`)!);
      expect(d.metadata).toMatchObject({ name, namespace: 'algorithms' });
      expect(d.spec.replicas).toBe(1);
      expect(d.spec.template.spec.nodeSelector).toEqual({ [POOL]: pool });
      const pr = (await h.store.pullRequests('prod')).find((r) => r.branch === branch)!;
      expect(pr.title).toContain(name);
      // The evidence: pool, measured median, threshold; and the run on the test node.
      expect(pr.body).toContain(`| ${name} | ${pool} | ${seconds}.0 | 600.0 |`);
      expect(pr.body).toContain(`| 1 | Succeeded | ${seconds}.0 | gpu-a |`);
    }
  });

  it('quick merged first: the slow PR shares no file with it, so it stays as it is and merges cleanly', async () => {
    h.merge('gpuops/prod/placement/quick');
    expect(h.file('main', 'clusters/prod/kustomization.yaml')).toBeNull();
    const before = h.ref('gpuops/prod/placement/slow');
    const pass = await h.pass();
    expect(pass.writeBack.filter((r) => r.action !== 'unchanged')).toEqual([]);
    expect(h.ref('gpuops/prod/placement/slow')).toBe(before);
    // No new benchmark: the stored results at the same spec hash count.
    expect(h.sim.store.list('jobs', 'algorithms')).toHaveLength(2);
  });

  it('slow merged and applied: each Deployment runs one pod on a node of its pool', async () => {
    h.merge('gpuops/prod/placement/slow');
    const summary = await h.sync();
    expect(summary.errors).toEqual([]);
    const serving = h.sim.store
      .list('pods', 'algorithms')
      .filter((p) => !p.metadata.labels?.['job-name'] && p.status?.phase === 'Running');
    expect(serving.map((p) => [p.metadata.labels?.['gpuops.dev/algorithm'], p.spec.nodeName]).sort()).toEqual(
      [
        ['quick', 'gpu-short'],
        ['slow', 'gpu-long'],
      ],
    );
  });

  it('pass 3: nothing left to propose, no new benchmark, no commit', async () => {
    const jobs = h.sim.store.list('jobs').length;
    const { commits, pushes } = h.workingCopy.counters;
    const third = await h.pass();
    expect(third.writeBack.filter((r) => r.action !== 'unchanged' && r.action !== 'in-base')).toEqual([]);
    expect(third.changeSets).toEqual([]);
    // Plain git has no PR API: gpuops sees the merges in Git and records them, so none counts as open.
    const records = await h.store.pullRequests('prod');
    expect(records.map((r) => [r.branch, r.state]).sort()).toEqual([
      ['gpuops/prod/placement/quick', 'merged'],
      ['gpuops/prod/placement/slow', 'merged'],
      ['gpuops/prod/pools', 'merged'],
    ]);
    expect(await h.host.listOpen()).toEqual([]);
    expect(h.sim.store.list('jobs').length).toBe(jobs);
    expect(h.workingCopy.counters).toMatchObject({ commits, pushes });
  });
});
