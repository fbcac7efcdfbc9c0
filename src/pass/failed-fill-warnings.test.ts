/**
 * `warnAboutFailedFills`: once per failed fill Job, and a process's first sight of failures starts
 * from what the stored fleet status records (a restart does not repeat a warning); a store that
 * holds no fleet status, or fails to read it, counts none warned (the warning is said, never lost).
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { heldByFailedFills, type FillFailure } from '../plan/index.js';
import type { FleetStatusRecord, Store } from '../store/index.js';
import { warnAboutFailedFills } from './summary.js';

const failure = (algorithm: string): FillFailure => ({
  namespace: 'algorithms',
  algorithm,
  job: `algorithms/${algorithm}-model-cache-1a2b3c4d`,
  reason: 'BackoffLimitExceeded',
  message: null,
});
const bert = failure('bert');
const gpt = failure('gpt');

/** A status store whose fleet status of `prod` is `fleet` (or whose read rejects); counts the reads. */
function storeWith(fleet: FleetStatusRecord | null | Error): { store: Store; reads: () => number } {
  let reads = 0;
  const none = async () => [];
  const store = {
    saveFleetStatus: async () => {},
    fleetStatus: async (cluster: string) => {
      reads++;
      if (fleet instanceof Error) throw fleet;
      return cluster === 'prod' ? fleet : null;
    },
    recentDecisions: none,
    pullRequestHistory: none,
    pullRequestCycle: none,
    clusters: none,
  } as unknown as Store;
  return { store, reads: () => reads };
}

/** A fleet status whose algorithms are held as a pass that saw `failures` records them. */
function recording(...failures: FillFailure[]): FleetStatusRecord {
  const held = heldByFailedFills(failures);
  return {
    cluster: 'prod',
    at: '2026-12-01T10:00:00Z',
    longTaskThresholdSeconds: 600,
    pools: [],
    // Only the name and what holds it are read; the other fields of an entry do not matter here.
    algorithms: failures.map(
      (f) => ({ name: f.algorithm, held: held.get(f.algorithm)! }) as FleetStatusRecord['algorithms'][number],
    ),
  };
}

/** Runs passes with these failures each, one memory (one process); the Job keys warned about per pass. */
async function passes(store: Store, ...seen: FillFailure[][]): Promise<string[][]> {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'warn' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const memory = {};
  const out: string[][] = [];
  for (const failures of seen) {
    const before = lines.length;
    const world = { modelCacheFailures: new Map(failures.map((f) => [f.job, f])) };
    await warnAboutFailedFills(log, world, memory, { store, cluster: 'prod' });
    out.push(lines.slice(before).map((l) => String(l.job)));
  }
  return out;
}

describe('warnAboutFailedFills after a restart', () => {
  it('warns none the stored fleet status records, and a new one once; reads the record once', async () => {
    const { store, reads } = storeWith(recording(bert));
    expect(await passes(store, [bert], [bert, gpt], [bert, gpt])).toEqual([[], [gpt.job], []]);
    expect(reads()).toBe(1);
  });

  it('warns what the record says otherwise (another Job failed before)', async () => {
    const { store } = storeWith(recording({ ...bert, job: 'algorithms/bert-model-cache-99999999' }));
    expect(await passes(store, [bert], [bert])).toEqual([[bert.job], []]);
  });

  it.each([
    ['no fleet status stored', null],
    ['a read that fails', new Error('database is locked')],
  ])('%s: warns each once', async (_what, fleet) => {
    const { store } = storeWith(fleet);
    expect(await passes(store, [bert, gpt], [bert, gpt])).toEqual([[bert.job, gpt.job], []]);
  });

  it('a store without fleet status (a partial test store): warns each once', async () => {
    expect(await passes({} as Store, [bert], [bert])).toEqual([[bert.job], []]);
  });

  it('reads nothing while no fill has failed', async () => {
    const { store, reads } = storeWith(recording(bert));
    expect(await passes(store, [], [])).toEqual([[], []]);
    expect(reads()).toBe(0);
  });
});
