/**
 * What a benchmark recorded of an algorithm's signal (pure): the value its pod showed while the
 * benchmark drove it, from the samples the passes took while the run was Running
 * (`signal-sample.ts`, stored by `Store.recordBenchmarkSignalSample`).
 */
import type { BenchmarkRun, BenchmarkSignalSample } from '../store/index.js';
import { median } from './summary.js';

/** The recorded value, with where it came from. */
export interface SignalAtLoad {
  /** The median of the samples with a value, in `unit`. */
  value: number;
  /** The signal key of the samples (`gpuUtil`, `serviceMetric:<name>` …). */
  signal: string;
  unit: string;
  /** How many samples had a value. */
  samples: number;
  /** The Jobs of the runs the samples came from, oldest first. */
  jobs: string[];
  /** ISO-8601 time of the newest sample counted. */
  at: string;
}

/** A recorded value, or why there is none. */
export type SignalAtLoadResult = ({ ok: true } & SignalAtLoad) | { ok: false; reason: string };

/**
 * The signal a benchmark recorded: the median of the valued samples of its `Succeeded` runs of
 * signal `signal` (a run that failed, timed out or was disrupted drove no load worth judging, and
 * samples of another signal were taken before the spec changed it). The median, not the peak: a
 * run ramps up and down, and one scrape caught mid-ramp should not move the band. No valued
 * sample: no value, and the reason is the newest sample's (or that none was taken while a run was
 * Running — a run that ended between two passes was never seen running).
 */
export function signalAtLoad(
  samples: readonly BenchmarkSignalSample[],
  runs: readonly Pick<BenchmarkRun, 'run' | 'status'>[],
  signal: string,
): SignalAtLoadResult {
  const succeeded = new Set(runs.filter((r) => r.status === 'Succeeded').map((r) => r.run));
  if (succeeded.size === 0) return { ok: false, reason: 'no benchmark run has Succeeded' };
  const mine = samples.filter((s) => s.signal === signal && succeeded.has(s.run));
  const valued = mine.filter((s): s is BenchmarkSignalSample & { value: number } => s.value !== null);
  if (valued.length === 0) {
    const last = mine[mine.length - 1];
    return {
      ok: false,
      reason: last
        ? `no value of ${signal} was read while the benchmark ran (${last.jobName} at ${last.at}: ${last.reason ?? 'no value'})`
        : `no sample of ${signal} was taken while a Succeeded benchmark run was Running`,
    };
  }
  return {
    ok: true,
    value: median(valued.map((s) => s.value)),
    signal,
    unit: valued[0]!.unit,
    samples: valued.length,
    jobs: [...new Set(valued.map((s) => s.jobName))],
    at: valued[valued.length - 1]!.at,
  };
}
