/**
 * A server hook that declines gpuops's pushes in pull-request mode (a `pre-receive` hook refusing
 * `refs/heads/gpuops/*`, as a repository rule on branch names does). Before, the pass reported the
 * failure and the next pass cleared it: the status page said Healthy and no metric counted it;
 * only patch mode recorded `GitWriteRefused`. Now the refused branch is recorded under its own
 * ref, as patch mode records the base: the status page is critical with `GitWriteRefused`, the
 * metric counts it, and a later push the remote takes clears it. Real git, the simulated cluster.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createControllerMetrics, registerFleetGauges } from '../../src/controller/metrics.js';
import { loadStatusView } from '../../src/status/load.js';
import { statusStoreOf } from '../../src/store/index.js';
import { gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const harnesses: Harness[] = [];
afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.close()));
});

const POOLS = 'gpuops/prod/pools';

async function gauges(h: Harness): Promise<string> {
  const metrics = createControllerMetrics(false);
  registerFleetGauges(metrics.registry, async () => ({
    fleet: await statusStoreOf(h.store)!.fleetStatus('prod'),
    openPullRequests: [],
  }));
  return metrics.registry.metrics();
}

describe('pull-request mode: a declined push', () => {
  it('is GitWriteRefused on the status page and in the metric, and cleared once a push is taken', async () => {
    const h = await startHarness({
      files: { 'README.md': '# gitops\n' },
      nodes: [gpuNode('gpu-a', 1), gpuNode('gpu-b', 1)],
    });
    harnesses.push(h);
    const hook = join(h.repo.remote, 'hooks', 'pre-receive');
    writeFileSync(
      hook,
      '#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/heads/gpuops/*) echo "branch names gpuops/* are reserved" >&2; exit 1;; esac; done\nexit 0\n',
    );
    chmodSync(hook, 0o755);

    const first = await h.pass();
    expect(first.writeBack.find((w) => w.branch === POOLS)).toMatchObject({
      action: 'failed',
      reason: 'PushDeclined',
    });
    expect(h.ref(POOLS)).toBeNull();
    const view = await loadStatusView(statusStoreOf(h.store)!, 'prod', h.sim.clock.now());
    expect(view.health.level).toBe('critical');
    expect(view.health.causes).toContainEqual(
      expect.objectContaining({
        reason: 'GitWriteRefused',
        message: expect.stringMatching(
          /^gpuops\/prod\/pools refuses gpuops's commits \(push declined by a hook\)/,
        ),
      }),
    );
    expect(await gauges(h)).toContain(`gpuops_git_write_refused{ref="${POOLS}",reason="PushDeclined"} 1`);

    // The next pass is declined again: the refusal still stands (it is not cleared by a pass that wrote nothing).
    h.sim.clock.advance(60);
    await h.pass();
    expect((await statusStoreOf(h.store)!.fleetStatus('prod'))?.writeRefusals?.map((r) => r.ref)).toEqual([
      POOLS,
    ]);

    // The hook goes: the push is taken, the refusal is cleared, the page no longer says so.
    rmSync(hook);
    h.sim.clock.advance(60);
    const later = await h.pass();
    expect(later.writeBack.find((w) => w.branch === POOLS)?.action).toBe('created');
    expect((await statusStoreOf(h.store)!.fleetStatus('prod'))?.writeRefusals).toBeUndefined();
    const after = await loadStatusView(statusStoreOf(h.store)!, 'prod', h.sim.clock.now());
    expect(after.health.causes.map((c) => c.reason)).not.toContain('GitWriteRefused');
  });
});
