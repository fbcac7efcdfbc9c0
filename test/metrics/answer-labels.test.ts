/**
 * The decoder with the label sets of the last answer (`LabelSetMemo`, `answer-item.ts`): a pass
 * reads the same series again with moved values, and their labels are compared with the last
 * answer's bytes instead of parsed. Whatever the answers (the same series in the same order, in
 * another order, some gone or new, label values that need escapes, values and times in every
 * spelling JSON allows, forms that are not Prometheus's compact one, chunks cut anywhere), the
 * series are the tree decoder's; and the memo is used (the same label objects come back).
 */
import { describe, expect, it } from 'vitest';
import { QueryAnswerDecoder } from '../../src/metrics/answer-stream.js';
import { LabelSetMemo } from '../../src/metrics/answer-item.js';
import { parseQueryAnswer } from '../../src/metrics/query-result.js';
import type { QueryAnswer } from '../../src/metrics/answer-builder.js';

const OPTIONS = { source: 'prometheus http://p:9090', metric: 'DCGM_FI_DEV_GPU_UTIL' };
const T = 1_700_000_000.123;

/** Decodes `text` cut into chunks of `size` bytes, with `memo` when given. */
function streamed(text: string, size: number, memo?: LabelSetMemo): QueryAnswer {
  const bytes = new TextEncoder().encode(text);
  const d = new QueryAnswerDecoder(OPTIONS, undefined, memo);
  for (let i = 0; i < bytes.length; i += size) d.write(bytes.subarray(i, i + size));
  return d.end();
}

const tree = (text: string) => parseQueryAnswer(JSON.parse(text), OPTIONS);

type Item = { metric: Record<string, string>; value: [number, string] };

/** The halves of one GPU's series, as the scoped utilisation query's answer has them. */
function gpu(i: number, avg: string, pod = `resnet-${i}`): Item[] {
  const labels = {
    UUID: `GPU-${i}`,
    exported_namespace: 'algorithms',
    exported_pod: pod,
    gpu: '0',
    node: 'n1',
  };
  return (['avg', 'last', 'max', 'first'] as const).map((stat, k) => ({
    metric: { ...labels, gpuops_stat: stat },
    value: [T, k === 0 || k === 2 ? avg : String(T - 10 * k)],
  }));
}

const vector = (result: unknown[]) =>
  JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });

