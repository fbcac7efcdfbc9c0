import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPLAY_SETTINGS } from '../../replay/replay-settings.js';
import { loopSettings } from './replay-flags.js';
import type { ReplayFlags } from './replay-options.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'gpuops-loop-flags-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const d = DEFAULT_REPLAY_SETTINGS;
const flags = (o: Partial<ReplayFlags> = {}): ReplayFlags =>
  ({
    sampleDelaySeconds: d.sampleDelaySeconds,
    passIntervalSeconds: d.passIntervalSeconds,
    loops: true,
    ...o,
  }) as ReplayFlags;

describe("loopSettings: the replay's loop flags", () => {
  it('the defaults: the sample delay, periodic passes, the loops beside', () => {
    expect(loopSettings(flags())).toEqual({ sampleDelaySeconds: 15, loops: true });
  });
  it('--signal-interval-seconds sets the sample delay; --event-driven, --tick-seconds, --no-loops', () => {
    expect(
      loopSettings(flags({ signalIntervalSeconds: 5, eventDriven: true, tickSeconds: 5, loops: false })),
    ).toEqual({ sampleDelaySeconds: 5, eventDriven: true, tickSeconds: 5, loops: false });
  });
  it.each<[string, Partial<ReplayFlags>, string]>([
    [
      'BothSignalFlags',
      { signalIntervalSeconds: 5, sampleDelaySeconds: 10 },
      '--signal-interval-seconds and --sample-delay-seconds both',
    ],
    [
      'TickNotDividingTheSignal',
      { tickSeconds: 4 },
      '--tick-seconds 4 must divide the signal interval (15 s)',
    ],
    [
      'TickNotDividingThePass',
      { signalIntervalSeconds: 5, tickSeconds: 5, passIntervalSeconds: 32 },
      '--tick-seconds 5 must divide --pass-interval-seconds (32 s)',
    ],
    ['NoLatencyFile', { startupLatencyFile: path.join(dir, 'none.csv') }, '--startup-latency-file'],
  ])('%s', (_name, o, message) => {
    expect(() => loopSettings(flags(o))).toThrow(message);
  });
  it('a latency file is read (seconds) for the own loop and, by default, the drawn loop', () => {
    const file = path.join(dir, 'lat.csv');
    writeFileSync(file, 'value\n1500\n22700\n');
    expect(loopSettings(flags({ startupLatencyFile: file }))).toMatchObject({
      startupLatencies: [1.5, 22.7],
      loopsLatencies: [1.5, 22.7],
    });
    expect(loopSettings(flags({ loopsLatencyFile: file }))).not.toHaveProperty('startupLatencies');
  });
  it('a bad latency row names the flag, file and line', () => {
    const file = path.join(dir, 'bad.csv');
    writeFileSync(file, 'value\n1\nx\n');
    expect(() => loopSettings(flags({ loopsLatencyFile: file }))).toThrow(
      `--loops-latency-file ${file}:3: value`,
    );
  });
});
