/**
 * Memo tables one reconciler keeps from pass to pass (per reconciler, never per module: two
 * reconcilers in one process, or two tests, share nothing). Every entry is a pure function's
 * result for the same input, so a hit changes no decision; callers only read what they get.
 */
import type { FileChange } from '../gitops/types.js';
import type { WorkloadInput } from '../manifests/workloads.js';
import { RenderCache } from '../manifests/yaml.js';
import type { RepoFiles } from '../definitions/rules/repo.js';
import type { LoadedRepo, Policy, ResolvedAlgorithm } from '../definitions/types.js';
import type { GitWriteRefusalRecord } from '../store/types.js';

/** The memo tables of one reconciler; see the module comment. */
export interface PassCaches {
  /**
   * The last specs parsed: the same defaults and files give the same repo, so a pass over an
   * unchanged repo (the usual case) skips parsing and validating 1,000 files (~0.7 s at fleet scale).
   */
  specs: { defaults: Policy; files: RepoFiles; repo: LoadedRepo } | undefined;
  /**
   * Parsed generated files by their text (null when not YAML). Git's generated files rarely
   * change between passes and the `yaml` parser costs about 1 ms per Deployment. Bounded: the
   * oldest entries go first past {@link PARSE_CACHE_SIZE}.
   */
  parsed: Map<string, unknown>;
  /**
   * Rendered workload files by algorithm object, the last two renders each (its placement and,
   * when it scales, the new replica count). The specs of an unchanged repo are the same objects
   * pass after pass (see `specs`), so unchanged algorithms are not rendered again.
   */
  workloads: WeakMap<ResolvedAlgorithm, { input: WorkloadInput; files: FileChange[] }[]>;
  /** Rendered YAML documents by their sorted JSON (the Node manifests every pass renders again). */
  rendered: RenderCache;
  /**
   * Not a memo of a pure function: the permanent Git write refusals (a protected base branch in
   * patch mode) as this reconciler last stored them; undefined until the first pass reads them
   * from the database (`standingRefusals` in pass/write.ts).
   */
  refusals?: GitWriteRefusalRecord[];
}

/** Entries of {@link PassCaches.parsed} kept at most. */
export const PARSE_CACHE_SIZE = 20_000;

/** Empty memo tables for one reconciler (or one `gpuops plan`). */
export function createPassCaches(): PassCaches {
  return { specs: undefined, parsed: new Map(), workloads: new WeakMap(), rendered: new RenderCache() };
}
