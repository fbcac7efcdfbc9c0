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
 * gpuops's until a change of it in Git, which Argo CD's and Flux's forced apply takes over.
 */
import type { ClusterPatcher, NodeInfo, PatchResult } from '../cluster/index.js';
import type { GitOpsLogger } from '../change-sets/index.js';

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
 * For each Deployment given (the algorithms' Deployments gpuops may read and patch), reads it and
 * hands the fields gpuops's manager shares with Git's applier over
 * (`ClusterPatcher.releaseDeploymentToGit`: its `spec.replicas`, which the scale patch owns). The
 * snapshot holds no Deployment, so each is read once a pass (one GET per algorithm). Lines and
 * warnings as {@link handFieldsToGit}'s; a failed one is tried again next pass. Dry-run reads and
 * writes nothing and returns no line (without the read it cannot know what is shared).
 */
export async function handDeploymentsToGit(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  deployments: readonly { namespace: string; name: string }[],
): Promise<string[]> {
  if (deps.dryRun) return [];
  const results = [];
  for (const d of deployments) results.push(await patcher.releaseDeploymentToGit(d.namespace, d.name));
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
