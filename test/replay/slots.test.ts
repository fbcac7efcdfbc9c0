/**
 * The replay's slots (`src/replay/slots.ts`, `slot-channel.ts`): at most one part per slot runs,
 * a freed slot goes to the highest priority waiting (first asked among equals), and across
 * processes a section's parts wait for the parent's slots, which a section that exits gives back.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { serveSlots } from '../../src/replay/slot-channel.js';
import { replaySlotCount, SLOT_PRIORITY, SlotPool, type ReleaseSlot } from '../../src/replay/slots.js';

/** Asks `pool` for each `[name, priority]` in order; returns the order granted and the releases. */
function ask(pool: SlotPool, parts: [string, number][]) {
  const granted: string[] = [];
  const releases = new Map<string, ReleaseSlot>();
  for (const [name, priority] of parts)
    void pool.acquire(name, priority).then((r) => {
      granted.push(name);
      releases.set(name, r);
    });
  return { granted, releases };
}
const settle = () => new Promise((r) => setImmediate(r));

describe('replaySlotCount: one more slot than the cores', () => {
  it.each([
    [1, 2],
    [2, 3],
    [8, 9],
  ])('%i cores: %i slots', (cores, slots) => expect(replaySlotCount(cores)).toBe(slots));

  it.each([0, -1, 1.5, Number.NaN])('%s cores: a RangeError naming them', (cores) =>
    expect(() => replaySlotCount(cores)).toThrow(
      new RangeError(`slots: ${cores} cores is not a positive integer`),
    ),
  );

  it("on 2 cores the replay's three engines run at once, the fleets and the model after", async () => {
    const pool = new SlotPool(replaySlotCount(2));
    const { granted } = ask(pool, [
      ['hpa', SLOT_PRIORITY.engine],
      ['gpuops-patch', SLOT_PRIORITY.engine],
      ['gpuops-pr', SLOT_PRIORITY.engine],
      ['model', SLOT_PRIORITY.model],
      ['fleet', SLOT_PRIORITY.fleet],
    ]);
    await settle();
    expect(granted).toEqual(['hpa', 'gpuops-patch', 'gpuops-pr']);
  });
});

describe('SlotPool', () => {
  it.each([
    ['the first ones asked while slots are free, then the highest priority', 2, ['a', 'b', 'c', 'd', 'e']],
    ['one slot: one at a time, by priority, first asked among equals', 1, ['a', 'c', 'd', 'b', 'e']],
    ['more slots than parts: every part at once', 8, ['a', 'b', 'c', 'd', 'e']],
  ] as const)('%s', async (_, size, order) => {
    const pool = new SlotPool(size);
    const { granted, releases } = ask(pool, [
      ['a', 0],
      ['b', 0],
      ['c', 2],
      ['d', 2],
      ['e', 0],
    ]);
    await settle();
    expect(granted).toEqual(order.slice(0, Math.min(size, 5)));
    expect(pool.inUse).toBe(Math.min(size, 5));
    // Release in the order granted; each release lets exactly one more in.
    for (let i = 0; i < 5; i++) {
      releases.get(granted[i]!)!();
      await settle();
      expect(pool.inUse).toBe(Math.min(size, 5 - i - 1));
    }
    expect(granted).toEqual(order);
  });

  it('a second release of one slot frees nothing more', async () => {
    const pool = new SlotPool(1);
    const { granted, releases } = ask(pool, [
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
    await settle();
    releases.get('a')!();
    releases.get('a')!();
    await settle();
    expect(granted).toEqual(['a', 'b']);
    expect(pool.inUse).toBe(1);
  });

  it('paused, grants nothing; resumed, the highest priority asked meanwhile first', async () => {
    const pool = new SlotPool(1);
    pool.pause();
    const { granted } = ask(pool, [
      ['fleet', 1],
      ['engine', 2],
    ]);
    await settle();
    expect(granted).toEqual([]);
    pool.resume();
    await settle();
    expect(granted).toEqual(['engine']);
  });

  it.each([0, -1, 1.5, NaN])('refuses %s slots', (size) => {
    expect(() => new SlotPool(size)).toThrow(RangeError);
  });
});

const CHILD = fileURLToPath(new URL('./support/slot-child.ts', import.meta.url));
/** The children's temporary folder (tsx keeps its cache there), removed after. */
const TMP = mkdtempSync(join(tmpdir(), 'gpuops-slots-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Runs the child with `args` against `pool`; the parts' starts and ends in order, their CPU reports. */
function section(pool: SlotPool, args: string[], log: string[] = []) {
  const events: string[] = [];
  const cpu: string[] = [];
  const child = fork(CHILD, args, {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TMPDIR: TMP },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  serveSlots(child, pool, (what, s) => cpu.push(`${what} ${s}`));
  child.on('message', (m: { part?: string; state?: string }) => {
    if (!m.part) return;
    events.push(`${m.part} ${m.state} ${pool.inUse}`);
    log.push(m.state!);
  });
  return { events, cpu, done: new Promise((r) => child.once('close', r)) };
}

describe('slots across processes', () => {
  it('two sections share one slot: one part at a time, every part run, CPU reported', async () => {
    const pool = new SlotPool(1);
    const log: string[] = [];
    const one = section(pool, ['a:2:150', 'b:2:150', 'm:0:50'], log);
    const two = section(pool, ['f:1:100'], log);
    await Promise.all([one.done, two.done]);
    const all = [...one.events, ...two.events];
    expect(all.filter((e) => e.endsWith(' start 1')).length).toBe(4);
    expect(all.every((e) => /start 1$|end 1$/.test(e))).toBe(true);
    // Never two parts at once: each part's start comes after the previous part's end.
    expect(log).toEqual(['start', 'end', 'start', 'end', 'start', 'end', 'start', 'end']);
    expect(one.cpu.sort()).toEqual(['a 0.15', 'b 0.15', 'm 0.05']);
    expect(two.cpu).toEqual(['f 0.1']);
    expect(pool.inUse).toBe(0);
  }, 60_000);

  it('a section that exits holding a slot and waiting for another gives both back', async () => {
    const pool = new SlotPool(1);
    const gone = section(pool, ['x:2:10', 'y:2:10', '--exit']);
    await gone.done;
    await settle();
    expect(pool.inUse).toBe(0);
    const next = section(pool, ['z:0:10']);
    await next.done;
    expect(next.events).toEqual(['z start 1', 'z end 1']);
  }, 60_000);
});
