/**
 * The streaming decoder of a Prometheus answer (`QueryAnswerDecoder`) against the tree decoder it
 * replaces on the wire (`parseQueryAnswer(JSON.parse(text))`): for every answer shape Prometheus
 * sends, cut into chunks at every size from one byte up, the same series in the same order; and a
 * clear error for what is not a whole answer.
 */
import { describe, expect, it } from 'vitest';
import { QueryAnswerDecoder, decodeQueryAnswer } from '../../src/metrics/answer-stream.js';
import { parseQueryAnswer } from '../../src/metrics/query-result.js';
import type { QueryAnswer } from '../../src/metrics/answer-builder.js';

const OPTIONS = { source: 'prometheus http://p:9090', metric: 'DCGM_FI_DEV_GPU_UTIL' };
const T = 1_700_000_000.123;

/** Decodes `text` cut into chunks of `size` bytes. */
function streamed(text: string | Uint8Array, size: number, options = OPTIONS): QueryAnswer {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const d = new QueryAnswerDecoder(options);
  for (let i = 0; i < bytes.length; i += size) d.write(bytes.subarray(i, i + size));
  return d.end();
}

const CHUNKS = [1, 2, 3, 7, 64, 1 << 20];

/** The halves of `utilizationQuery` for one GPU, as Prometheus answers them (labels sorted). */
function halves(labels: Record<string, string>, avg: string, last: string, max?: string, first?: string) {
  const out = [
    { metric: { ...labels, gpuops_stat: 'avg' }, value: [T, avg] },
    { metric: { ...labels, gpuops_stat: 'last' }, value: [T, last] },
  ];
  if (max !== undefined) out.push({ metric: { ...labels, gpuops_stat: 'max' }, value: [T, max] });
  if (first !== undefined) out.push({ metric: { ...labels, gpuops_stat: 'first' }, value: [T, first] });
  return out;
}

const gpu = (uuid: string, pod: string) => ({
  UUID: uuid,
  exported_namespace: 'algorithms',
  exported_pod: pod,
  gpu: '0',
  node: 'gpu-a100-01',
});

const answers: [string, unknown][] = [
  [
    'the scoped utilisation vector: avg, last, max, first per GPU, one GPU with no last',
    {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          ...halves(gpu('GPU-1', 'resnet-0'), '42.5', String(T - 10), '97', String(T - 300)),
          ...halves(gpu('GPU-2', 'resnet-1'), '61', String(T - 12), '70'),
          { metric: { ...gpu('GPU-3', 'bert-0'), gpuops_stat: 'avg' }, value: [T, '5'] },
        ],
      },
    },
  ],
  [
    'NaN, +Inf and -Inf samples: kept as numbers (attribution drops them), not a rejected answer',
    {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          ...halves(gpu('GPU-4', 'a'), 'NaN', String(T - 5)),
          ...halves(gpu('GPU-5', 'b'), '+Inf', String(T - 5)),
          ...halves(gpu('GPU-6', 'c'), '-Inf', String(T - 5)),
        ],
      },
    },
  ],
  [
    'a plain vector (a saved avg_over_time) with __name__, escapes and non-ASCII label values',
    {
      status: 'success',
      data: {
        resultType: 'vector',
        result: [
          {
            metric: { __name__: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE', UUID: 'GPU-é😀"\\x', pod: 'p\n' },
            value: [T, '0.5'],
          },
          { metric: {}, value: [T + 1, '1e2'] },
        ],
      },
      warnings: ['PromQL info: metric might not be a counter'],
    },
  ],
  [
    'a query_range matrix, with a NaN point and a series with no points',
    {
      status: 'success',
      data: {
        resultType: 'matrix',
        result: [
          {
            metric: { UUID: 'GPU-1' },
            values: Array.from({ length: 11 }, (_, k) => [T + k * 60, String(10 * k)]),
          },
          {
            metric: { UUID: 'GPU-2' },
            values: [
              [T + 300, '40'],
              [T + 360, 'NaN'],
            ],
          },
          { metric: { UUID: 'GPU-3' }, values: [] },
        ],
      },
    },
  ],
  ['an empty vector', { status: 'success', data: { resultType: 'vector', result: [] } }],
  ['an empty matrix', { status: 'success', data: { resultType: 'matrix', result: [] } }],
];

