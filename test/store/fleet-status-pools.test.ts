/**
 * The fleet status's pool entries in a row of their own (migration 12), on SQLite (a real file)
 * and a real PostgreSQL server: what is read back is what was saved last, byte for byte as JSON
 * (key order included), whether the entries were written or kept; a changed entry is written;
 * another writer's entries are never taken for this store's; a status stored before the
 * migration reads back as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, statusStoreOf } from '../../src/store/index.js';
import type { FleetStatusRecord, StatusPoolEntry, StatusStore, Store } from '../../src/store/types.js';
import { schemaAt, storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function pools(n: number, moved: number[] = []): StatusPoolEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    node: `gpu-${i}`,
    from: i % 3 === 0 ? null : 'long-task',
    to: moved.includes(i) ? 'test' : 'long-task',
    reason: moved.includes(i) ? 'TestPool' : 'Kept',
    message: `node gpu-${i} "q" é`,
  }));
}

/** A pass's record: the algorithms' utilisation moves every pass, as in a steady pass. */
function status(pass: number, entries: StatusPoolEntry[], cluster = 'prod'): FleetStatusRecord {
  return {
    cluster,
    at: at(pass * 30),
    longTaskThresholdSeconds: 600,
    podStartupSeconds: 60,
    pools: entries,
    algorithms: [
      {
        name: 'resnet',
        pool: 'long-task',
        runTimeSeconds: 900,
        placementReason: 'LongTask',
        placementMessage: 'm',
        replicas: 2,
        minReplicas: 1,
        maxReplicas: 4,
        utilizationMin: 40,
        utilizationMax: 80,
        utilization: 50 + pass * 0.3,
        scalingReason: 'WithinBand',
        scalingMessage: `at ${50 + pass * 0.3} %`,
      },
    ],
    benchmarks: [],
  };
}

