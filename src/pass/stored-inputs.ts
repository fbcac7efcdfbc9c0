/**
 * Reading the inputs of a plan or a pass that do not come from the cluster: recorded benchmark
 * run times (a file, or the database) and one reading of the GPU utilisation source (built from
 * settings in `cli/metrics-source.ts`).
 */
import { readFile } from 'node:fs/promises';
import { specHash, summarizeRuns } from '../benchmark/index.js';
import type { UtilizationReading, UtilizationSource } from '../metrics/index.js';
import type { BenchmarkOutcome } from '../placement/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import { formatSpecError, locate, parseDocuments, show, didYouMean } from '../definitions/index.js';
import type { BenchmarkRun, Store } from '../store/index.js';
import { readOtherSignals } from './signal-readings.js';

/** A `--benchmarks FILE` as read: the outcome of every name, and where each name is written. */
export interface RecordedBenchmarks {
  outcomes: Map<string, BenchmarkOutcome>;
  /** Name → the 1-based line and column of its key in the file. */
  at: Map<string, { line: number; column: number }>;
}

/**
 * Reads `--benchmarks FILE`: a YAML or JSON map of algorithm name → measured run time (seconds),
 * e.g. `resnet50-infer: 42.5`. Each becomes a `Succeeded` outcome with that median. A person writes
 * this file, so it is read as specs are (`parseDocuments`: duplicate keys and unanchored aliases
 * are errors at their line).
 * @throws Error naming the flag and the file when it cannot be read (`--benchmarks FILE: cannot
 *   read: ENOENT …`), and the file with line and column for a YAML fault or a value that is not a
 *   number of seconds ≥ 0
 */
export async function readBenchmarksFile(file: string): Promise<RecordedBenchmarks> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`--benchmarks ${file}: cannot read: ${(err as Error).message}`, { cause: err });
  }
  const parsed = parseDocuments({ path: file, text });
  if (parsed.errors.length > 0) throw new Error(parsed.errors.map(formatSpecError).join('\n'));
  const [doc, ...more] = parsed.documents;
  const map = doc?.value;
  if (!doc || more.length > 0 || map === null || typeof map !== 'object' || Array.isArray(map)) {
    throw new Error(`${file}: expected a map of algorithm name to run time in seconds`);
  }
  const outcomes = new Map<string, BenchmarkOutcome>();
  const at = new Map<string, { line: number; column: number }>();
  for (const [name, value] of Object.entries(map as Record<string, unknown>)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      const where = locate(doc, [name], 'value');
      throw new Error(
        `${file}:${where.line}:${where.column}: ${name}: run time must be a number of seconds ≥ 0, got ${show(value)}`,
      );
    }
    outcomes.set(name, {
      status: 'Succeeded',
      medianSeconds: value,
      message: `recorded run time ${value} s (${file})`,
    });
    at.set(name, locate(doc, [name], 'key'));
  }
  return { outcomes, at };
}

/**
 * One warning per name of a `--benchmarks FILE` that is no algorithm of the repo (`known`: every
 * `metadata.name` of its Algorithm files, refused ones included), `file:line:column: name: …`,
 * with the closest known name when one is near: the run time is used by no one, most likely a
 * typo or a renamed spec, and the algorithm meant waits for a benchmark instead.
 */
export function unknownRecordedNames(
  file: string,
  recorded: RecordedBenchmarks,
  known: ReadonlySet<string>,
): string[] {
  return [...recorded.at].flatMap(([name, where]) => {
    if (known.has(name)) return [];
    const guess = didYouMean(name, [...known]);
    const hint = guess ? `; did you mean "${guess}"?` : '';
    return [
      `${file}:${where.line}:${where.column}: ${name}: no algorithm of the repo has this name, so this run time is not used${hint}`,
    ];
  });
}

/**
 * Benchmark outcomes (and their runs, for PR evidence) of every algorithm at its current spec,
 * from the database in one query (`benchmarkRunsFor`); an algorithm whose runs say `Pending`
 * has no outcome.
 */
export async function storedBenchmarks(
  algorithms: readonly ResolvedAlgorithm[],
  store: Pick<Store, 'benchmarkRunsFor'>,
): Promise<{ outcomes: Map<string, BenchmarkOutcome>; runs: Map<string, BenchmarkRun[]> }> {
  const stored = await store.benchmarkRunsFor(
    algorithms.map((a) => ({ algorithm: a.name, specHash: specHash(a.spec, a.annotations) })),
  );
  const outcomes = new Map<string, BenchmarkOutcome>();
  const runs = new Map<string, BenchmarkRun[]>();
  for (const alg of algorithms) {
    const mine = stored.get(alg.name) ?? [];
    const s = summarizeRuns(mine, alg.benchmark.runs);
    if (s.status !== 'Pending')
      outcomes.set(alg.name, { status: s.status, medianSeconds: s.medianSeconds, message: s.message });
    runs.set(alg.name, mine);
  }
  return { outcomes, runs };
}

/**
 * Reads the source once for the policy's metric and window, with the scale-down stabilisation
 * window's history in the same query (sources that keep history: Prometheus, saved `query_range`
 * answers), asking only for the series of `algorithms`' namespaces when given (the only pods
 * attribution counts: Prometheus filters on the server), and each other signal they scale on
 * (`readOtherSignals`, attached as `signals`); no source is "no data".
 */
export async function readUtilization(
  source: UtilizationSource | null,
  policy: Policy,
  algorithms?: readonly ResolvedAlgorithm[],
): Promise<UtilizationReading> {
  if (!source) {
    return {
      ok: false,
      reason: 'Empty',
      message: 'no GPU metrics source configured (--prometheus-url, --dcgm-url or --metrics)',
    };
  }
  const base = {
    windowSeconds: policy.spec.scaling.windowSeconds,
    historySeconds: policy.spec.scaling.scaleDown.stabilizationWindowSeconds,
  };
  const [reading, signals] = await Promise.all([
    source.read({
      ...base,
      metric: policy.spec.scaling.metric,
      ...(algorithms ? { namespaces: [...new Set(algorithms.map((a) => a.namespace))].sort() } : {}),
    }),
    algorithms ? readOtherSignals(source, policy, algorithms, base) : Promise.resolve({}),
  ]);
  return Object.keys(signals).length > 0 ? { ...reading, signals } : reading;
}
