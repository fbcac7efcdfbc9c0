/**
 * The scale subjects of `scaling.mode: patch`. Git is the desired state, also when a write is
 * refused: the change is committed to the base branch FIRST, and only what Git then holds is
 * patched into the cluster (labels of moved nodes, the Deployment's replicas). A refused commit
 * patches nothing, so the cluster never runs what Git does not hold (with Argo CD's self-heal such
 * a patch is reverted and made again every cooldown, starting and killing a GPU pod each time). A
 * permanent refusal (a protected branch, a declining hook; see `write-back/write-refusal.ts`) is
 * remembered and not pushed again before its `retryAt`.
 */
import type { ClusterPatcher, NodeInfo, PatchResult } from '../cluster/index.js';
import { desiredPoolTaint, poolTaintChanges } from '../pools/index.js';
import type { ChangeSet, GitOpsLogger, WriteBackResult } from '../change-sets/index.js';
import {
  writeBack,
  type WriteBackDeps,
  nextRefusals,
  refusalMessage,
  refusalOfResult,
  standingRefusal,
} from '../write-back/index.js';
import type { GitModel } from '../plan/index.js';
import { gitReplicas, type ScalingDecision } from '../scaling/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { GitWriteRefusalRecord, PoolTaintRecord } from '../store/index.js';
import { poolTaintRecordAfter } from './pool-taint-handover.js';

/** What the patch-mode write reads besides write-back's adapters. */
export interface PatchModeInputs {
  /** The scale change sets of the pass. */
  changeSets: readonly ChangeSet[];
  decisions: readonly ScalingDecision[];
  algorithms: readonly ResolvedAlgorithm[];
  git: GitModel;
  policy: Policy;
  /** Permanent refusals as the last pass left them. */
  refusals: readonly GitWriteRefusalRecord[];
}

/** One result per scale change set, the patch lines, and the refusals to store. */
export interface PatchModeResult {
  results: WriteBackResult[];
  patches: string[];
  refusals: GitWriteRefusalRecord[];
}

/**
 * Commits the scale change sets to the base branch, then patches the subjects Git holds
 * (`committed`, `unchanged`, or `would-commit` in dry-run). A refusal that still stands → every
 * subject `stalled`, nothing pushed, nothing patched. A new permanent refusal → `failed` with its
 * reason (`ProtectedBranch`, `PushDeclined`) and a message saying nothing was patched and when it
 * is tried again.
 */
export async function writePatchMode(
  common: Omit<WriteBackDeps, 'mode'>,
  patcher: ClusterPatcher,
  o: PatchModeInputs,
): Promise<PatchModeResult> {
  const base = common.workingCopy.baseBranch;
  const now = common.now();
  const standing = o.changeSets.length > 0 ? standingRefusal(o.refusals, base, now) : null;
  if (standing) {
    const message = `${refusalMessage(standing)} (refused since ${standing.since})`;
    const results = o.changeSets.map((cs): WriteBackResult => ({
      kind: cs.kind,
      subject: cs.subject,
      branch: base,
      action: 'stalled',
      reason: standing.reason,
      message,
      commit: null,
      pullRequest: null,
      files: [],
    }));
    return { results, patches: [], refusals: [...o.refusals] };
  }
  const written = await writeBack(o.changeSets, { ...common, mode: 'patch' });
  const refused = written.map(refusalOfResult).find((r) => r !== null) ?? null;
  const refusals = nextRefusals(
    o.refusals,
    base,
    refused
      ? { kind: 'refused', ...refused }
      : written.some((r) => r.action === 'committed' || r.action === 'unchanged')
        ? { kind: 'written' }
        : { kind: 'none' },
    now,
  );
  const record = refusals.find((r) => r.ref === base);
  const results = written.map((r) =>
    refused && record && r.action === 'failed' && r.reason === refused.reason
      ? { ...r, message: refusalMessage(record) }
      : r,
  );
  if (refused) common.log?.warn({ ref: base, reason: refused.reason }, 'Git write refused permanently');
  const held = new Set(
    results
      .filter((r) => ['committed', 'unchanged', 'would-commit'].includes(r.action))
      .map((r) => r.subject),
  );
  const patches = await patchHeld(patcher, common, {
    ...o,
    changeSets: o.changeSets.filter((cs) => held.has(cs.subject)),
  });
  return { results, patches, refusals };
}

