/**
 * The SQLite batch insert binds a sharable cell once per statement when every row of it holds the
 * same value (`sqlite-batch-insert.ts`): the rows stored are those one insert per row stores
 * (`recordDecision`, whose path is unchanged), cell by cell and type by type, whichever rows
 * agree; and a steady pass's 1,000 decisions bind fewer cells than 9 a row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteSession } from '../../src/store/sqlite-session.js';
import { insertRowsSql, sharedCells } from '../../src/store/sqlite-batch-insert.js';
import { columnIndex, recordDecision, recordDecisions, saveSamples } from '../../src/store/sqlite-history.js';
import type { DecisionRecord, UtilizationSampleRecord } from '../../src/store/types.js';

const AT = '2026-12-07T12:00:00.000Z';

/** 1,000 decisions of one pass: most alike in kind, action and reason; some not. */
function decisions(): DecisionRecord[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    kind: i === 997 ? 'standby' : 'scaling',
    subject: `algorithm-${String(i).padStart(4, '0')}`,
    action: i % 300 === 7 ? 'scale-up' : 'none',
    reason: i < 64 ? 'WithinBand' : i % 2 === 0 ? 'WithinBand' : 'BelowMin',
    message: `utilisation ${(40 + (i % 37) / 3).toFixed(2)} % is within 30–80 %`,
    replicasFrom: 2 + (i % 3),
    replicasTo: 2 + (i % 3) + (i % 300 === 7 ? 1 : 0),
    // -0 and 0 are not one value to share; NaN is stored as NULL either way.
    utilization: i === 3 ? -0 : i === 5 ? Number.NaN : 40 + (i % 37) / 3,
    ...(i % 11 === 0 ? {} : { readyPods: 2 + (i % 3) }),
    at: AT,
  }));
}

/** Every row of `decisions` as stored, with each cell's SQLite type. */
function storedDecisions(s: SqliteSession): unknown[] {
  return s.db
    .prepare(
      `SELECT kind, subject, action, reason, message, replicas_from, replicas_to, utilization,
         typeof(utilization) AS tu, ready_pods, typeof(ready_pods) AS tr, at, at_ms,
         typeof(replicas_from) AS tf FROM decisions ORDER BY id`,
    )
    .all()
    .map((r) => ({ ...(r as object), _metadata: undefined }));
}

describe('the SQLite batch insert with cells bound once', () => {
  const open: SqliteSession[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });
  async function session(): Promise<SqliteSession> {
    const s = new SqliteSession(':memory:', { keepSnapshots: 2 });
    open.push(s);
    await s.migrate();
    return s;
  }

  it('stores the rows one insert per row stores, cell by cell and type by type', async () => {
    const [batch, single] = [await session(), await session()];
    const records = decisions();
    await recordDecisions(batch, records);
    for (const r of records) await recordDecision(single, r);
    const stored = storedDecisions(batch);
    expect(stored).toHaveLength(1000);
    expect(stored).toEqual(storedDecisions(single));
  });

  it("binds a steady pass's alike cells once: fewer than 9 a decision", async () => {
    const s = await session();
    let bound = 0;
    const prepare = s.prepare.bind(s);
    s.prepare = (sql: string) => {
      const stmt = prepare(sql);
      return Object.assign(Object.create(stmt) as typeof stmt, {
        run: (...args: unknown[]) => {
          bound += args.length === 1 && Array.isArray(args[0]) ? args[0].length : args.length;
          return stmt.run(...(args as []));
        },
      });
    };
    const alike = decisions().map((d): DecisionRecord => ({
      ...d,
      kind: 'scaling',
      action: 'none',
      reason: 'WithinBand',
    }));
    await recordDecisions(s, alike);
    // 9 cells a row bound each: 9,000 and the time; kind, action and reason once a statement.
    expect(bound).toBeLessThan(6 * 1000 + 100);
    expect(bound).toBeGreaterThan(6 * 1000);
  });

  it('stores samples of one namespace and of several as given', async () => {
    const s = await session();
    const samples: UtilizationSampleRecord[] = Array.from({ length: 600 }, (_, i) => ({
      algorithm: `algorithm-${Math.floor(i / 3)}`,
      namespace: i < 512 ? 'serving' : `team-${i % 2}`,
      pod: `pod-${i}`,
      utilization: (i * 7.3) % 100,
      at: AT,
    }));
    await saveSamples(s, samples);
    const rows = s.db
      .prepare('SELECT algorithm, namespace, pod, utilization, at FROM utilization_samples ORDER BY id')
      .all()
      .map((r) => ({ ...(r as object), _metadata: undefined }));
    expect(rows).toEqual(samples.map((x) => ({ ...x, _metadata: undefined })));
  });

  it('numbers the parameters: the time, the shared cells, then each row’s own', () => {
    expect(insertRowsSql('t', ['a', 'b', 'c', 'at', 'at_ms'], 2, [false, true, false])).toBe(
      'INSERT INTO t (a, b, c, at, at_ms) VALUES (?4, ?3, ?5, ?1, ?2), (?6, ?3, ?7, ?1, ?2)',
    );
    expect(insertRowsSql('t', ['a', 'b', 'at', 'at_ms'], 2)).toBe(
      'INSERT INTO t (a, b, at, at_ms) VALUES (?3, ?4, ?1, ?2), (?5, ?6, ?1, ?2)',
    );
  });

  it('shares a sharable cell only where every row holds the same value (Object.is)', () => {
    const rows = [
      ['x', 0, 'k', null],
      ['x', -0, 'k', null],
    ];
    expect(sharedCells(rows, [0, 1, 3])).toEqual([true, false, false, true]);
    expect(
      sharedCells(
        [
          [1, Number.NaN],
          [2, Number.NaN],
        ],
        [1],
      ),
    ).toEqual([false, true]);
    expect(sharedCells([], [0])).toEqual([]);
  });
});

describe('columnIndex: the shared columns of sqlite-history, checked at module load', () => {
  it('answers the index of a column, and throws for a misspelled one (never -1: sharing silently off)', () => {
    expect(columnIndex(['at', 'cluster', 'kind'], 'kind')).toBe(2);
    expect(() => columnIndex(['at', 'cluster', 'kind'], 'knd')).toThrow('no column knd in at, cluster, kind');
  });
});