/** A small seeded generator (the same cases every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe("QueryAnswerDecoder with the last answer's label sets: the tree decoder's series", () => {
  it('the same series with moved values: the same label objects, the new values', () => {
    const memo = new LabelSetMemo();
    const before = vector(Array.from({ length: 50 }, (_, i) => gpu(i, String(i))).flat());
    const after = vector(Array.from({ length: 50 }, (_, i) => gpu(i, `${i}.3`)).flat());
    for (const size of [7, 64, 1000, 1 << 20]) {
      const a = streamed(before, size, memo);
      expect(a, `chunks of ${size}`).toEqual(tree(before));
      const b = streamed(after, size, memo);
      expect(b, `chunks of ${size}`).toEqual(tree(after));
      expect(b.series.map((s) => s.value)).toEqual(Array.from({ length: 50 }, (_, i) => i + 0.3));
      // Read from the memo, not parsed: each series' labels are the object the last answer gave
      // (an item cut by a chunk's end is parsed whole: with chunks shorter than an item, all are).
      const same = b.series.filter((s, i) => s.labels === a.series[i]!.labels).length;
      expect(same, `chunks of ${size}`).toBe({ 7: 0, 64: 0, 1000: 40, [1 << 20]: 50 }[size]);
    }
  });

  it('two reads in flight on one memo (a dropped early read): the one started last sets it, whichever ends last', () => {
    const memo = new LabelSetMemo();
    const ofPods = (prefix: string) =>
      vector(Array.from({ length: 20 }, (_, i) => gpu(i, String(i), `${prefix}-${i}`)).flat());
    const [dropped, used] = [ofPods('old'), ofPods('new')];
    const early = new QueryAnswerDecoder(OPTIONS, undefined, memo);
    const fresh = new QueryAnswerDecoder(OPTIONS, undefined, memo);
    fresh.write(new TextEncoder().encode(used));
    const b = fresh.end();
    early.write(new TextEncoder().encode(dropped)); // the dropped read's answer ends last
    expect(early.end()).toEqual(tree(dropped));
    const next = streamed(used, 1 << 20, memo);
    expect(next).toEqual(tree(used));
    expect(next.series.filter((s, i) => s.labels === b.series[i]!.labels)).toHaveLength(20);
  });

  it("an answer cut in two at every byte: the tree's series, each uncut item read from the memo", () => {
    const labels = (i: number) => gpu(i, '0', ['a"b', 'é😀', '}{', 'x\\'][i % 4]);
    const before = vector(Array.from({ length: 4 }, (_, i) => labels(i)).flat());
    const items = Array.from({ length: 4 }, (_, i) =>
      labels(i).map((it, k) => ({
        ...it,
        value: [[T, 1_700_000_000, -0, 17e8][k]!, ['42.5', 'NaN', '1e3', '-7'][(i + k) % 4]!],
      })),
    );
    const text = vector(items.flat());
    const bytes = new TextEncoder().encode(text);
    const want = tree(text);
    const starts = [...text.matchAll(/\{"metric":/g)].map((m) => Buffer.byteLength(text.slice(0, m.index)));
    const ends = starts.map((s, k) => (starts[k + 1] ?? bytes.length - 2) - 1); // before "," or "]}}"
    for (let cut = 0; cut <= bytes.length; cut++) {
      const memo = new LabelSetMemo();
      const a = streamed(before, 1 << 20, memo);
      const d = new QueryAnswerDecoder(OPTIONS, undefined, memo);
      d.write(bytes.subarray(0, cut));
      d.write(bytes.subarray(cut));
      const b = d.end();
      expect(b, `cut at ${cut}`).toEqual(want);
      // A GPU's labels are its `avg` item's: the last answer's object unless the cut is inside it.
      const kept = starts.filter((s, k) => k % 4 === 0 && !(s < cut && cut < ends[k]!)).length;
      expect(b.series.filter((s, g) => s.labels === a.series[g]!.labels).length, `cut at ${cut}`).toBe(kept);
    }
  });

  it('label sets one character apart are two series (halves joined by their whole label set)', () => {
    // Alike but for the last label's last character, or a label's name: never one series.
    const sets = [{ node: 'n1' }, { node: 'n2' }, { node: 'n10' }, { nodf: 'n1' }].map((l) => ({
      UUID: 'GPU-0',
      exported_namespace: 'algorithms',
      exported_pod: 'resnet-0',
      ...l,
    }));
    const items = sets.flatMap((labels, i) =>
      ['avg', 'last'].map((stat, k) => ({
        metric: { ...labels, gpuops_stat: stat },
        value: [T, k === 0 ? String(10 * (i + 1)) : String(T - i)],
      })),
    );
    const memo = new LabelSetMemo();
    for (const size of [1 << 20, 1 << 20, 9]) {
      const text = vector(items);
      const answer = streamed(text, size, memo);
      expect(answer).toEqual(tree(text));
      expect(answer.series.map((s) => [s.labels.node ?? s.labels.nodf, s.value, s.timestamp])).toEqual(
        sets.map((l, i) => [l.node ?? l.nodf, 10 * (i + 1), Math.round((T - i) * 1000)]),
      );
    }
  });

  it('series gone, new and moved about: each read with its own labels', () => {
    const memo = new LabelSetMemo();
    const first = Array.from({ length: 40 }, (_, i) => gpu(i, '10'));
    streamed(vector(first.flat()), 1 << 20, memo);
    // GPU 3 gone, a new GPU 99 first, GPUs 10 and 20 swapped, GPU 5's pod replaced.
    const next = [gpu(99, '1'), ...first.filter((_, i) => i !== 3)];
    [next[11], next[20]] = [next[20]!, next[11]!];
    next[5] = gpu(5, '50', 'resnet-new');
    for (const size of [5, 300, 1 << 20]) {
      const text = vector(next.flat());
      expect(streamed(text, size, memo), `chunks of ${size}`).toEqual(tree(text));
    }
    const text = vector([...next].reverse().flat()); // every item out of its place
    expect(streamed(text, 1 << 20, memo)).toEqual(tree(text));
  });

  it('label values with escapes, quotes, brackets and non-ASCII; values in every JSON spelling', () => {
    const values = ['42', '4.25e1', '-0', '1E+2', 'NaN', '+Inf', '-Inf', '0.000001', '5\u00a0'].concat(
      // Read from the bytes or converted from the string (`decimalAt`): the same numbers.
      ['007', '1.', '.5', '', ' 5', '+5', '-', 'Inf', '9007199254740993', '0.30000000000000004'],
      ['0.1234567890123456789012', '1.2345678901234567890123', '-45.30', '0x1F'],
    );
    const times = [T, 1_700_000_000, 1.7e9, 17e8, 1_700_000_000.1234567, 2 ** 53 + 2, -0];
    const pods = ['a"b', 'a\\"b', '}{', '],"value":[1,"2"]}', 'é😀', 'x\\', 'p\n'];
    const items = values.flatMap((value, i) =>
      gpu(i, value, pods[i % pods.length]).map((it, k) => ({
        ...it,
        value: [times[(i + k) % times.length]!, it.value[1]],
      })),
    );
    const memo = new LabelSetMemo();
    for (const size of [1, 3, 17, 1 << 20]) {
      const text = vector(items);
      expect(streamed(text, size, memo), `chunks of ${size}`).toEqual(tree(text));
    }
  });

  it('forms other than the compact one: parsed whole, the same series', () => {
    const items = Array.from({ length: 6 }, (_, i) => gpu(i, '7')).flat();
    const memo = new LabelSetMemo();
    streamed(vector(items), 1 << 20, memo);
    const forms = [
      // Blanks between tokens; `value` before `metric`; an escaped value; a value with a blank.
      JSON.stringify({ status: 'success', data: { resultType: 'vector', result: items } }, null, 1),
      vector(items.map(({ metric, value }) => ({ value, metric }))),
      vector(items).replaceAll('"7"', '"\\u0037"'),
      vector(items).replaceAll('"7"', '" 7"'),
    ];
    for (const text of forms)
      for (const size of [4, 1 << 20])
        expect(streamed(text, size, memo), text.slice(0, 40)).toEqual(tree(text));
  });

  it('a time JSON does not allow (01, 1.) is an error, as without the memo', () => {
    const items = gpu(0, '7');
    const memo = new LabelSetMemo();
    streamed(vector(items), 1 << 20, memo);
    for (const bad of ['01', '1.', '.5', '0x10', 'Infinity']) {
      const text = vector(items).replace(`[${T},"7"]`, `[${bad},"7"]`);
      expect(text).toContain(`[${bad},`);
      expect(() => streamed(text, 1 << 20)).toThrow(/not JSON: data\.result\[0\]/);
      expect(() => streamed(text, 1 << 20, memo)).toThrow(/not JSON: data\.result\[0\]/);
    }
  });

  it('generated answers, one after the other through one memo', () => {
    const next = random(42);
    const memo = new LabelSetMemo();
    const labelValues = ['a', 'b"c', 'é', '}', 'x\\y', 'resnet-0', ''];
    let pool = Array.from({ length: 30 }, (_, i) => i);
    for (let round = 0; round < 40; round++) {
      // Some series go, some come, some move; values move every round.
      pool = pool.filter(() => next() > 0.05);
      while (next() < 0.5) pool.push(100 + Math.floor(next() * 1000));
      if (next() < 0.3) pool.sort(() => next() - 0.5);
      const items = pool.flatMap((i) =>
        gpu(
          i,
          (next() * 100).toFixed(Math.floor(next() * 4)),
          `p-${labelValues[i % labelValues.length]}`,
        ).slice(0, 1 + Math.floor(next() * 4)),
      );
      const text = vector(items);
      const size = 1 + Math.floor(next() * 400);
      expect(streamed(text, size, memo), `round ${round}, chunks of ${size}`).toEqual(tree(text));
    }
  });
});