/**
 * Labels the nodes a decision moves with the pool of the Deployment in Git (the pool the decision
 * scaled in; this pass's placement may be pending) and, with engine gpuops, scales the Deployment
 * — for change sets Git already holds. A failed patch is logged; Argo CD or Flux brings the cluster
 * to what Git holds in any case.
 */
async function patchHeld(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  o: Pick<PatchModeInputs, 'changeSets' | 'decisions' | 'algorithms' | 'git' | 'policy'>,
): Promise<string[]> {
  const decisions = new Map(o.decisions.map((d) => [d.algorithm, d]));
  const algorithms = new Map(o.algorithms.map((a) => [a.name, a]));
  const labelKey = o.policy.spec.pools.labelKey;
  const patches: string[] = [];
  for (const cs of o.changeSets) {
    const d = decisions.get(cs.subject);
    const alg = algorithms.get(cs.subject);
    if (!d || !alg) continue; // a scale change set is built from a decision of an algorithm
    const pool = o.git.deployments.get(cs.subject)?.pool ?? null;
    if (deps.dryRun) {
      patches.push(
        `would scale ${alg.namespace}/${alg.name} to ${gitReplicas(d).to}; would label ${d.nodes.join(', ') || 'no node'}`,
      );
      continue;
    }
    const outcome =
      d.nodes.length > 0 && pool
        ? await patcher.labelNodes(d.nodes.map((node) => ({ node, labels: { [labelKey]: pool } })))
        : [];
    // The pool taint follows the label at once (`pools/pool-taint.ts`): the new replica tolerates
    // only its own pool's taint.
    const taint = pool ? desiredPoolTaint({ [labelKey]: pool }, o.policy.spec.pools) : null;
    if (taint && outcome.every((r) => r.ok))
      for (const node of d.nodes) outcome.push(await patcher.setNodeTaint({ node, key: labelKey, taint }));
    if (o.policy.spec.scaling.engine === 'gpuops' && outcome.every((r) => r.ok)) {
      outcome.push(await patcher.scaleDeployment(alg.namespace, alg.name, gitReplicas(d).to));
    }
    // Each result's message already opens with its object (`Deployment ns/name: …`).
    for (const r of outcome) patches.push(r.message);
    if (!outcome.every((r) => r.ok))
      deps.log?.warn(
        { algorithm: cs.subject, patches: outcome.filter((r) => !r.ok) },
        'patch failed after the commit; the GitOps agent applies what Git holds',
      );
  }
  return patches;
}

/**
 * Patch mode: every node's pool taint to what its live pool label says (`poolTaintChanges`), as
 * gpuops's own entry of `spec.taints`, never another's (`ClusterPatcher.setNodeTaint`). The label
 * came from Git (applied by Argo CD or Flux) or from this mode's own patch after the commit, so
 * the taint follows what Git holds. Nothing with `pools.taint.enabled` off and no gpuops taint on
 * any node. A failed write is logged and tried again next pass.
 * @returns one line per change (`would …` in dry-run), and the nodes carrying gpuops's entry
 *   afterwards (`poolTaintRecordAfter`: what pull-request mode takes back after a switch)
 */
export async function patchPoolTaints(
  patcher: ClusterPatcher,
  deps: { dryRun: boolean; log?: GitOpsLogger },
  nodes: readonly NodeInfo[],
  pools: Policy['spec']['pools'],
): Promise<{ lines: string[]; record: PoolTaintRecord | null }> {
  const changes = poolTaintChanges(nodes, pools);
  if (deps.dryRun)
    return {
      lines: changes.map((c) =>
        c.taint
          ? `would taint Node ${c.node} ${c.key}=${c.taint.value}:${c.taint.effect}`
          : `would remove taint ${c.key} of Node ${c.node}`,
      ),
      record: null,
    };
  const results: PatchResult[] = [];
  const written = new Map<string, boolean>();
  for (const c of changes) {
    const r = await patcher.setNodeTaint(c);
    results.push(r);
    if (r.ok) written.set(c.node, c.taint !== null);
  }
  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0) deps.log?.warn({ patches: failed }, 'pool taint not set; tried again next pass');
  return {
    lines: results.map((r) => r.message),
    record: poolTaintRecordAfter(nodes, pools.labelKey, written),
  };
}
