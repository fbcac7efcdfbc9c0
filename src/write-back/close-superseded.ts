/**
 * Pull-request mode: a scale-down pull request that the load no longer wants is closed. When a
 * pass decides `hold` because the replicas Git holds now are right — the utilisation is within the
 * band (`WithinRange`) or the replicas already starting carry it (`PodsStarting`) — an open
 * `scale/<algorithm>` PR that proposes FEWER replicas is stale: merged later it would take away
 * capacity the load still uses (Renovate closes a PR whose update is no longer needed the same
 * way). An open scale-up PR stays: the load moves within minutes and a merge takes a person's
 * time, so closing it on a dip into the band would restart the wait each time the load comes back
 * (the replay's PR mode showed it); it is updated when the next scale-up decision sizes it again,
 * or rewritten into a scale-down when the load falls below min. Holds that only wait (cooldown,
 * stabilisation, missing data) leave every PR as it is.
 *
 * With standby pods (docs/standby.md, "Claims and Git"), a scale-up that claims only, or a
 * scale-down that only gives claimed pods back, keeps Git's count: an open scale PR proposing
 * another count for the Deployment is stale the same way (merged, it would add replicas the claims
 * already gave, or take away ones the load uses) and is closed. The title's numbers are the
 * Deployment's in Git (`titleReplicas`), compared with Git's part of the decision (`gitReplicas`).
 */
import { branchName, titleReplicas } from '../change-sets/index.js';
import type { PullRequestHost } from '../git-hosts/index.js';
import { gitReplicas, type ScalingDecision } from '../scaling/index.js';

/** Hold reasons that say the replicas in Git are right now. */
const SETTLED: ReadonlySet<ScalingDecision['reason']> = new Set(['WithinRange', 'PodsStarting']);

/** Dependencies of {@link closeSupersededScalePullRequests}. */
export interface CloseSupersededDeps {
  host: PullRequestHost;
  cluster: string;
  /** Open pull requests by branch → their title (records or the host), e.g. from `Store.pullRequests`. */
  openBranches: ReadonlyMap<string, string>;
  dryRun: boolean;
}

/**
 * Closes the open scale-down PR of every algorithm whose decision is a settled hold with more
 * replicas in Git than the PR proposes, and the open scale PR of every algorithm whose change
 * standby pods carry alone when it proposes another count than Git's (see the module comment). Returns the branches closed (in dry-run: that would be closed). A host without
 * `closeSuperseded` closes nothing. @throws what the host throws (a `PrHostError`)
 */
export async function closeSupersededScalePullRequests(
  decisions: readonly ScalingDecision[],
  deps: CloseSupersededDeps,
): Promise<string[]> {
  const closed: string[] = [];
  for (const d of decisions) {
    const settled = d.action === 'hold' && SETTLED.has(d.reason);
    // A change standby pods carry alone leaves Git's count as it is (`planStandby`).
    const carried = d.action !== 'hold' && d.standby?.deployment === 0;
    if (!settled && !carried) continue;
    const branch = branchName(deps.cluster, 'scale', d.algorithm);
    const title = deps.openBranches.get(branch);
    if (title === undefined || !deps.host.closeSuperseded) continue;
    const proposed = titleReplicas(title, d.algorithm);
    // The title proposes the Deployment's replicas in Git; the decision's `from` counts claimed standby pods too.
    const git = gitReplicas(d).from;
    if (!proposed || (settled ? proposed.to >= git : proposed.to === git)) continue;
    const why = carried
      ? `claimed standby pods carry ${d.replicas.from} → ${d.replicas.to} with the Deployment at ${git}; merged, this would take it to ${proposed.to}.`
      : 'no longer needed.';
    const note = `Closed by gpuops: ${why} ${d.message}`;
    if (deps.dryRun || (await deps.host.closeSuperseded(branch, note))) closed.push(branch);
  }
  return closed;
}
