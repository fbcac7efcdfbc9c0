import { describe, expect, it } from 'vitest';
import type { ClusterPatcher, PatchResult } from '../cluster/index.js';
import * as handover from './handover-schedule.js';
import { handDeploymentsToGit } from './field-handover.js';
import { deploymentHandOver } from '../../test/support/handover-results.js';

// The bound docs/policy-reference.md states; the exported constants are checked against it below.
const RECHECK_MS = 5 * 60_000;
const PER_PASS = 100;
const IN_FLIGHT = 8;
const T0 = Date.parse('2026-12-07T09:00:00Z');

const deployments = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    namespace: 'algorithms',
    name: `alg-${String(i).padStart(3, '0')}`,
  }));

/**
 * A patcher whose Deployment hand-over answers by name ('ok': handed over, 'denied': 403, else
 * nothing shared), each after `delayMs`, counting the reads in flight at once.
 */
function patcher(answers: Record<string, 'ok' | 'denied'> = {}, delayMs = 0) {
  const called: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const p = {
    releaseDeploymentToGit: async (namespace: string, name: string): Promise<PatchResult> => {
      called.push(name);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, delayMs));
      inFlight--;
      return deploymentHandOver(namespace, name, answers[name]);
    },
  } as unknown as ClusterPatcher;
  return { p, called, maxInFlight: () => maxInFlight };
}

const quiet = { dryRun: false, log: { warn: () => undefined, info: () => undefined } as never };

describe('handDeploymentsToGit: each Deployment read at most once per interval, unless gpuops just scaled it', () => {
  it('states the bound the docs give', () => {
    expect(handover.HANDOVER_RECHECK_MS).toBe(RECHECK_MS);
    expect(handover.HANDOVER_CHECKS_PER_PASS).toBe(PER_PASS);
    expect(handover.HANDOVER_CHECKS_IN_FLIGHT).toBe(IN_FLIGHT);
  });

  it.each([
    { later: 1, read: [] },
    { later: RECHECK_MS - 1, read: [] },
    { later: RECHECK_MS, read: ['alg-000', 'alg-001', 'alg-002'] },
  ])('a fresh reconciler reads each once; again $later ms later: $read', async ({ later, read }) => {
    const checks = new Map();
    const first = patcher();
    await handDeploymentsToGit(first.p, quiet, deployments(3), { checks, nowMs: T0 });
    expect(first.called).toEqual(['alg-000', 'alg-001', 'alg-002']);
    const next = patcher();
    await handDeploymentsToGit(next.p, quiet, deployments(3), { checks, nowMs: T0 + later });
    expect(next.called).toEqual(read);
  });

  it.each([
    { later: 1, handedBefore: false, read: ['alg-001'] },
    { later: RECHECK_MS - 1, handedBefore: false, read: ['alg-001'] },
    // Handed over: nothing is shared any more, so the scale no longer brings it forward.
    { later: 1, handedBefore: true, read: [] },
  ])(
    'one gpuops scaled this pass is read every pass ($later ms later, handed over before: $handedBefore)',
    async ({ later, handedBefore, read }) => {
      const checks = new Map();
      const scaled = new Set(['algorithms/alg-001']);
      await handDeploymentsToGit(patcher().p, quiet, deployments(3), { checks, nowMs: T0, scaled });
      if (handedBefore)
        await handDeploymentsToGit(patcher({ 'alg-001': 'ok' }).p, quiet, deployments(3), {
          checks,
          nowMs: T0,
        });
      const next = patcher();
      await handDeploymentsToGit(next.p, quiet, deployments(3), { checks, nowMs: T0 + later });
      expect(next.called).toEqual(read);
    },
  );

  it('at most 100 reads a pass: a fresh reconciler with 250 spreads them over 3 passes, oldest first', async () => {
    const checks = new Map();
    const all = deployments(250);
    const counts: number[] = [];
    const seen: string[] = [];
    for (let pass = 0; pass < 4; pass++) {
      const q = patcher();
      await handDeploymentsToGit(q.p, quiet, all, { checks, nowMs: T0 + pass });
      counts.push(q.called.length);
      seen.push(...q.called);
    }
    expect(counts).toEqual([100, 100, 50, 0]);
    expect(seen).toEqual(all.map((d) => d.name));
    // Past the interval, the first read go first again.
    const q = patcher();
    await handDeploymentsToGit(q.p, quiet, all, { checks, nowMs: T0 + RECHECK_MS });
    expect(q.called).toEqual(all.slice(0, 100).map((d) => d.name));
  });

  it('a failed hand-over is read again next pass; the others not; the line and the warning stay', async () => {
    const checks = new Map();
    const warned: unknown[] = [];
    const log = { warn: (o: unknown) => void warned.push(o), info: () => undefined };
    const first = patcher({ 'alg-002': 'denied' });
    const lines = await handDeploymentsToGit(first.p, { dryRun: false, log: log as never }, deployments(3), {
      checks,
      nowMs: T0,
    });
    expect(lines).toEqual(['Deployment algorithms/alg-002: could not set it: forbidden']);
    expect(warned).toHaveLength(1);
    const next = patcher();
    await handDeploymentsToGit(next.p, quiet, deployments(3), { checks, nowMs: T0 + 1 });
    expect(next.called).toEqual(['alg-002']);
    const third = patcher();
    await handDeploymentsToGit(third.p, quiet, deployments(3), { checks, nowMs: T0 + 2 });
    expect(third.called).toEqual([]);
  });

  it('reads 8 at a time, lines in the order given', async () => {
    const answers = Object.fromEntries(deployments(20).map((d) => [d.name, 'ok' as const]));
    const q = patcher(answers, 5);
    const lines = await handDeploymentsToGit(q.p, quiet, deployments(20), { checks: new Map(), nowMs: T0 });
    expect(q.maxInFlight()).toBe(IN_FLIGHT);
    expect(lines).toEqual(
      deployments(20).map(
        (d) => `Deployment algorithms/${d.name}: ownership of spec.replicas handed to Git’s applier`,
      ),
    );
  });

  it('forgets Deployments no longer given', async () => {
    const checks = new Map();
    await handDeploymentsToGit(patcher().p, quiet, deployments(3), { checks, nowMs: T0 });
    await handDeploymentsToGit(patcher().p, quiet, deployments(1), { checks, nowMs: T0 + 1 });
    expect([...checks.keys()]).toEqual(['algorithms/alg-000']);
  });
});
