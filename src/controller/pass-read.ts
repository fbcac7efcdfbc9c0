/**
 * The read phase of a reconcile pass: everything it decides on, read once — the specs and the
 * generated files at the base branch head (as one read model of Git), the cluster snapshot, the
 * HPA status.
 */
import type { Snapshot } from '../cluster/types.js';
import { listingSource, type ClusterSource } from '../cluster/source.js';
import type { KubeClient } from '../cluster/kube-client.js';
import type { WorkingCopy } from '../gitops/working-copy.js';
import type { UtilizationReading, UtilizationSource } from '../metrics/types.js';
import type { PassCaches } from '../plan/caches.js';
import { readGitModel, type GitModel } from '../plan/git-model.js';
import { parseRepo, type RepoFiles } from '../definitions/rules/repo.js';
import type { SpecFile } from '../definitions/rules/yaml-documents.js';
import type { LoadedRepo, Policy, SpecError } from '../definitions/types.js';
import { readUtilization } from './inputs.js';
import { invalidAlgorithms, keptForInvalidSpecs } from './invalid-specs.js';

const YAML_FILE = /\.ya?ml$/;

/** What one pass read: specs, Git's read model, the cluster, and the specs that fail validation. */
export interface PassInputs {
  repo: LoadedRepo;
  git: GitModel;
  snapshot: Snapshot;
  /**
   * The pass's one utilisation reading (`readUtilization` with the repo's policy), started as soon
   * as the policy is known, while the cluster is still being listed. Rejects as the source does.
   */
  reading: Promise<UtilizationReading>;
  /** Algorithms whose spec fails validation, with their errors (reported to their pull requests). */
  invalid: { algorithm: string; errors: SpecError[] }[];
  /** Algorithm folders whose generated files stay because a spec of theirs is broken. */
  kept: string[];
}

/**
 * Lists the cluster while it syncs the working copy, lets the PR host refresh its records (not in
 * dry-run), then reads the specs and `clusters/<cluster>/`, starts the utilisation reading with
 * the repo's policy (the floor's reads overlap the same way: lists, Prometheus and Git at once)
 * and builds the read model.
 * @throws when the repo cannot be fetched or the cluster cannot be listed (the pass is retried);
 *   ClusterCacheNotSyncedError when the cache is not synced (nothing is decided on it)
 */
export async function readPass(deps: {
  cluster: string;
  workingCopy: WorkingCopy;
  host: { refresh?(): Promise<number> };
  kube: KubeClient;
  /** The cache of `gpuops run`, or absent: list through `kube`. */
  clusterRead?: ClusterSource;
  metrics: UtilizationSource | null;
  defaults: Policy;
  caches: PassCaches;
  dryRun: boolean;
  now: Date;
}): Promise<PassInputs> {
  const wc = deps.workingCopy;
  // The cluster is listed while Git syncs (the floor's reads overlap the same way). The handler is
  // attached at once, so a listing that fails while the sync is awaited is reported by the await
  // below, not as an unhandled rejection.
  const clusterRead = deps.clusterRead ?? listingSource(deps.kube);
  const snapshotRead = clusterRead.snapshot(deps.now, { poolLabel: deps.defaults.spec.pools.labelKey });
  snapshotRead.catch(() => undefined);
  await wc.sync();
  // The plain git host learns that a person merged or deleted a branch (GitHub knows by itself).
  if (!deps.dryRun) await deps.host.refresh?.();
  const [algorithms, policies, base] = await Promise.all([
    wc.readTree('algorithms/'),
    wc.readTree('policies/'),
    wc.readTree(`clusters/${deps.cluster}/`),
  ]);
  const repo = parseSpecs(deps.defaults, algorithms, policies, deps.caches);
  const reading = readUtilization(deps.metrics, repo.policy, repo.algorithms);
  reading.catch(() => undefined); // awaited by the pass; a failed listing leaves it unawaited
  const snapshot = await snapshotRead;
  const git = readGitModel(deps.cluster, base, repo.policy.spec.pools.labelKey, deps.caches.parsed);
  const invalid = invalidAlgorithms(repo);
  return {
    repo,
    git,
    snapshot,
    reading,
    invalid: invalid.invalid,
    kept: keptForInvalidSpecs(invalid, deps.cluster, base),
  };
}

/**
 * Parses the specs (`parseRepo`, pure); the same defaults and files as the last pass give the
 * last pass's repo (`caches.specs`), so an unchanged repo is not validated again.
 */
function parseSpecs(
  defaults: Policy,
  algorithms: Map<string, string>,
  policies: Map<string, string>,
  caches: PassCaches,
): LoadedRepo {
  const toFiles = (m: Map<string, string>, topOnly: boolean) =>
    [...m]
      .filter(([p]) => YAML_FILE.test(p) && (!topOnly || p.split('/').length === 2))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, text]) => ({ path: p, text }));
  const files = { algorithms: toFiles(algorithms, false), policies: toFiles(policies, true) };
  const last = caches.specs;
  if (last && last.defaults === defaults && sameFiles(last.files, files)) return last.repo;
  const repo = parseRepo(defaults, files);
  caches.specs = { defaults, files, repo };
  return repo;
}

function sameFiles(a: RepoFiles, b: RepoFiles): boolean {
  const same = (x: readonly SpecFile[], y: readonly SpecFile[]) =>
    x.length === y.length && x.every((f, i) => f.path === y[i]!.path && f.text === y[i]!.text);
  return same(a.algorithms, b.algorithms) && same(a.policies, b.policies);
}
