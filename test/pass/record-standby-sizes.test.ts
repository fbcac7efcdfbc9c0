/**
 * A pass stores its standby sets' planned size changes beside its scaling decisions (`recordPass`,
 * `DesiredState.standbySizes`), on a real SQLite file, under the set's subject (`standby/<set>`),
 * the set's own history (its hold reads the algorithms' decisions alone); a pass that plans no
 * change, or the first size of a set Git does not hold yet, stores none (`standbySizeRecord`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StandbyEvidence } from '../../src/change-sets/index.js';
import type { DesiredState } from '../../src/plan/desired-state.js';
import { standbySizeRecord, standbySubject } from '../../src/plan/standby-hold.js';
import { recordPass } from '../../src/pass/write.js';
import { openStore } from '../../src/store/open-store.js';
import { policy } from '../scaling/support.js';
import { makeSnapshot } from '../store/snapshot-factory.js';

const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-standby-sizes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = new Date('2026-12-08T10:00:00.000Z');

const evidence = (from: number | null, to: number): StandbyEvidence => ({
  set: 'llm',
  pool: 'short-task',
  namespace: 'algorithms',
  algorithms: ['bert'],
  loadGpus: 2.5,
  beta: 1,
  gpus: 1,
  max: 80,
  replicas: { from, to },
});

describe('the standby sets’ size records', () => {
  it.each([
    { from: 2, to: 3, action: 'scale-up' },
    { from: 3, to: 2, action: 'scale-down' },
    { from: 2, to: 2, action: null },
    { from: null, to: 2, action: null },
  ])('$from → $to: $action', ({ from, to, action }) => {
    const r = standbySizeRecord(evidence(from, to), NOW);
    if (action === null) return expect(r).toBeNull();
    expect(r).toMatchObject({
      kind: 'standby',
      subject: 'standby/llm',
      action,
      replicasFrom: from,
      replicasTo: to,
      utilization: null,
      at: NOW.toISOString(),
    });
  });

  it('are stored by the pass beside its decisions and read back under the set’s subject', async () => {
    const store = await openStore(`sqlite:${path.join(dir, 'a.db')}`, { keepSnapshots: 2 });
    try {
      const sizes = [standbySizeRecord(evidence(2, 3), NOW)!];
      const desired: DesiredState = {
        output: { cluster: 'c', errors: [], pools: [], placements: [], scaling: [], files: [] },
        changeSets: [],
        samples: [],
        standby: [],
        standbySizes: sizes,
      };
      await recordPass(store, {
        cluster: 'c',
        desired,
        algorithms: [],
        policy: policy(),
        snapshot: makeSnapshot(1, 1, NOW.toISOString()),
        now: NOW,
      });
      const subject = standbySubject({ name: 'llm' });
      expect(await store.decisions(subject, '1970-01-01T00:00:00.000Z')).toEqual(sizes);
      expect((await store.decisionsSince([subject], NOW.toISOString())).get(subject)).toEqual(sizes);
    } finally {
      await store.close();
    }
  });
});
