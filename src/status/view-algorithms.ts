/**
 * The algorithms and benchmarks sections of the status page (pure): each algorithm's placement,
 * scaling and utilisation chart, and the benchmark pods still running.
 */
import type { Snapshot } from '../cluster/index.js';
import { benchmarkInProgress } from '../cluster/index.js';
import { GPUOPS } from '../util/index.js';
import { bucketSamples, chartMarkers } from './chart.js';
import { chartScale } from './chart-scale.js';
import type { StatusAlgorithm, StatusBenchmark, StatusInput } from './view-types.js';

/**
 * Every algorithm the newest pass knows or that has samples, by name. Its chart covers the
 * window `[from, to]` (epoch seconds), narrowed to the earliest sample or marker in it.
 */
export function statusAlgorithms(
  input: Pick<StatusInput, 'fleet' | 'samples' | 'history'>,
  from: number,
  to: number,
): StatusAlgorithm[] {
  const threshold = input.fleet?.longTaskThresholdSeconds ?? null;
  const names = new Set([...(input.fleet?.algorithms ?? []).map((a) => a.name), ...input.samples.keys()]);
  const fleetOf = new Map((input.fleet?.algorithms ?? []).map((a) => [a.name, a]));
  return [...names].sort().map((name) => {
    const a = fleetOf.get(name);
    const run = a?.runTimeSeconds ?? null;
    const samples = input.samples.get(name) ?? [];
    const decisions = input.history.get(name) ?? [];
    // The axis fits the data: the earliest sample or marker of the last 24 h sets the window.
    const earliest = Math.min(
      ...samples.map((x) => Date.parse(x.at) / 1000),
      ...chartMarkers(decisions, from, to).map((m) => m.t),
    );
    const scale = chartScale(to, Number.isFinite(earliest) && earliest >= from ? earliest : to);
    return {
      name,
      pool: a?.pool ?? null,
      runTimeSeconds: run,
      thresholdSeconds: threshold,
      // The placement rule: run time > threshold → long-task; equal stays short-task.
      side: run === null || threshold === null ? null : run > threshold ? 'above' : 'at-or-below',
      placementReason: a?.placementReason ?? 'Unknown',
      placementMessage: a?.placementMessage ?? '',
      replicas: a?.replicas ?? null,
      minReplicas: a?.minReplicas ?? null,
      maxReplicas: a?.maxReplicas ?? null,
      scalingReason: a?.scalingReason ?? null,
      scalingMessage: a?.scalingMessage ?? null,
      ...(a?.held ? { held: a.held } : {}),
      chart: {
        ...scale,
        bandMin: a?.utilizationMin ?? null,
        bandMax: a?.utilizationMax ?? null,
        points: bucketSamples(samples, scale.from, scale.to, scale.bucketSeconds),
        markers: chartMarkers(decisions, scale.from, scale.to),
      },
    };
  });
}

/** The benchmark pods in progress in the snapshot, by algorithm. */
export function statusBenchmarks(snapshot: Snapshot | null): StatusBenchmark[] {
  return (snapshot?.pods ?? [])
    .filter(benchmarkInProgress)
    .map((p) => ({
      algorithm: p.algorithm ?? p.labels[GPUOPS.algorithm] ?? '(unknown)',
      pod: `${p.namespace}/${p.name}`,
      node: p.nodeName,
      phase: p.phase,
      startedAt: p.createdAt,
    }))
    .sort((a, b) => (a.algorithm < b.algorithm ? -1 : a.algorithm > b.algorithm ? 1 : 0));
}
