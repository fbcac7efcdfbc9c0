import { describe, expect, it } from 'vitest';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../../test/benchmark/fixtures.js';
import type { BenchmarkRun, BenchmarkRunKey, UtilizationSampleRecord } from '../store/types.js';
import { createReconcilerMemory } from '../plan/memory.js';
import { newSamples, rememberedBenchmarks, sampleKey, saveNewSamples } from './remembered-reads.js';
import { SAMPLE_INTERVAL_SECONDS } from './history-prune.js';

const MIN = 60_000;
const T = Date.UTC(2026, 11, 7, 8, 0, 0);

/** A store holding runs by algorithm, counting its reads; `version` is what benchmarkRunsVersion says. */
function fakeStore(runs: Record<string, BenchmarkRun[]>, version: string | null = '1:1') {
  const reads: string[][] = [];
  const store = {
    version,
    benchmarkRunsFor(keys: readonly BenchmarkRunKey[]) {
      reads.push(keys.map((k) => k.algorithm));
      return Promise.resolve(new Map(keys.map((k) => [k.algorithm, runs[k.algorithm] ?? []])));
    },
    benchmarkRunsVersion: undefined as undefined | (() => Promise<string>),
  };
  if (version !== null) store.benchmarkRunsVersion = () => Promise.resolve(store.version!);
  return { store, reads };
}

function run(algorithm: string, n: number, seconds: number): BenchmarkRun {
  return {
    algorithm,
    specHash: 'x',
    run: n,
    status: 'Succeeded',
    durationSeconds: seconds,
    node: 'gpu-test-01',
    jobName: `${algorithm}-bench-${n}`,
    startedAt: '2026-12-01T00:00:00Z',
    finishedAt: '2026-12-01T00:10:00Z',
    message: '',
  };
}

async function algorithms(names: string[], runs = 1) {
  const policy = await policyWith();
  return algorithmsFromYaml(names.map((name) => algorithmYaml({ name, runs })).join('---\n'), policy);
}

