/**
 * Issue 23 item 4 (input `test/fixtures/fleet-faults/F05`, from `../shared/cases/fleet-faults/F05`):
 * patch mode against a protected base branch. Real git (a bare repo whose pre-receive hook refuses
 * every push to main, as GitHub's branch protection does: "GH006: Protected branch update
 * failed"), the simulated cluster over HTTP with its dcgm-exporter pages, one Deployment at 96 %.
 * Before the change the Deployment was patched to 2 replicas and the commit then refused: the
 * cluster ran what Git did not hold. Now Git is written first and the cluster patched only with
 * what Git holds; the refusal is permanent (its own reason, the status page, a metric), not
 * pushed again on the next pass, and tried again an hour later.
 */
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createControllerMetrics, registerFleetGauges } from '../../src/controller/metrics.js';
import { reconcileOnce } from '../../src/pass/reconcile.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import { createReconcilerMemory } from '../../src/plan/memory.js';
import type { KubeObject } from '../../src/sim/index.js';
import { loadStatusView } from '../../src/status/load.js';
import { statusStoreOf } from '../../src/store/index.js';
import { startHarness, type Harness } from '../support/reconcile-harness.js';

const F05 = new URL('../fixtures/fleet-faults/F05/', import.meta.url).pathname;
const DEPLOYMENT = 'clusters/prod/algorithms/resnet50-infer/deployment.yaml';

function seedFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(join(F05, 'seed'), p)] = readFileSync(p, 'utf8');
    }
  };
  walk(join(F05, 'seed'));
  return out;
}

const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

/** F05's fleet with the Deployment of Git applied and its one pod at 96 %; `protectedMain` installs the hook. */
async function f05(protectedMain: boolean): Promise<{ h: Harness; pushes: () => number }> {
  const nodes = (JSON.parse(readFileSync(join(F05, 'nodes.json'), 'utf8')) as { items: KubeObject[] }).items;
  const h = await startHarness({ files: seedFiles(), nodes });
  harnesses.push(h);
  const log = join(h.repo.root, 'pushes.log');
  if (protectedMain) {
    // F05's hook, logging the refs of each push it sees (patch mode's pools pull request, which
    // binds gpuops-scale in the namespace files, pushes a branch besides main).
    const hook = join(h.repo.remote, 'hooks', 'pre-receive');
    const f05Hook = join(h.repo.root, 'f05-pre-receive');
    writeFileSync(f05Hook, readFileSync(join(F05, 'pre-receive'), 'utf8'));
    writeFileSync(
      hook,
      `#!/bin/sh\ninput=$(cat)\nprintf '%s\\n' "$input" | while read old new ref; do echo "$ref" >> '${log}'; done\nprintf '%s\\n' "$input" | sh '${f05Hook}'\n`,
    );
    chmodSync(hook, 0o755);
  }
  await h.sync();
  h.load.setLoad('resnet50-infer', 96);
  h.setMetrics(
    new DcgmScrapeSource({
      targets: ['gpu-s1', 'gpu-t1', 'gpu-u1'].map((node) => ({
        url: `${h.sim.url}/dcgm/${node}/metrics`,
        node,
      })),
      now: () => h.sim.clock.now(),
    }),
  );
  const pushes = () => {
    try {
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter((ref) => ref === 'refs/heads/main').length;
    } catch {
      return 0;
    }
  };
  return { h, pushes };
}

const live = (h: Harness) => h.sim.store.get('deployments', 'algorithms', 'resnet50-infer')?.spec.replicas;
const inGit = (h: Harness) =>
  (parse(h.file('main', DEPLOYMENT)!) as { spec: { replicas: number } }).spec.replicas;
const scaleOf = (r: Awaited<ReturnType<Harness['pass']>>) => r.writeBack.find((w) => w.kind === 'scale');

