/**
 * Pull-request mode: a scale pull request that the load no longer needs is closed. When a pass
 * decides `hold` because the replicas Git holds now are right — the utilisation is within the band
 * (`WithinRange`) or the replicas already starting carry it (`PodsStarting`) — an open
 * `scale/<algorithm>` PR proposes a size that is stale; merged later it would scale to a load that
 * has gone (Renovate closes a PR whose update is no longer needed the same way). Holds that only
 * wait (cooldown, stabilisation, missing data) leave the PR as it is.
 */
import { branchName } from './branch-name.js';
import type { PullRequestHost } from './pr-host.js';
import type { ScalingDecision } from '../scaling/types.js';

/** Hold reasons that say the replicas in Git are right now. */
const SETTLED: ReadonlySet<ScalingDecision['reason']> = new Set(['WithinRange', 'PodsStarting']);

/** Dependencies of {@link closeSupersededScalePullRequests}. */
export interface CloseSupersededDeps {
  host: PullRequestHost;
  cluster: string;
  /** Branches with an open pull request (records or the host), e.g. from `Store.pullRequests`. */
  openBranches: ReadonlySet<string>;
  dryRun: boolean;
}

/**
 * Closes the open scale PR of every algorithm whose decision is a settled hold (see the module
 * comment). Returns the branches closed (in dry-run: that would be closed). A host without
 * `closeSuperseded` closes nothing. @throws what the host throws (a `PrHostError`)
 */
export async function closeSupersededScalePullRequests(
  decisions: readonly ScalingDecision[],
  deps: CloseSupersededDeps,
): Promise<string[]> {
  const closed: string[] = [];
  for (const d of decisions) {
    if (d.action !== 'hold' || !SETTLED.has(d.reason)) continue;
    const branch = branchName(deps.cluster, 'scale', d.algorithm);
    if (!deps.openBranches.has(branch) || !deps.host.closeSuperseded) continue;
    const note = `Closed by gpuops: no longer needed. ${d.message}`;
    if (deps.dryRun || (await deps.host.closeSuperseded(branch, note))) closed.push(branch);
  }
  return closed;
}
