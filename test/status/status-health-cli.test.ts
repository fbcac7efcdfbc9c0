/**
 * `gpuops status` as a person runs it, on a real SQLite database: an algorithm held at NoCapacity
 * longer than the start-up allowance makes the headline Degraded with the decision's own message
 * (a few minutes less stays Healthy), and a benchmark that timed out shows its reason and the knob
 * (`benchmark.timeoutSeconds`) instead of "not benchmarked".
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { place } from '../../src/placement/place.js';
import { openStore, statusStoreOf } from '../../src/store/index.js';
import type { FleetStatusRecord, StatusAlgorithmEntry } from '../../src/store/types.js';
import { runMain } from '../support/run-main.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NO_ROOM =
  'above max; no node of pool long-task has 1 free GPU(s) and no unused node of NVIDIA-H100-80GB-HBM3 does either (2 unused node(s))';

function entry(name: string, over: Partial<StatusAlgorithmEntry>): StatusAlgorithmEntry {
  return {
    name,
    pool: 'long-task',
    runTimeSeconds: 900,
    placementReason: 'AboveThreshold',
    placementMessage: 'run time 900 s > 600 s',
    replicas: 1,
    minReplicas: 1,
    maxReplicas: 4,
    utilizationMin: 30,
    utilizationMax: 80,
    utilization: 95,
    scalingReason: 'WithinBand',
    scalingMessage: 'within band',
    ...over,
  };
}

/** A database whose passes held `llm` at NoCapacity every minute for `heldMinutes`, the newest now (and `bert` timed out). */
async function database(heldMinutes: number, withTimedOut = false): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-status-health-'));
  dirs.push(dir);
  const url = `sqlite:${path.join(dir, 'state.db')}`;
  const store = statusStoreOf(await openStore(url))!;
  const now = Date.now();
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();
  await store.recordDecisions!(
    Array.from({ length: heldMinutes + 1 }, (_, k) => ({
      kind: 'scaling' as const,
      subject: 'llm',
      action: 'hold',
      reason: 'NoCapacity',
      message: NO_ROOM,
      replicasFrom: 1,
      replicasTo: 1,
      utilization: 95,
      at: at(heldMinutes - k),
    })),
  );
  const timedOut = place(
    {
      algorithm: 'bert',
      pinned: 'auto',
      benchmark: {
        status: 'TimedOut',
        medianSeconds: null,
        message: 'run 1 (Job bert-bench-1) TimedOut: no end within activeDeadlineSeconds 1800 s',
      },
    },
    600,
  );
  const fleet: FleetStatusRecord = {
    cluster: 'prod',
    at: at(0),
    longTaskThresholdSeconds: 600,
    podStartupSeconds: 300,
    pools: [],
    algorithms: [
      ...(withTimedOut
        ? [
            entry('bert', {
              pool: null,
              runTimeSeconds: null,
              placementReason: timedOut.reason,
              placementMessage: timedOut.message,
              replicas: null,
              scalingReason: null,
              scalingMessage: null,
            }),
          ]
        : []),
      entry('llm', { scalingReason: 'NoCapacity', scalingMessage: NO_ROOM }),
    ],
  };
  await store.saveFleetStatus(fleet);
  await store.close();
  return url;
}

describe('gpuops status tells what holds an algorithm', () => {
  it('a replica unplaceable for 6 min is Degraded, with the decision’s reason and message', async () => {
    const r = await runMain('status', '--database', await database(6), '--cluster', 'prod');
    expect(r.code).toBe(0);
    const headline = r.out.split('\n').find((l) => /^[✔⚠✖] /.test(l))!;
    expect(headline).toMatch(
      /^⚠ Degraded: llm cannot place a replica for 6 min \(NoCapacity: above max; no node of pool long-task/,
    );
    expect(r.out).toContain(`    NoCapacity: ${NO_ROOM}`);
  });

  it('4 min is still within the start-up allowance (300 s): Healthy', async () => {
    const r = await runMain('status', '--database', await database(4), '--cluster', 'prod');
    expect(r.out.split('\n').find((l) => /^[✔⚠✖] /.test(l))).toMatch(/^✔ Healthy: /);
  });

  it('a benchmark that timed out shows its reason and the knob, not "not benchmarked"', async () => {
    const r = await runMain('status', '--database', await database(0, true), '--cluster', 'prod');
    const line = r.out.split('\n').find((l) => l.startsWith('  bert:'))!;
    expect(line).toContain(
      'BenchmarkFailed: benchmark ended TimedOut: run 1 (Job bert-bench-1) TimedOut: no end within activeDeadlineSeconds 1800 s; not placed until the spec changes (benchmark.timeoutSeconds, in the spec or the policy, is the time a run may take)',
    );
    expect(line).not.toContain('not benchmarked');
  });
});