describe('QueryAnswerDecoder: the same series as the tree decoder, at any chunk size', () => {
  for (const [name, answer] of answers) {
    it(name, () => {
      const text = JSON.stringify(answer);
      const tree = parseQueryAnswer(JSON.parse(text), OPTIONS);
      for (const size of CHUNKS) expect(streamed(text, size), `chunks of ${size}`).toEqual(tree);
      // Pretty-printed (blanks between every token) and keys in another order: the same.
      // (`result` before `resultType`, `status` last).
      const { status, data, ...rest } = answer as { status: string; data: { result: unknown } };
      const { result, ...dataRest } = data;
      const reordered = JSON.stringify({ ...rest, data: { result, ...dataRest }, status }, null, 2);
      expect(reordered.indexOf('"result"')).toBeLessThan(reordered.indexOf('"resultType"'));
      for (const size of [1, 5, 1 << 20]) expect(streamed(reordered, size)).toEqual(tree);
    });
  }

  it('label values of backslashes, quotes and brackets: the same series, cut at every byte', () => {
    // Runs of backslashes before a quote (escaped or not), brackets and commas inside strings:
    // the decoder jumps through strings to their closing quote, across chunk ends.
    const tricky = ['\\', '\\"', '"', '\\\\', '}', ']', '{"metric":', ',', 'x\\', '\\\\"}'];
    const result = tricky.flatMap((v, i) =>
      halves({ UUID: `GPU-${i}`, pod: v, node: `${v}${v}`, gpu: String(i) }, String(i), String(T - i)),
    );
    const text = JSON.stringify({ status: 'success', data: { resultType: 'vector', result } });
    const tree = parseQueryAnswer(JSON.parse(text), OPTIONS);
    expect(tree.series).toHaveLength(tricky.length);
    for (let size = 1; size <= 24; size++) expect(streamed(text, size), `chunks of ${size}`).toEqual(tree);
  });

  it('reads real values: the joined halves, the lookback for a GPU with no last, NaN as NaN', () => {
    const a = streamed(JSON.stringify(answers[0]![1]), 3);
    expect(a.evaluatedAt).toBe(Math.round(T * 1000));
    expect(a.series.map((s) => [s.labels.UUID, s.value, s.timestamp, s.window])).toEqual([
      ['GPU-1', 42.5, Math.round((T - 10) * 1000), { max: 97, oldest: Math.round((T - 300) * 1000) }],
      ['GPU-2', 61, Math.round((T - 12) * 1000), { max: 70, oldest: null }],
      ['GPU-3', 5, Math.round((T - 300) * 1000), undefined],
    ]);
    expect(streamed(JSON.stringify(answers[1]![1]), 2).series.map((s) => s.value)).toEqual([
      NaN,
      Infinity,
      -Infinity,
    ]);
  });

  it('skips a byte-order mark, as Response.text() does', () => {
    const text = JSON.stringify(answers[0]![1]);
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]);
    expect(streamed(bom, 1 << 20)).toEqual(parseQueryAnswer(JSON.parse(text), OPTIONS));
  });
});

