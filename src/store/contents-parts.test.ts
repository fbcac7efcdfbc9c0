/** contentsParts / snapshotFromPartRows: where runs are cut, what one change touches, and the round trip. */
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../cluster/types.js';
import { makeSnapshot } from '../../test/store/snapshot-factory.js';
import { contentsParts, isCut, PART_MEAN_RECORDS, snapshotFromPartRows } from './contents-parts.js';
import { StoreError } from './errors.js';

const snap = (nodes: number, pods: number): Snapshot => makeSnapshot(nodes, pods, '2026-12-01T10:00:00.000Z');
const parts = (s: Snapshot) => [...contentsParts(s)];
const rows = (s: Snapshot) =>
  parts(s).map((p) => ({ taken_at: s.takenAt, warnings: null, kind: p.kind, records: p.text }));

describe('contentsParts', () => {
  it.each([
    [0, 0],
    [1, 0],
    [0, 1],
    [3, 15],
    [400, 2000],
  ])('%i nodes and %i pods read back as they were, in order', (n, p) => {
    const s = snap(n, p);
    const back = rows(s);
    // No parts: the store's LEFT JOIN gives one row with a null kind.
    const read = snapshotFromPartRows(
      back.length > 0 ? back : [{ taken_at: s.takenAt, warnings: null, kind: null, records: null }],
    );
    expect(read).toStrictEqual(s);
    expect(parts(s).some((x) => x.kind === 'pods')).toBe(p > 0);
  });

  it('cuts a run after each record whose key is a cut, and only there', () => {
    const s = snap(10, 3000);
    const pods = parts(s).filter((x) => x.kind === 'pods');
    const cuts = s.pods.filter((p) => isCut(`${p.namespace}/${p.name}`)).length;
    const lastIsCut = isCut(`${s.pods.at(-1)!.namespace}/${s.pods.at(-1)!.name}`);
    expect(pods.length).toBe(cuts + (lastIsCut ? 0 : 1));
    // ~1 in PART_MEAN_RECORDS keys is a cut (3,000 pods: expect ~11.7, far from 0 and from 3,000)
    expect(cuts).toBeGreaterThan(3000 / PART_MEAN_RECORDS / 3);
    expect(cuts).toBeLessThan((3000 / PART_MEAN_RECORDS) * 3);
    expect(pods.map((p) => p.position)).toEqual(pods.map((_, i) => i));
  });

  it.each([
    ['a changed readiness', (s: Snapshot) => void (s.pods[1500]!.ready = !s.pods[1500]!.ready), 1],
    ['a changed node', (s: Snapshot) => void (s.nodes[5]!.gpuRequested += 1), 1],
    ['nothing', () => undefined, 0],
  ])('%s changes that many parts', (_, change, changed) => {
    const before = new Set(parts(snap(10, 3000)).map((p) => p.digest));
    const s = snap(10, 3000);
    change(s);
    expect(parts(s).filter((p) => !before.has(p.digest)).length).toBe(changed);
  });

  it('a removed pod changes at most two parts (its own, and the next when its key was a cut)', () => {
    const base = snap(10, 3000);
    const before = new Set(parts(base).map((p) => p.digest));
    for (const i of [0, 700, 1500, 2999]) {
      const s = snap(10, 3000);
      s.pods.splice(i, 1);
      const fresh = parts(s).filter((p) => !before.has(p.digest)).length;
      expect(fresh).toBeGreaterThanOrEqual(1);
      expect(fresh).toBeLessThanOrEqual(2);
    }
  });

  it('a null required field names the record and column', () => {
    const s = snap(2, 4);
    (s.pods[3] as unknown as Record<string, unknown>).uid = null;
    expect(() => parts(s)).toThrow(StoreError);
    expect(() => parts(s)).toThrow('pod 3: uid must not be null');
  });
});
