/**
 * `gpuops benchmark NAME`: the same level-triggered step the controller runs, repeated with the
 * clock until the benchmark of one algorithm is decided. Only this command waits; a reconcile
 * pass never does.
 */
import type { ResolvedAlgorithm } from '../definitions/index.js';
import type { BenchmarkRun } from '../store/index.js';
import type { BenchmarkProgress, BenchmarkResult, RunnerDeps, TestCapacity } from './types.js';
import { stepBenchmarks } from './step.js';

/** How often to step: first interval, growth factor, cap (seconds). */
export interface PollOptions {
  initialSeconds: number;
  factor: number;
  maxSeconds: number;
}

const DEFAULT_POLL: PollOptions = { initialSeconds: 2, factor: 1.5, maxSeconds: 15 };

/**
 * Steps the benchmark of `alg` until it is final (enough successful runs, or a final failure),
 * sleeping on `deps.clock` between steps (2 s growing ×1.5 up to 15 s, back to 2 s after each
 * recorded run). A run that ended `Unschedulable` or `StartFailed` ends the wait too: the result
 * is not final, and a later pass of the controller (or a later command) tries again. `Disrupted`
 * runs are tried again at once. Progress goes to `deps.onProgress` on every phase change and at
 * least every `progressEverySeconds` (default 30) while the phase stays.
 * `recorded` of the result holds every run recorded while waiting.
 * @throws KubeApiError or a store error when the API or the database keeps failing
 */
export async function waitForBenchmark(
  alg: ResolvedAlgorithm,
  deps: RunnerDeps,
  capacity: () => Promise<TestCapacity>,
  opts: { poll?: PollOptions; progressEverySeconds?: number } = {},
): Promise<BenchmarkResult> {
  const poll = opts.poll ?? DEFAULT_POLL;
  const every = opts.progressEverySeconds ?? 30;
  let lastPhase: string | null = null;
  let lastAt = Number.NEGATIVE_INFINITY;
  const onProgress = (p: BenchmarkProgress) => {
    const at = deps.clock.now().getTime();
    const key = `${p.run}/${p.phase}`;
    if (key === lastPhase && at - lastAt < every * 1000) return;
    lastPhase = key;
    lastAt = at;
    deps.onProgress?.(p);
  };
  const recorded: BenchmarkRun[] = [];
  let interval = poll.initialSeconds;
  for (;;) {
    const [r] = await stepBenchmarks([alg], { ...deps, onProgress }, await capacity());
    recorded.push(...r!.recorded);
    const stop = r!.recorded.find((x) => x.status === 'Unschedulable' || x.status === 'StartFailed');
    if (r!.final || stop) {
      const status = r!.final ? r!.status : stop!.status === 'Unschedulable' ? 'Unschedulable' : 'Pending';
      return { ...r!, status, recorded };
    }
    if (r!.recorded.length > 0) interval = poll.initialSeconds;
    await deps.clock.sleep(interval);
    interval = Math.min(interval * poll.factor, poll.maxSeconds);
  }
}
