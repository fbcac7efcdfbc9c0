/**
 * The pools subject's change set (pure): nodes gpuops moved that stayed empty go back to
 * `unused` (`ReturnedIdle`), then every node manifest, the Namespaces the algorithms need, each
 * task pool's pre-pull DaemonSet (policy `pools.prePull`), and the deletion of the old layout's
 * kustomization files.
 */
import type { NodeInfo } from '../cluster/index.js';
import type { ChangeSetInput, FileChange } from '../change-sets/index.js';
import {
  isKustomizationFile,
  legacyKustomizationDeletions,
  DEFAULT_SERVICE_ACCOUNT,
  renderNamespaceFiles,
  nodeFilePath,
  nodesDir,
  renderNodeFiles,
  prePullFiles,
} from '../manifests/index.js';
import { returnIdleNodes } from '../pools/index.js';
import type { PoolAssignment } from '../pools/index.js';
import type { AlgorithmState, ScalingDecision } from '../scaling/index.js';
import type { Policy, Pool, ResolvedAlgorithm } from '../definitions/index.js';
import type { GitModel } from './git-model.js';
import type { RenderCache } from '../manifests/index.js';

/** Inputs of {@link returnIdlePools}. */
export interface ReturnIdleInput {
  pools: PoolAssignment[];
  nodes: readonly NodeInfo[];
  git: Pick<GitModel, 'movedNodes'>;
  /** This pass's scaling decisions and the states they were judged in (`planScaling`). */
  decisions: readonly ScalingDecision[];
  states: ReadonlyMap<string, AlgorithmState>;
  /** Since when each node has held no GPU pod (ISO-8601); without it no node returns. */
  emptySince?: ReadonlyMap<string, string>;
  /** Why this pass's metrics may lack series (`MetricsReport.partial`): then no node returns. */
  partialData?: string | null;
  policy: Policy;
  now: Date;
}

/**
 * What each task pool's pods need (replicas after this pass's decisions × GPUs per replica, in
 * GPUs) and which pools scale up now, then `returnIdleNodes`: a node returns only when no
 * scale-up of this pass counts on it.
 */
export function returnIdlePools(input: ReturnIdleInput): PoolAssignment[] {
  const demandGpus: Partial<Record<Pool, number>> = {};
  const scalingUp = new Set<Pool>();
  for (const d of input.decisions) {
    const state = input.states.get(d.algorithm);
    if (!state?.pool) continue;
    const replicas = Math.max(d.replicas.from, d.replicas.to);
    demandGpus[state.pool] = (demandGpus[state.pool] ?? 0) + replicas * state.algorithm.spec.resources.gpus;
    if (d.action === 'scale-up' || d.action === 'relabel') scalingUp.add(state.pool);
  }
  return returnIdleNodes({
    assignments: input.pools,
    nodes: input.nodes,
    moved: input.git.movedNodes,
    emptySince: input.emptySince ?? new Map(),
    demandGpus,
    scalingUp,
    returnAfterSeconds: input.policy.spec.pools.returnAfterSeconds,
    partialData: input.partialData ?? null,
    now: input.now,
  });
}

/** Inputs of {@link poolChanges}. */
export interface PoolChangesInput {
  pools: PoolAssignment[];
  nodes: NodeInfo[];
  algorithms: readonly ResolvedAlgorithm[];
  git: Pick<GitModel, 'cluster' | 'files' | 'movedNodes' | 'deployments'>;
  policy: Policy;
  /** Node manifests rendered before (`PlanLookups.rendered`); absent: render every one. */
  renderCache?: RenderCache;
  /**
   * Nodes a scale change set of this pass moves into its pool: their manifests are that change
   * set's alone (no two change sets of a pass write one path), so they are left out here.
   */
  movedByScaling?: ReadonlySet<string>;
}

/**
 * The `pools` change-set input: a manifest per node with a pool (nodes gpuops moved keep their
 * annotations), the deletion of node manifests no node needs any more, one Namespace file per
 * algorithm namespace, the pre-pull DaemonSets (`prePullFiles`: each task pool pulls the images
 * of the algorithms whose Deployment in Git selects it, so what it pulls follows merged
 * placements, never a placement still under review), and once the old layout's kustomization files.
 */
export function poolChanges(input: PoolChangesInput): ChangeSetInput {
  const { git, policy } = input;
  const cluster = git.cluster;
  const moved = input.movedByScaling ?? new Set<string>();
  const files: FileChange[] = renderNodeFiles({
    cluster,
    assignments: moved.size === 0 ? input.pools : input.pools.filter((a) => !moved.has(a.node)),
    nodes: input.nodes,
    policy: policy.spec,
    moved: git.movedNodes,
    renderCache: input.renderCache,
  });
  const rendered = new Set([...files.map((f) => f.path), ...[...moved].map((n) => nodeFilePath(cluster, n))]);
  for (const path of git.files.keys()) {
    if (path.startsWith(`${nodesDir(cluster)}/`) && !rendered.has(path) && !isKustomizationFile(path))
      files.push({ path, content: null });
  }
  const prePull = prePullFiles(cluster, placedOnPools(input.algorithms, git), policy.spec, git.files);
  // The pre-pull DaemonSets live in the policy's namespace, which may hold no algorithm itself.
  const prePullNamespace = prePull.some((f) => f.content !== null) ? [policy.spec.namespace] : [];
  files.push(
    ...renderNamespaceFiles(
      cluster,
      [...input.algorithms.map((a) => a.namespace), ...prePullNamespace],
      { ...DEFAULT_SERVICE_ACCOUNT, namespace: policy.spec.controllerNamespace },
      {
        scale: policy.spec.scaling.mode === 'patch',
        claimNamespaces: new Set((policy.spec.standby ?? []).map((x) => x.namespace)),
      },
      git.files,
    ),
    ...prePull,
    ...legacyKustomizationDeletions(cluster, git.files.keys()),
  );
  return {
    cluster,
    kind: 'pools',
    subject: 'pools',
    files,
    current: git.files,
    pools: input.pools,
    labels: policy.spec.pullRequests.labels,
  };
}

/** The algorithms whose Deployment in Git selects each pool (`GitDeployment.pool`). */
function placedOnPools(
  algorithms: readonly ResolvedAlgorithm[],
  git: Pick<GitModel, 'deployments'>,
): Map<Pool, ResolvedAlgorithm[]> {
  const out = new Map<Pool, ResolvedAlgorithm[]>();
  for (const a of algorithms) {
    const pool = git.deployments.get(a.name)?.pool;
    if (pool) out.set(pool, [...(out.get(pool) ?? []), a]);
  }
  return out;
}