describe('QueryAnswerDecoder: what is not a whole successful answer', () => {
  const whole = JSON.stringify(answers[0]![1]);
  const rows: [string, string, RegExp][] = [
    [
      'an error answer names its errorType and error',
      JSON.stringify({
        status: 'error',
        errorType: 'bad_data',
        error: 'invalid parameter "query": 1:5: parse error',
      }),
      /p:9090: status is "error": invalid parameter "query": 1:5: parse error \(bad_data\)/,
    ],
    [
      'a body cut inside an item says it is truncated, where and after how many bytes',
      whole.slice(0, 300),
      /truncated: it ends after 300 bytes, inside data\.result\[1\]/,
    ],
    ['a body cut after the result', whole.slice(0, -2), /truncated: .* inside data$/],
    [
      'a body cut after the whole answer but its last brace',
      whole.slice(0, -1),
      /truncated: .* inside the answer object$/,
    ],
    ['an empty body', '', /not a JSON object \(the answer is empty\)/],
    ['an array', '[1, 2]', /not a JSON object$/],
    ['HTML from a proxy', '<html>502</html>', /not a JSON object$/],
    ['text after the answer', `${whole} {}`, /text after the answer at byte/],
    [
      'an item that is not JSON names the item',
      whole.replace('"value":[', '"value":[,'),
      /not JSON: data\.result\[0\] at byte \d+/,
    ],
    [
      'an item of the wrong shape, as the tree decoder says it',
      JSON.stringify({
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: {}, value: [T, 5] }] },
      }),
      /data\.result\[0\]\.value must be \[<seconds>, "<value>"\]/,
    ],
    [
      'a scalar answer',
      JSON.stringify({ status: 'success', data: { resultType: 'scalar', result: [T, '1'] } }),
      /"vector" or "matrix"/,
    ],
    ['no data', JSON.stringify({ status: 'success' }), /"vector" or "matrix"/],
    ['a key without its colon', '{"status" "success"}', /expected ":" at byte 10/],
  ];
  for (const [name, text, message] of rows) {
    it(name, () => {
      for (const size of [1, 4, 1 << 20])
        expect(() => streamed(text, size), `chunks of ${size}`).toThrow(message);
    });
  }
});

describe('decodeQueryAnswer', () => {
  it('reads a fetch body as it arrives', async () => {
    const text = JSON.stringify(answers[3]![1]);
    const body = new Response(text).body!;
    expect(await decodeQueryAnswer(body, OPTIONS)).toEqual(parseQueryAnswer(JSON.parse(text), OPTIONS));
  });
});

describe('warnings and infos (a partial answer says so beside data)', () => {
  const labels = { UUID: 'GPU-1', namespace: 'algorithms', pod: 'p' };
  const data = { resultType: 'vector', result: halves(labels, '10', String(T - 5)) };
  it.each([
    [
      'BeforeData',
      { status: 'success', warnings: ['store eu-1 is down'], data },
      ['store eu-1 is down'],
      undefined,
    ],
    [
      'AfterDataWithInfos',
      { status: 'success', data, warnings: ['a', 'b'], infos: ['i'] },
      ['a', 'b'],
      ['i'],
    ],
    ['EmptyListsAreNone', { status: 'success', data, warnings: [], infos: [] }, undefined, undefined],
    ['NotAListIsNone', { status: 'success', data, warnings: 'down' }, undefined, undefined],
    [
      'ANonStringIsShownAsJson',
      { status: 'success', data, warnings: [{ store: 'eu-1' }] },
      ['{"store":"eu-1"}'],
      undefined,
    ],
  ])('%s: the same at every chunk size as the tree decoder', (_name, body, warnings, infos) => {
    const text = JSON.stringify(body);
    for (const size of CHUNKS) {
      const a = streamed(text, size);
      expect([a.warnings, a.infos], `chunks of ${size}`).toEqual([warnings, infos]);
      expect(a).toEqual(parseQueryAnswer(JSON.parse(text), OPTIONS));
    }
  });

  it('keeps at most 10 of each, each cut to 500 characters', () => {
    const long = 'x'.repeat(600);
    const a = streamed(JSON.stringify({ status: 'success', data, warnings: Array(12).fill(long) }), 64);
    expect(a.warnings).toEqual(Array(10).fill('x'.repeat(500)));
  });
});
