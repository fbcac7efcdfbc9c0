/**
 * Patch mode's fields handed to Git (`cluster/field-ownership.ts`). gpuops writes a moved node's
 * pool label and a Deployment's `spec.replicas` (through `scale`) itself and commits the same
 * value; once Argo CD's or Flux's apply owns the field too, gpuops drops its own ownership, so that
 * a later change or removal in Git is what the object gets: while gpuops's field manager still
 * owned it, server-side apply kept the field after Git dropped it (the object drifted from Git
 * unseen: a label left on a Node, replicas left at gpuops's value after a person removed them from
 * the manifest for an HPA). Runs in both modes: after a switch to pull-request mode the ownership
 * patch mode took would hold the fields just the same. A Deployment is read and written only in a
 * namespace whose file in Git binds `gpuops-scale` (`pass/write.ts`): after a switch, until the
 * pull request that drops the binding is merged; a `spec.replicas` still shared after that stays
 * gpuops's until a change of it in Git, which Argo CD's and Flux's forced apply takes over. The
 * snapshot holds no Deployment, so each is read only when due (`handover-schedule.ts`: at most
 * once per 5 min unless gpuops just scaled it or its hand-over failed, at most 100 a pass).
 */
import type { ClusterPatcher, NodeInfo, PatchResult } from '../cluster/index.js';
import type { GitOpsLogger } from '../change-sets/index.js';
import {
  HANDOVER_CHECKS_IN_FLIGHT,
  deploymentsDue,
  noteChecked,
  type DeploymentChecks,
  type DeploymentRef,
} from './handover-schedule.js';
import { inFlight } from '../util/index.js';

/**
 * For each node whose snapshot says gpuops shares a field with Git's applier
 * (`NodeInfo.sharedWithGit`), hands those fields over (`ClusterPatcher.releaseToGit`). Returns one
 * line per hand-over written or failed (`would hand over …` in dry-run). A failed one (e.g. no
 * `patch` on Nodes: the patch-mode component removed) is logged with the nodes and tried again next
 * pass, since the snapshot still shows the shared field.
 */
export async function handFieldsToGit(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  nodes: readonly NodeInfo[],
): Promise<string[]> {
  const shared = nodes.filter((n) => n.sharedWithGit).map((n) => n.name);
  if (deps.dryRun)
    return shared.map((n) => `would hand the fields Git’s applier owns too of Node ${n} over to it`);
  const results = [];
  for (const node of shared) results.push(await patcher.releaseToGit(node));
  return reported(results, deps.log, 'Nodes');
}

/**
 * For the Deployments given (the algorithms' Deployments gpuops may read and patch) that are due
 * (`handover-schedule.ts`: not read by this reconciler yet, last read `HANDOVER_RECHECK_MS`
 * ago or failed, or scaled by gpuops within that time; at most `HANDOVER_CHECKS_PER_PASS` a
 * pass), reads each and hands the fields gpuops's manager shares with Git's applier over
 * (`ClusterPatcher.releaseDeploymentToGit`: its `spec.replicas`, which the scale patch owns),
 * `HANDOVER_CHECKS_IN_FLIGHT` at once. The snapshot holds no Deployment: each is one GET.
 * `schedule.checks` is the reconciler's memory of the reads, updated here; `scaled` the
 * `namespace/name` of the Deployments gpuops scaled this pass; `nowMs` the pass's time (epoch ms).
 * Lines and warnings as {@link handFieldsToGit}'s, in the order given; a failed one is tried again
 * next pass. Dry-run reads and writes nothing and returns no line (without the read it cannot know
 * what is shared).
 * @throws what `releaseDeploymentToGit` throws (it answers a refused read or patch as a result)
 */
export async function handDeploymentsToGit(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  deployments: readonly DeploymentRef[],
  schedule: { checks: DeploymentChecks; nowMs: number; scaled?: ReadonlySet<string> },
): Promise<string[]> {
  if (deps.dryRun) return [];
  const { checks, nowMs } = schedule;
  const due = deploymentsDue(deployments, checks, nowMs, schedule.scaled);
  const results = await inFlight(due, HANDOVER_CHECKS_IN_FLIGHT, async (d) => {
    const r = await patcher.releaseDeploymentToGit(d.namespace, d.name);
    noteChecked(checks, d, nowMs, r);
    return r;
  });
  return reported(results, deps.log, 'Deployments');
}

/** The lines of hand-overs written or failed; the failed ones logged as one warning. */
function reported(results: readonly PatchResult[], log: GitOpsLogger | undefined, kinds: string): string[] {
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    log?.warn(
      { patches: failed },
      `field ownership not handed to Git’s applier: a change in Git may not reach these ${kinds}; tried again next pass`,
    );
  return results.filter((r) => r.changed || !r.ok).map((r) => r.message);
}
