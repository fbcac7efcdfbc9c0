/**
 * The Ready pods a scaling decision was judged over, in a column of its own (migration 13,
 * `decisions.ready_pods`), on SQLite (a real file) and a real PostgreSQL server: a decision
 * recorded with the count reads back with it and one without reads back without it, by one insert
 * and by the batch (`recordDecisions`, whose SQLite JSON rows and PostgreSQL UNNEST carry the new
 * column); a row stored before migration 13 reads back as it was (no count: its readers read its
 * message, `podsJudged`), and the migrated store records the next pass with counts beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.js';
import type { DecisionRecord, Store } from '../../src/store/types.js';
import { podsJudged } from '../../src/scaling/judged-over.js';
import { schemaAt, storeBackends } from '../support/store-backends.js';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

/** A hold of `subject` at `s` seconds, judged over `ready` of `from` replicas (absent: no count). */
function hold(s: number, from: number, ready?: number, subject = 'bert'): DecisionRecord {
  return {
    kind: 'scaling',
    subject,
    action: 'hold',
    reason: ready === undefined ? 'ReplicasRefused' : 'WithinRange',
    message: ready === undefined ? `${subject}: refused` : `${subject}: utilisation 50% (worded anew)`,
    replicasFrom: from,
    replicasTo: from,
    utilization: 50,
    ...(ready === undefined ? {} : { readyPods: ready }),
    at: at(s),
  };
}

const { backends, setup, teardown } = storeBackends('readypods');
beforeAll(setup, 120_000);
afterAll(teardown);

describe.each(backends)('decisions.ready_pods on $name', (backend) => {
  const stores: Store[] = [];
  let url = '';
  const open = async (): Promise<Store> => {
    const s = await openStore(url);
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });

  it('reads back the count as recorded, one by one and in a batch, and no count where none was', async () => {
    url = await backend.url();
    const s = await open();
    const one = [hold(0, 5, 3), hold(30, 5)];
    for (const d of one) await s.recordDecision(d);
    // A batch of one time (SQLite binds it once) and of two times, with and without counts.
    const batch = [hold(60, 5, 0), hold(60, 4), hold(60, 6, 6, 'llama'), hold(90, 5, 2), hold(95, 5)];
    await s.recordDecisions!(batch);
    const back = await (await open()).decisions('bert', at(0));
    expect(back).toEqual([...one, ...batch.filter((d) => d.subject === 'bert')]);
    expect(back.map((d) => ('readyPods' in d ? d.readyPods : 'none'))).toEqual([
      3,
      'none',
      0,
      'none',
      2,
      'none',
    ]);
    const since = await s.decisionsSince(['bert', 'llama'], at(60));
    expect(since.get('llama')).toEqual([hold(60, 6, 6, 'llama')]);
    const raw = await backend.raw(url, 'SELECT ready_pods FROM decisions ORDER BY at_ms, id');
    expect(raw.map((r) => (r.ready_pods === null ? null : Number(r.ready_pods)))).toEqual([
      3,
      null,
      0,
      null,
      6,
      2,
      null,
    ]);
  });

  it('reads a decision stored before migration 13 as it was, then records with the column', async () => {
    url = await backend.url();
    await schemaAt(backend, url, 12);
    const message = 'bert: utilisation 50% over 3 of 3 Ready pod(s) is within 30–80%; replicas stay at 5';
    await backend.raw(
      url,
      `INSERT INTO decisions (kind, subject, action, reason, message, replicas_from, replicas_to, utilization, at, at_ms)
       VALUES ('scaling', 'bert', 'hold', 'WithinRange', '${message}', 5, 5, 50, '${at(0)}', ${T0})`,
    );
    const s = await open();
    const [old] = await s.decisions('bert', at(0));
    expect(old).toEqual({ ...hold(0, 5), reason: 'WithinRange', message });
    expect('readyPods' in old!).toBe(false);
    expect(podsJudged(old!)).toBe(3);
    await s.recordDecisions!([hold(30, 5, 4), hold(30, 5)]);
    const all = await s.decisions('bert', at(0));
    expect(all.map(podsJudged)).toEqual([3, 4, 5]);
    const applied = await backend.raw(url, 'SELECT id FROM schema_migrations WHERE id = 13');
    expect(applied).toHaveLength(1);
  });
});
