/**
 * A reconcile pass's records (`recordPass`) on a real SQLite file: it stores its decisions and
 * deletes the decisions and samples older than the history kept (7 days, or what the policy's
 * windows read), so the database stays bounded however long the reconciler runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DesiredState } from '../../src/plan/desired-state.js';
import { recordPass } from '../../src/pass/write.js';
import type { ScalingDecision } from '../../src/scaling/types.js';
import { openStore } from '../../src/store/open-store.js';
import type { DecisionRecord } from '../../src/store/types.js';
import { policy } from '../scaling/support.js';
import { makeSnapshot } from '../store/snapshot-factory.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-12-08T10:00:00.000Z');
const DAY = 24 * 3600 * 1000;
const old = (ms: number): DecisionRecord => ({
  kind: 'scaling',
  subject: 'resnet',
  action: 'hold',
  reason: 'WithinRange',
  message: 'held',
  replicasFrom: 2,
  replicasTo: 2,
  utilization: 50,
  at: new Date(NOW.getTime() - ms).toISOString(),
});

const desired = (scaling: ScalingDecision[]): DesiredState => ({
  output: { cluster: 'c', errors: [], pools: [], placements: [], scaling, files: [] },
  changeSets: [],
  samples: [],
  standby: [],
  standbySizes: [],
});

describe('recordPass prunes the history it no longer needs', () => {
  it.each([
    ['the default policy keeps 7 days', policy(), [7 * DAY - 1000, 3 * DAY]],
    [
      'a 4-day scale-down window keeps what it reads (8 days)',
      policy({ scaleDown: { stabilizationWindowSeconds: 4 * 24 * 3600 } }),
      [7 * DAY + 1000, 8 * DAY - 1000, 7 * DAY - 1000, 3 * DAY],
    ],
  ])('%s', async (_, p, keptAges) => {
    const store = await openStore(`sqlite:${path.join(dir, `${keptAges.length}.db`)}`, { keepSnapshots: 2 });
    try {
      const ages = [30 * DAY, 8 * DAY + 1000, 7 * DAY + 1000, 8 * DAY - 1000, 7 * DAY - 1000, 3 * DAY];
      await store.recordDecisions!(ages.map(old));
      await recordPass(store, {
        cluster: 'c',
        desired: desired([]),
        algorithms: [],
        policy: p,
        snapshot: makeSnapshot(1, 1, NOW.toISOString()),
        now: NOW,
      });
      const left = await store.decisions('resnet', '1970-01-01T00:00:00.000Z');
      expect(left.map((d) => NOW.getTime() - Date.parse(d.at)).sort((a, b) => b - a)).toEqual(
        [...keptAges].sort((a, b) => b - a),
      );
    } finally {
      await store.close();
    }
  });
});
