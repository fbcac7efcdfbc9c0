/**
 * The read phase of a pass: every read it decides on, once, and nothing else — no write (the PR
 * host's refresh, the snapshot, the records all go to the write phase), so `gpuops plan` and a
 * dry run read exactly what a pass reads.
 */
import type { SnapshotOptions, Snapshot } from '../cluster/index.js';
import { invalidAlgorithms, keptForInvalidSpecs, rememberedLookups } from '../plan/index.js';
import type { FillFailure, FillHold } from '../plan/index.js';
import type { UtilizationReading } from '../metrics/index.js';
import { historySince } from '../scaling/index.js';
import type { DecisionRecord } from '../scaling/index.js';
import { rememberedBenchmarks } from './remembered-reads.js';
import { rememberedDecisions } from './remembered-decisions.js';
import { emptySinceNow } from './emptiness.js';
import { readUtilization } from './stored-inputs.js';
import { passReading, startEarlyReading } from './early-reading.js';
import { proposedBands } from './proposed-bands.js';
import { readModelCacheFills } from './model-cache-fills.js';
import type { PassBenchmarks, World, WorldSources } from './world.js';
import { nodesRunningBenchmarks } from '../cluster/index.js';

/**
 * The time a pass judges at: a clock reading, or — for `gpuops plan` on saved metrics files —
 * a function of the utilisation reading (its newest sample), so old dumps give their own decision.
 */
export type JudgeAt = Date | ((reading: UtilizationReading) => Date);

/**
 * Reads the world of one pass. With a `Date`, the cluster is read while the specs are (the reads
 * overlap: lists, Git, Prometheus and the database at once), and so is the utilisation when the
 * last pass of this memory read it on the same source object: its requests are sent again beside
 * the specs read and their answer is used only when the specs give the same requests
 * (`early-reading.ts`; else the specs' requests are read once the specs are in). With a function
 * of the reading (`gpuops plan`), the utilisation is read once the specs are in and the cluster
 * once the reading is in. The snapshot is read with the default policy's pool label and read
 * again in the rare repo whose policy names another (`pools.labelKey`); HPA status is read only
 * with `scaling.engine: hpa`.
 * Node emptiness is the stored node activity plus this snapshot (`emptySinceNow`): the read never
 * waits for the snapshot to be stored.
 * @throws when the specs cannot be fetched or the cluster cannot be read (the pass is retried);
 *   a failing utilisation source is a reading with `ok: false`, never a throw
 */
export async function readWorld(sources: WorldSources, now: JudgeAt): Promise<World> {
  const { cluster, defaults, store } = sources;
  const defaultLabel = defaults.spec.pools.labelKey;
  const early = now instanceof Date ? readCluster(sources, now, { poolLabel: defaultLabel }) : null;
  // The last pass's utilisation requests, sent again beside the specs read (`early-reading.ts`).
  const earlyReading = now instanceof Date ? startEarlyReading(sources.metrics, sources.memory) : null;
  const specs = await sources.specs.read(cluster, defaults, sources.memory);
  const { repo, base } = specs;
  const policy = repo.policy;
  const readingRead =
    now instanceof Date
      ? passReading(sources.metrics, policy, repo.algorithms, sources.memory, earlyReading)
      : readUtilization(sources.metrics, policy, repo.algorithms);
  readingRead.catch(() => undefined); // awaited below; a failed cluster read leaves it unawaited
  const at = now instanceof Date ? now : now(await readingRead);
  const poolLabel = policy.spec.pools.labelKey;
  const clusterRead = early && poolLabel === defaultLabel ? early : readCluster(sources, at, { poolLabel });
  const lookups = rememberedLookups(sources.memory);
  const { parse } = lookups;
  // Kept from the last pass while the files under `clusters/<cluster>/` are the same (kept-steps.ts).
  const git = lookups.gitModel(cluster, base, poolLabel);
  const names = repo.algorithms.map((a) => a.name);
  const moved = [...git.movedNodes.keys()];
  const [snapshot, hpa, reading, benchmarks, decided, history] = await Promise.all([
    clusterRead,
    policy.spec.scaling.engine === 'hpa' ? sources.clusterRead.hpaStates() : undefined,
    readingRead,
    sources.recordedBenchmarks
      ? Promise.resolve<PassBenchmarks>({ outcomes: new Map(sources.recordedBenchmarks), runs: new Map() })
      : store
        ? rememberedBenchmarks(repo.algorithms, store, sources.memory)
        : Promise.resolve<PassBenchmarks>({ outcomes: new Map(), runs: new Map() }),
    store
      ? rememberedDecisions(store, names, historySince(policy, at), sources.memory)
      : Promise.resolve(new Map<string, DecisionRecord[]>()),
    store && moved.length > 0 ? store.nodeEmptiness?.(moved) : Promise.resolve(undefined),
  ]);
  const recent: DecisionRecord[] = names.flatMap((n) => decided.get(n) ?? []);
  const failures = new Map<string, FillFailure>();
  const holds = new Map<string, FillHold>();
  const fills = sources.jobs
    ? await readModelCacheFills(sources.jobs, repo.algorithms, git, parse, { failed: failures, held: holds })
    : null;
  const invalid = invalidAlgorithms(repo);
  return {
    now: at,
    cluster,
    repo,
    git,
    invalid: invalid.invalid,
    kept: keptForInvalidSpecs(invalid, cluster, base),
    snapshot,
    // The bands proposed from stored benchmarks, so `gpuops plan` judges the band a pass would.
    benchmarks: store
      ? { ...benchmarks, bands: await proposedBands(store, repo, benchmarks.runs) }
      : benchmarks,
    recent,
    reading,
    runningBenchmarks: nodesRunningBenchmarks(snapshot.pods),
    ...(hpa ? { hpa } : {}),
    ...(history ? { emptySince: emptySinceNow(history, snapshot.nodes, snapshot.takenAt) } : {}),
    ...(fills?.size ? { modelCacheFills: fills } : {}),
    ...(failures.size ? { modelCacheFailures: failures } : {}),
    ...(holds.size ? { modelCacheHolds: holds } : {}),
  };
}

/** The snapshot; its handler is attached at once, so a read that fails while another is awaited is not unhandled. */
function readCluster(sources: WorldSources, now: Date, options: SnapshotOptions): Promise<Snapshot> {
  const snapshot = sources.clusterRead.snapshot(now, options);
  snapshot.catch(() => undefined);
  return snapshot;
}