const { backends, setup, teardown } = storeBackends('fleetpools');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('fleet status pool entries on $name', (backend) => {
  const stores: Store[] = [];
  let url = '';
  const open = async (): Promise<Store & StatusStore> => {
    const s = await openStore(url);
    stores.push(s);
    return statusStoreOf(s)!;
  };
  const fresh = async () => {
    url = await backend.url();
    return open();
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  /** Read back by a store that never wrote (another process: `gpuops status`). */
  const readBack = async (cluster = 'prod') => JSON.stringify(await (await open()).fleetStatus(cluster));
  const token = async () =>
    (await backend.raw(url, "SELECT token FROM fleet_status_pools WHERE cluster = 'prod'"))[0]?.token;

  it('reads back each pass as saved, the entries kept while equal and written when one changes', async () => {
    const s = await fresh();
    const passes = [pools(50), pools(50), pools(50, [7]), pools(50, [7]), pools(50), pools(49), pools(49)];
    const tokens: unknown[] = [];
    for (const [i, entries] of passes.entries()) {
      const record = status(i, entries);
      await s.saveFleetStatus(record);
      expect(JSON.stringify(await s.fleetStatus('prod'))).toBe(JSON.stringify(record));
      expect(await readBack()).toBe(JSON.stringify(record));
      tokens.push(await token());
    }
    // Written at the first pass and at each change (pass 2: gpu-7 moved, 4: back, 5: a node gone).
    expect(tokens.map((t, i) => i === 0 || t !== tokens[i - 1])).toEqual([
      true,
      false,
      true,
      false,
      true,
      true,
      false,
    ]);
  });

  it('writes entries the caller changed in place after saving them', async () => {
    const s = await fresh();
    const entries = pools(5);
    await s.saveFleetStatus(status(0, entries));
    entries[2]!.to = 'test';
    await s.saveFleetStatus(status(1, entries));
    expect((await (await open()).fleetStatus('prod'))!.pools[2]!.to).toBe('test');
  });

  it('writes its entries again when another writer stored others meanwhile', async () => {
    const a = await fresh();
    const b = await open();
    await a.saveFleetStatus(status(0, pools(10)));
    await b.saveFleetStatus(status(1, pools(10, [3])));
    await a.saveFleetStatus(status(2, pools(10)));
    expect(await readBack()).toBe(JSON.stringify(status(2, pools(10))));
  });

  /** Counts the writes of a fleet status body (an insert, or an update naming `body`). */
  const countBodyWrites = async () =>
    backend.raw(
      url,
      backend.name === 'sqlite'
        ? `CREATE TABLE body_writes (n INTEGER);
           CREATE TRIGGER body_inserted AFTER INSERT ON fleet_status BEGIN INSERT INTO body_writes VALUES (1); END;
           CREATE TRIGGER body_updated AFTER UPDATE OF body ON fleet_status BEGIN INSERT INTO body_writes VALUES (1); END;`
        : `CREATE TABLE body_writes (n INTEGER);
           CREATE FUNCTION body_written() RETURNS trigger LANGUAGE plpgsql AS
             $$ BEGIN INSERT INTO body_writes VALUES (1); RETURN NULL; END $$;
           CREATE TRIGGER body_written AFTER INSERT OR UPDATE OF body ON fleet_status
             FOR EACH ROW EXECUTE FUNCTION body_written();`,
    );
  const bodyWrites = async () =>
    Number((await backend.raw(url, 'SELECT COUNT(*) AS n FROM body_writes'))[0]!.n);
  /** Pass `pass`'s record when nothing moved since pass 0 but the time. */
  const still = (pass: number, entries = pools(5)) => ({ ...status(0, entries), at: at(pass * 30) });

  it('writes the time alone while the record is the one written last, and the body when it changes', async () => {
    const s = await fresh();
    await countBodyWrites();
    const saved: FleetStatusRecord[] = [
      still(0),
      still(1),
      still(2),
      status(3, pools(5)),
      still(4),
      still(5),
    ];
    saved[4] = { ...status(3, pools(5)), at: at(120) };
    saved[5] = { ...status(3, pools(5, [2])), at: at(150) };
    const writes: number[] = [];
    for (const record of saved) {
      await s.saveFleetStatus(record);
      writes.push(await bodyWrites());
      // Every reader gets the pass's record, its time included.
      expect(JSON.stringify(await s.fleetStatus('prod'))).toBe(JSON.stringify(record));
      expect(await readBack()).toBe(JSON.stringify(record));
    }
    // The body: at the first pass, when an algorithm moved (3), with the pool entries (5: a node
    // moved); not for a time alone (1, 2, 4).
    expect(writes).toEqual([1, 1, 1, 2, 2, 3]);
  });

  it('writes its body again when another writer stored its own meanwhile, the pool entries equal', async () => {
    const a = await fresh();
    const b = await open();
    await a.saveFleetStatus(still(0));
    await b.saveFleetStatus(status(1, pools(5)));
    await a.saveFleetStatus(still(2));
    expect(await readBack()).toBe(JSON.stringify(still(2)));
    // And the other writer, whose last body is no longer the row's, writes its own again.
    await b.saveFleetStatus({ ...status(1, pools(5)), at: at(90) });
    expect(await readBack()).toBe(JSON.stringify({ ...status(1, pools(5)), at: at(90) }));
  });

  it('keeps each cluster apart', async () => {
    const s = await fresh();
    await s.saveFleetStatus(status(0, pools(4), 'prod'));
    await s.saveFleetStatus(status(0, pools(6, [1]), 'edge'));
    await s.saveFleetStatus(status(1, pools(4), 'prod'));
    expect(await readBack('edge')).toBe(JSON.stringify(status(0, pools(6, [1]), 'edge')));
    expect(await readBack('prod')).toBe(JSON.stringify(status(1, pools(4), 'prod')));
  });

  it('reads a status stored before migration 12 as it was, then stores the next pass', async () => {
    url = await backend.url();
    await schemaAt(backend, url, 11);
    const old = status(0, pools(3, [1]));
    await backend.raw(
      url,
      `INSERT INTO fleet_status (cluster, at, at_ms, body) VALUES ('prod', '${old.at}', ${T0}, '${JSON.stringify(old).replaceAll("'", "''")}')`,
    );
    const s = await open();
    expect(JSON.stringify(await s.fleetStatus('prod'))).toBe(JSON.stringify(old));
    await s.saveFleetStatus(status(1, pools(3)));
    expect(await readBack()).toBe(JSON.stringify(status(1, pools(3))));
    await s.saveFleetStatus(status(2, pools(3)));
    expect(await readBack()).toBe(JSON.stringify(status(2, pools(3))));
  });
});