describe('rememberedBenchmarks', () => {
  it('reads each algorithm once while the version stands, every one again when it moves', async () => {
    const algs = await algorithms(['a', 'b']);
    const { store, reads } = fakeStore({ a: [run('a', 1, 600)], b: [] });
    const memory = createReconcilerMemory();
    const first = await rememberedBenchmarks(algs, store, memory);
    expect(first.outcomes.get('a')?.medianSeconds).toBe(600);
    expect(first.outcomes.has('b')).toBe(false);
    await rememberedBenchmarks(algs, store, memory);
    expect(reads).toEqual([['a', 'b']]);
    store.version = '2:7';
    const moved = await rememberedBenchmarks(algs, store, memory);
    expect(reads).toEqual([
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(moved.runs.get('a')).toHaveLength(1);
  });

  it('reads only an algorithm whose spec changed (a new object with a new hash)', async () => {
    const [a, b] = await algorithms(['a', 'b']);
    const { store, reads } = fakeStore({});
    const memory = createReconcilerMemory();
    await rememberedBenchmarks([a!, b!], store, memory);
    const policy = await policyWith();
    const [b2] = algorithmsFromYaml(
      algorithmYaml({ name: 'b', image: 'registry.example.com/ml/b:2.0.0' }),
      policy,
    );
    await rememberedBenchmarks([a!, b2!], store, memory);
    expect(reads).toEqual([['a', 'b'], ['b']]);
  });

  it('summarises again when the wanted number of runs changes, without reading', async () => {
    const { store, reads } = fakeStore({ a: [run('a', 1, 100)] });
    const memory = createReconcilerMemory();
    const [one] = await algorithms(['a'], 1);
    expect((await rememberedBenchmarks([one!], store, memory)).outcomes.get('a')?.medianSeconds).toBe(100);
    const three = { ...one!, benchmark: { ...one!.benchmark, runs: 3 } };
    memory.specHashes.set(three, memory.specHashes.get(one!)!);
    expect((await rememberedBenchmarks([three], store, memory)).outcomes.has('a')).toBe(false);
    expect(reads).toHaveLength(1);
  });

  it('without benchmarkRunsVersion reads every algorithm every pass', async () => {
    const algs = await algorithms(['a']);
    const { store, reads } = fakeStore({}, null);
    const memory = createReconcilerMemory();
    await rememberedBenchmarks(algs, store, memory);
    await rememberedBenchmarks(algs, store, memory);
    expect(reads).toEqual([['a'], ['a']]);
  });
});

describe('saveNewSamples', () => {
  const s = (pod: string, at: string, utilization: number): UtilizationSampleRecord => ({
    algorithm: 'a',
    namespace: 'ml',
    pod,
    at,
    utilization,
  });

  it.each([
    { name: 'same sample again', second: [s('p', 't1', 50)], stored: [] as UtilizationSampleRecord[] },
    { name: 'value changed', second: [s('p', 't1', 51)], stored: [s('p', 't1', 51)] },
    { name: 'new time', second: [s('p', 't2', 50)], stored: [s('p', 't2', 50)] },
    { name: 'other pod', second: [s('q', 't1', 50)], stored: [s('q', 't1', 50)] },
  ])('$name', async ({ second, stored }) => {
    const saved: UtilizationSampleRecord[][] = [];
    const store = { saveSamples: (x: UtilizationSampleRecord[]) => (saved.push(x), Promise.resolve()) };
    const memory = createReconcilerMemory();
    await saveNewSamples(store, [s('p', 't1', 50)], memory, 0);
    await saveNewSamples(store, second, memory, MIN);
    expect(saved).toEqual([[s('p', 't1', 50)], ...(stored.length ? [stored] : [])]);
  });

  it('stores what a key per sample would (2,000 passes of a few algorithms, pods, times and values drawn at random)', async () => {
    let seed = 42;
    // The high bits: the low bits of this generator repeat with a short period.
    const draw = (n: number) => (
      (seed = (seed * 1103515245 + 12345) % 2 ** 31),
      Math.floor((seed / 2 ** 31) * n)
    );
    // Each field of the key drawn from a few values, so that samples differ in one field alone.
    const pass = () =>
      Array.from({ length: draw(8) }, () => ({
        ...s(`p${draw(3)}`, `t${draw(3)}`, [50, 51, 0, -0, NaN][draw(5)]!),
        algorithm: `a${draw(2)}`,
        namespace: `ns${draw(2)}`,
      }));
    const memory = createReconcilerMemory();
    let lastKeys = new Set<string>();
    const saved: UtilizationSampleRecord[][] = [];
    const store = { saveSamples: (x: UtilizationSampleRecord[]) => (saved.push(x), Promise.resolve()) };
    let kept = 0;
    for (let i = 0; i < 2000; i++) {
      const samples = pass();
      const expected = samples.filter((x) => !lastKeys.has(sampleKey(x)));
      kept += samples.length - expected.length;
      saved.length = 0;
      await saveNewSamples(store, samples, memory, i * MIN);
      expect(saved).toEqual(expected.length > 0 ? [expected] : []);
      // The set last stored: a pass that stored nothing leaves it.
      if (expected.length > 0) lastKeys = new Set(samples.map(sampleKey));
    }
    // Both branches were taken: samples kept back and samples at a time the last pass had, stored.
    expect(kept).toBeGreaterThan(50);
    expect(newSamples([s('p', 't1', 51), s('q', 't1', 50)], [s('p', 't1', 50)])).toEqual([
      s('p', 't1', 51),
      s('q', 't1', 50),
    ]);
  });

  it('keeps the memory unchanged when saving fails, so the samples are stored next pass', async () => {
    const memory = createReconcilerMemory();
    const failing = { saveSamples: () => Promise.reject(new Error('disk full')) };
    await expect(saveNewSamples(failing, [s('p', 't1', 50)], memory, 0)).rejects.toThrow('disk full');
    const saved: UtilizationSampleRecord[][] = [];
    // The next pass, a second later: nothing was stored, so the interval does not hold it back.
    await saveNewSamples(
      { saveSamples: (x) => (saved.push(x), Promise.resolve()) },
      [s('p', 't1', 50)],
      memory,
      1000,
    );
    expect(saved).toEqual([[s('p', 't1', 50)]]);
  });

  it('with one empty memory each (one-shot commands) stores every sample', async () => {
    const saved: UtilizationSampleRecord[][] = [];
    const store = { saveSamples: (x: UtilizationSampleRecord[]) => (saved.push(x), Promise.resolve()) };
    await saveNewSamples(store, [s('p', 't1', 50)], createReconcilerMemory(), 0);
    await saveNewSamples(store, [s('p', 't1', 50)], createReconcilerMemory(), 1);
    expect(saved).toHaveLength(2);
  });

  it("stores a sample set only once the store's interval has passed since the last one stored", async () => {
    expect(SAMPLE_INTERVAL_SECONDS).toBe(60);
    const saved: [number, UtilizationSampleRecord[]][] = [];
    let now = 0;
    const store = {
      saveSamples: (x: UtilizationSampleRecord[]) => (saved.push([now, x]), Promise.resolve()),
    };
    const memory = createReconcilerMemory();
    const pass = (ms: number, u: number) => (
      (now = ms),
      saveNewSamples(store, [s('p', `t${ms}`, u)], memory, ms)
    );
    await pass(T, 50);
    await pass(T + 5_000, 51); // an event-driven pass 5 s later: not stored
    await pass(T + MIN - 1, 52); // 1 ms before the interval: not stored
    await pass(T + MIN, 53); // at the interval: stored
    await pass(T + 2 * MIN - 1, 54); // the interval counts from the last stored set, not the last pass
    await pass(T + 2 * MIN, 55);
    await pass(T + MIN, 56); // a clock that went back: stored
    expect(saved.map(([ms, x]) => [ms - T, x.map((y) => y.utilization)])).toEqual([
      [0, [50]],
      [MIN, [53]],
      [2 * MIN, [55]],
      [MIN, [56]],
    ]);
    // The default interval is the store's; another may be given.
    await saveNewSamples(store, [s('q', 'x', 1)], memory, T + MIN + 10, 10);
    expect(saved).toHaveLength(5);
  });

  it('a pass at the interval whose samples the store holds stores none, and the next new set goes at once', async () => {
    const saved: UtilizationSampleRecord[][] = [];
    const store = { saveSamples: (x: UtilizationSampleRecord[]) => (saved.push(x), Promise.resolve()) };
    const memory = createReconcilerMemory();
    await saveNewSamples(store, [s('p', 't1', 50)], memory, T);
    await saveNewSamples(store, [s('p', 't1', 50)], memory, T + MIN); // the same answer: nothing new
    await saveNewSamples(store, [s('p', 't2', 51)], memory, T + MIN + 1);
    expect(saved).toEqual([[s('p', 't1', 50)], [s('p', 't2', 51)]]);
  });
});
