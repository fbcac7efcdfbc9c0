/**
 * Patch mode's fields handed to Git (`cluster/field-ownership.ts`). gpuops writes a moved node's
 * pool label itself and commits it; once Argo CD's or Flux's apply owns the same label too, gpuops
 * drops its own ownership, so that a later change or removal in Git is what the Node gets: while
 * gpuops's field manager still owned the label, server-side apply kept it on the Node after Git
 * dropped it (the Node drifted from Git unseen). Runs in both modes: after a switch to
 * pull-request mode the ownership patch mode took would hold the labels just the same.
 */
import type { ClusterPatcher, NodeInfo } from '../cluster/index.js';
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
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    deps.log?.warn(
      { patches: failed },
      'field ownership not handed to Git’s applier: a change in Git may not reach these Nodes; tried again next pass',
    );
  return results.filter((r) => r.changed || !r.ok).map((r) => r.message);
}
