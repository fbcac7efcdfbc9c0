/**
 * `gpuops plan --benchmarks FILE`: a person's hand-written map of algorithm name to run time
 * (seconds). Every way it can be wrong names the file, and the line of a YAML fault; a number YAML
 * reads as infinite or not a number says so instead of printing `null`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBenchmarksFile, unknownRecordedNames } from '../../src/pass/stored-inputs.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gpuops-benchmarks-file-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a fresh file of the test folder and reads it as `--benchmarks`. */
let n = 0;
const read = (text: string) => {
  const file = join(dir, `b${n++}.yaml`);
  writeFileSync(file, text);
  return { file, result: readBenchmarksFile(file) };
};

describe('readBenchmarksFile', () => {
  it.each([
    ['0 s and a fraction', 'a: 0\nb: 42.5\n', { a: 0, b: 42.5 }],
    ['JSON', '{"a": 1500}', { a: 1500 }],
  ])('reads %s', async (_, text, want) => {
    const got = await read(text).result;
    expect(Object.fromEntries([...got.outcomes].map(([k, v]) => [k, v.medianSeconds]))).toEqual(want);
  });

  it.each([
    ['an unclosed list', 'a: 1\nb: [1500\n', ':2:1: b: YAML syntax: '],
    ['an alias with no anchor', 'a: 1\nb: *c\n', ':2:4: b: alias *c has no anchor'],
    ['a duplicate key', 'a: 1\na: 2\n', ':2:1: a: duplicate key "a"'],
  ])('names the file, line and column of %s', async (_, text, where) => {
    const { file, result } = read(text);
    await expect(result).rejects.toThrow(`${file}${where}`);
  });

  it.each([
    ['1e400', 'an infinite number'],
    ['.inf', 'an infinite number'],
    ['-.inf', 'an infinite number'],
    ['.nan', 'not a number (.nan)'],
    ['-5', '-5'],
    ['25m', 'the string "25m"'],
  ])('refuses the run time %s, saying what it got', async (value, got) => {
    const { file, result } = read(`a: 1\nslow: ${value}\n`);
    await expect(result).rejects.toThrow(
      `${file}:2:7: slow: run time must be a number of seconds ≥ 0, got ${got}`,
    );
  });

  it('refuses a list, naming the file', async () => {
    const { file, result } = read('[1, 2]\n');
    await expect(result).rejects.toThrow(`${file}: expected a map of algorithm name to run time in seconds`);
  });
});

describe('newcomer-4: the --benchmarks file against the repo', () => {
  it('a missing file names the flag and the path', async () => {
    const file = join(dir, 'missing.yaml');
    await expect(readBenchmarksFile(file)).rejects.toThrow(`--benchmarks ${file}: cannot read: ENOENT`);
  });

  it('a name no algorithm has is a warning at its line, with the near name; known names are not', async () => {
    const { file, result } = read('resnet50-infer: 40\nresnet50-infr: 41\nbert: 3\n');
    const known = new Set(['resnet50-infer', 'whisper-asr']);
    expect(unknownRecordedNames(file, await result, known)).toEqual([
      `${file}:2:1: resnet50-infr: no algorithm of the repo has this name, so this run time is not used; did you mean "resnet50-infer"?`,
      `${file}:3:1: bert: no algorithm of the repo has this name, so this run time is not used`,
    ]);
  });
});
