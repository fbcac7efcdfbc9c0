/**
 * Which cluster a read-only command (`status`, `prs`) shows. One database may hold several
 * clusters; a `--cluster` it does not hold is an operator's mistake (a typo, the wrong
 * database), and answering with an empty page or "No pull requests recorded" hides it. So:
 * - `--cluster` given (flag, `GPUOPS_CLUSTER` or `gpuops.yaml`) and held: that cluster;
 * - given and not held, while the database holds others: a usage error naming the ones it holds;
 * - not given: `default` when held (or when the database holds none yet), else the one cluster
 *   the database holds; of several, a usage error naming them.
 */
import { redactUrl } from '../store/index.js';
import type { StatusStore } from '../store/index.js';
import { UsageError, type Settings } from './settings.js';

/** The cluster to show, and a note for stderr when it is not the one asked for by default. */
export interface ClusterChoice {
  cluster: string;
  note: string | null;
}

/**
 * Decides the cluster (pure; see the module comment).
 * @param asked    the resolved `--cluster` (its default `default` when not given)
 * @param given    whether a flag, environment variable or gpuops.yaml named it
 * @param known    the clusters the database holds, sorted
 * @param database the `--database` URL, for the message (without its password)
 * @throws UsageError naming the clusters the database holds
 */
export function chooseCluster(
  asked: string,
  given: boolean,
  known: readonly string[],
  database: string,
): ClusterChoice {
  if (known.length === 0 || known.includes(asked)) return { cluster: asked, note: null };
  const held = `it holds ${known.length === 1 ? 'cluster' : 'clusters'} ${known.join(', ')}`;
  if (given)
    throw new UsageError(
      `--cluster ${asked}: the database ${database} holds nothing of cluster "${asked}"; ${held} (--cluster ${known[0]})`,
    );
  if (known.length === 1)
    return {
      cluster: known[0]!,
      note: `gpuops: no --cluster given; showing cluster "${known[0]}", the only one in ${database}`,
    };
  throw new UsageError(`--cluster: not given, and the database ${database} has no "${asked}"; ${held}`);
}

/**
 * {@link chooseCluster} against an open database: reads the clusters it holds and writes the
 * note, if any, through `note` (the commands pass stderr for text output and nothing for JSON and
 * HTML, whose own content names the cluster and which scripts often read with stderr merged in).
 * @throws UsageError (exit 2) as {@link chooseCluster}; StoreError when the read fails
 */
export async function clusterOf(
  store: Pick<StatusStore, 'clusters'>,
  settings: Pick<Settings, 'cluster' | 'database' | 'defaulted'>,
  note: ((line: string) => void) | null,
): Promise<string> {
  const given = !(settings.defaulted ?? []).includes('cluster');
  const database = redactUrl(settings.database);
  const choice = chooseCluster(settings.cluster, given, await store.clusters(), database);
  if (choice.note) note?.(choice.note);
  return choice.cluster;
}

/**
 * The warning of a `--cluster` whose folder `clusters/<cluster>/` the GitOps repo lacks while it
 * holds other clusters' folders (a typo, or the wrong repo), or null. Not an error: a first pass
 * for a new cluster writes its folder from scratch.
 * @param known the folder names under `clusters/`, any order
 */
export function unknownClusterWarning(cluster: string, known: readonly string[]): string | null {
  if (known.length === 0 || known.includes(cluster)) return null;
  const sorted = [...known].sort();
  return `the repo has no clusters/${cluster}/, only ${sorted.map((c) => `clusters/${c}/`).join(', ')}: every file of cluster "${cluster}" would be new (did you mean --cluster ${sorted[0]}?)`;
}

/**
 * The refusal of a `--cluster` that `reconcile` and `run` would write for (pure), or null. A
 * mistyped name (`prd` for `prod`) is silent otherwise: the pass would open pull requests that
 * create `clusters/prd/` (a second Deployment of every algorithm, of the same name) and `run`
 * would take a Lease of its own, leading beside the real controller. So a cluster neither the
 * repo (a folder `clusters/<name>/` on the base branch) nor the database (anything recorded for
 * it) has seen is refused, unless:
 * - `isNew` (`--new-cluster`): the operator says it is a new cluster;
 * - nothing knows any cluster (no `clusters/` folder, an empty database): a first run, whose pass
 *   writes the cluster's folder from scratch.
 * @param known the clusters the repo and the database know (`knownClusters`)
 * @returns the message of a usage error, naming the known clusters and the flag
 */
export function newClusterRefusal(
  cluster: string,
  known: { repo: readonly string[]; database: readonly string[] },
  isNew: boolean,
): string | null {
  const all = [...new Set([...known.repo, ...known.database])].sort();
  if (isNew || all.length === 0 || all.includes(cluster)) return null;
  const seen = [
    known.repo.length > 0
      ? `the repo has ${[...known.repo]
          .sort()
          .map((c) => `clusters/${c}/`)
          .join(', ')}`
      : null,
    known.database.length > 0
      ? `the database holds ${known.database.length === 1 ? 'cluster' : 'clusters'} ${[...known.database].sort().join(', ')}`
      : null,
  ].filter((x): x is string => x !== null);
  return `--cluster ${cluster}: neither the repo nor the database has seen cluster "${cluster}" (${seen.join('; ')}); a pass would create clusters/${cluster}/ beside them. Did you mean --cluster ${all[0]}? For a new cluster, pass --new-cluster`;
}

/** Writes a note line to stderr. */
export const toStderr = (line: string): void => void process.stderr.write(`${line}\n`);