describe('F05: patch mode, main protected', () => {
  it('patches nothing Git refused, reports the refusal as permanent, and does not push again next pass', async () => {
    const { h, pushes } = await f05(true);
    expect(live(h)).toBe(1);
    const main0 = h.ref('main');

    const first = await h.pass();
    expect(first.plan.scaling.find((d) => d.algorithm === 'resnet50-infer')).toMatchObject({
      action: 'scale-up',
      replicas: { from: 1, to: 2 },
    });
    const w = scaleOf(first)!;
    expect(w).toMatchObject({ action: 'failed', reason: 'ProtectedBranch', branch: 'main', commit: null });
    expect(w.message).toMatch(
      /^main refuses gpuops's commits \(protected branch: main: \[remote rejected\] \(pre-receive hook declined\): error: GH006: Protected branch update failed/,
    );
    expect(w.message).toMatch(/nothing was patched in the cluster; not tried again before \d\d:\d\d UTC/);
    expect(first.patches).toEqual([]);
    await h.settle();
    // Cluster and Git agree: 1 replica each; main did not move.
    expect(live(h)).toBe(1);
    expect(inGit(h)).toBe(1);
    expect(h.ref('main')).toBe(main0);
    expect(pushes()).toBe(1);

    // The status page and the metric say so.
    const view = await loadStatusView(statusStoreOf(h.store)!, 'prod', h.sim.clock.now());
    expect(view.health.level).toBe('critical');
    expect(view.health.causes).toContainEqual(
      expect.objectContaining({
        reason: 'GitWriteRefused',
        message: expect.stringMatching(/^main refuses gpuops's commits \(protected branch\)/),
      }),
    );
    const metrics = createControllerMetrics(false);
    registerFleetGauges(metrics.registry, async () => ({
      fleet: await statusStoreOf(h.store)!.fleetStatus('prod'),
      openPullRequests: [],
    }));
    expect(await metrics.registry.metrics()).toContain(
      'gpuops_git_write_refused{ref="main",reason="ProtectedBranch"} 1',
    );

    // Pass 2 (same reconciler) and a new process (`reconcile --once` again: fresh memo tables,
    // the refusal read from the database): stalled, no push, no patch.
    // (past the scale-up cooldown of 120 s, so the pass wants the same change again)
    h.sim.clock.advance(121);
    const second = await h.pass();
    expect(scaleOf(second)).toMatchObject({ action: 'stalled', reason: 'ProtectedBranch' });
    h.sim.clock.advance(121);
    const third = await reconcileOnce({ ...h.deps, memory: createReconcilerMemory() });
    expect(scaleOf(third)).toMatchObject({ action: 'stalled', reason: 'ProtectedBranch' });
    expect(third.patches).toEqual([]);
    expect(pushes()).toBe(1);
    expect(live(h)).toBe(1);

    // An hour later it is tried once again (someone may have lifted the protection).
    h.sim.clock.advance(3601);
    const later = await h.pass();
    expect(scaleOf(later)).toMatchObject({ action: 'failed', reason: 'ProtectedBranch' });
    // One push to main (refused again) and one of the placement branch: the benchmark that ended
    // meanwhile recorded its GPU product, which the Deployment's node affinity now names (issue 24).
    // The pools pull request (gpuops-scale's RoleBinding per namespace) stays open, unchanged.
    expect(later.writeBack.map((x) => [x.branch, x.action])).toEqual([
      ['gpuops/prod/pools', 'unchanged'],
      ['gpuops/prod/placement/resnet50-infer', 'created'],
      ['main', 'failed'],
    ]);
    expect(pushes()).toBe(2); // pushes of main
    expect(live(h)).toBe(1);
  });

  it('the neighbour: main not protected — committed first, then patched; Git and cluster hold 2', async () => {
    const { h } = await f05(false);
    const first = await h.pass();
    expect(scaleOf(first)).toMatchObject({ action: 'committed', reason: 'Committed', branch: 'main' });
    expect(first.patches).toEqual([expect.stringMatching(/^Deployment algorithms\/resnet50-infer: /)]);
    await h.settle();
    expect(inGit(h)).toBe(2);
    expect(live(h)).toBe(2);
    const view = await loadStatusView(statusStoreOf(h.store)!, 'prod', h.sim.clock.now());
    expect(view.health.causes.map((c) => c.reason)).not.toContain('GitWriteRefused');
    expect((await statusStoreOf(h.store)!.fleetStatus('prod'))?.writeRefusals).toBeUndefined();
  });
});
