/**
 * `snapshotContentDigest` remembers the digest of the arrays the watch cache hands out again while
 * nothing changed (issue 26): the same arrays give the stored digest without hashing, and any new
 * array — even beside the same nodes — is hashed again, so a change is never missed.
 */
import { describe, expect, it } from 'vitest';
import { snapshotContentDigest } from '../../src/store/rows.js';
import { makeSnapshot } from './snapshot-factory.js';

const AT = '2026-12-03T06:00:00.000Z';

describe('snapshotContentDigest', () => {
  it('gives the same digest for the same arrays and for equal contents in new arrays', () => {
    const a = makeSnapshot(3, 15, AT);
    const first = snapshotContentDigest(a);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(snapshotContentDigest({ nodes: a.nodes, pods: a.pods })).toBe(first);
    expect(snapshotContentDigest(makeSnapshot(3, 15, AT))).toBe(first);
  });

  it('hashes again when the pods array is new, beside the same nodes array', () => {
    const a = makeSnapshot(3, 15, AT);
    const before = snapshotContentDigest(a);
    const pods = a.pods.map((p, i) => (i === 4 ? { ...p, phase: 'Failed' as const } : p));
    const after = snapshotContentDigest({ nodes: a.nodes, pods });
    expect(after).not.toBe(before);
    // And back to the first pods array: its own digest again, not the last one computed.
    expect(snapshotContentDigest({ nodes: a.nodes, pods: a.pods })).toBe(before);
  });

  it('hashes again when the nodes array is new, beside the same pods array', () => {
    const a = makeSnapshot(3, 15, AT);
    const before = snapshotContentDigest(a);
    const nodes = a.nodes.map((n, i) => (i === 0 ? { ...n, cordoned: !n.cordoned } : n));
    expect(snapshotContentDigest({ nodes, pods: a.pods })).not.toBe(before);
  });
});
