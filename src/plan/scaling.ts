/**
 * The scaling step (pure): every algorithm with a Deployment in Git is scaled as Git holds it;
 * then the `scale/<name>` change sets (only `spec.replicas` of that Deployment, and the
 * manifests of `unused` nodes moved into its pool).
 */
import type {
  LoopTiming,
  DecisionRecord,
  HpaState,
  ScalingDecision,
  ScalingLookups,
} from '../scaling/index.js';
import type { NodeInfo, Snapshot } from '../cluster/index.js';
import type { ChangeSetInput, FileChange } from '../change-sets/index.js';
import {
  renderNodeFiles,
  setDeploymentReplicas,
  renderDeployment,
  renderYaml,
  type RenderCache,
} from '../manifests/index.js';
import type { WorkloadTemplates } from '../manifests/index.js';
import type { UtilizationReading } from '../metrics/index.js';
import type { AlgorithmProducts, Placement } from '../placement/index.js';
import type { PoolAssignment } from '../pools/index.js';
import {
  placementPending,
  claimedByAlgorithm,
  decideScaling,
  gitReplicas,
  planStandby,
  type StandbyAction,
  type AlgorithmState,
  type DecideScalingResult,
  effectiveGpus,
  templateRequest,
} from '../scaling/index.js';
import type { Policy, ResolvedAlgorithm } from '../definitions/index.js';
import type { GitDeployment, GitModel } from './git-model.js';
import { podConstraintsOf } from '../cluster/scheduling/pod-constraints.js';
import { byString } from '../util/index.js';

/** Inputs of {@link planScaling}. */
export interface ScalingPlanInput {
  algorithms: readonly ResolvedAlgorithm[];
  placements: readonly Placement[];
  git: Pick<GitModel, 'deployments'>;
  /** The snapshot with Git's pools (`planPools`). */
  snapshot: Snapshot;
  reading: UtilizationReading;
  recent: readonly DecisionRecord[];
  /** With `scaling.engine: hpa`: each algorithm's HPA status as the cluster reports it. */
  hpa?: ReadonlyMap<string, HpaState>;
  policy: Policy;
  now: Date;
  /** The GPU products of each algorithm (`algorithmProducts`: named, else benchmarked on). */
  products?: ReadonlyMap<string, AlgorithmProducts>;
  /** How the scaling step builds its indexes and decides (`decideScaling`); default the plain ones. */
  lookups?: ScalingLookups;
  /** `gpuops run`'s loop delays: the windows follow them (`scaling/loop-windows.ts`); absent: the policy's. */
  loop?: LoopTiming;
  /** What one replica of a Deployment in Git is; default {@link replicaPod} (a reconciler's keeps it per Deployment). */
  replicaPods?: (alg: ResolvedAlgorithm, git: GitDeployment) => ReplicaPod;
}

/** Result of {@link planScaling}. */
export interface ScalingPlan {
  /** The state each Deployment in Git was judged in, by algorithm name. */
  states: Map<string, AlgorithmState>;
  /** One decision per algorithm with a Deployment in Git or a pool, sorted by name. */
  decisions: ScalingDecision[];
  /** The scaling pass itself (its decisions in pass order, attribution, samples, metrics report). */
  pass: DecideScalingResult;
  /** The claims and give-backs of standby pods the decisions ask for (`planStandby`); `[]` without standby sets. */
  standby: StandbyAction[];
}

/**
 * Decides scaling for every algorithm whose Deployment is in Git, from the replicas Git holds
 * (else the HPA's current count, else `minReplicas`) plus the standby pods gpuops claimed for it
 * (`claimedByAlgorithm`; none while Git holds 0, a pause), and the pool of its nodeSelector; then
 * the part standby pods take of each decision (`planStandby`, the policy's standby sets). Its GPU
 * products are those of the Deployment's required node affinity in Git (its pods run only there:
 * only those nodes count as room, only those move in), else the algorithm's own (`products`:
 * named or benchmarked on), preferred when nodes move in. An
 * algorithm placed on a pool with no Deployment in Git yet gets `hold PlacementPending`.
 */
export function planScaling(input: ScalingPlanInput): ScalingPlan {
  const pools = new Map(input.placements.map((p) => [p.algorithm, p.pool]));
  const sets = input.policy.spec.standby ?? [];
  const claimed = claimedByAlgorithm(sets, input.snapshot);
  const states = new Map<string, AlgorithmState>();
  const pending: ScalingDecision[] = [];
  for (const alg of input.algorithms) {
    const git = input.git.deployments.get(alg.name);
    if (!git) {
      const pool = pools.get(alg.name) ?? null;
      if (pool) pending.push(placementPending(alg, pool));
      continue;
    }
    const hpa = input.hpa?.get(alg.name) ?? null;
    // Where its pods may run is what the Deployment in Git says (its required node affinity);
    // without one, the algorithm's products are a preference for node moves only.
    const known = input.products?.get(alg.name)?.products ?? [];
    const products =
      git.products.length > 0
        ? { products: git.products, required: true }
        : known.length > 0
          ? { products: known, required: false }
          : null;
    const replicas = git.replicas ?? hpa?.currentReplicas ?? alg.scaling.minReplicas;
    // Replicas 0 in Git is a pause a person made: claimed pods do not resume it.
    const mine = replicas > 0 ? claimed.get(alg.name) : undefined;
    states.set(alg.name, {
      algorithm: alg,
      pool: git.pool,
      replicas,
      ...(mine ? { claimed: mine } : {}),
      hpa,
      ...(products ? { products } : {}),
      ...(input.replicaPods ?? replicaPod)(alg, git),
    });
  }
  const decided = decideScaling({
    algorithms: [...states.values()],
    snapshot: input.snapshot,
    reading: input.reading,
    recent: [...input.recent],
    policy: input.policy,
    now: input.now,
    ...(input.lookups ? { lookups: input.lookups } : {}),
    ...(input.loop ? { loop: input.loop } : {}),
  });
  const counted = new Map([...states].map(([name, s]) => [name, s.claimed ?? []]));
  const standby =
    sets.length === 0
      ? { decisions: decided.decisions, actions: [] }
      : planStandby(decided.decisions, sets, input.snapshot, counted);
  const pass = { ...decided, decisions: standby.decisions };
  const decisions = [...pending, ...pass.decisions].sort((a, b) => byString(a.algorithm, b.algorithm));
  return { states, decisions, pass, standby: standby.actions };
}

/** What one replica of a Deployment is ({@link replicaPod}). */
export type ReplicaPod = Pick<AlgorithmState, 'pod' | 'request'>;

/**
 * What one replica is, from the Deployment's pod template in Git (the pods the scale-up makes):
 * its constraints for kube-scheduler's filters, and its effective requests when the template
 * requests GPUs (one gpuops rendered; otherwise the spec's `resources` stand in).
 */
export function replicaPod(alg: ResolvedAlgorithm, git: GitDeployment): ReplicaPod {
  if (!git.template) return {};
  const pod = podConstraintsOf(alg.namespace, git.template.labels, git.template.spec);
  const request = templateRequest(git.template.spec);
  const gpus = request !== null && effectiveGpus(git.template.spec) > 0;
  return { pod, ...(gpus ? { request: request! } : {}) };
}

/** Inputs of {@link scaleChanges}. */
export interface ScaleChangesInput {
  step: ScalingPlan;
  git: Pick<GitModel, 'cluster' | 'files' | 'deployments'>;
  /** This pass's pool assignments and the nodes they were made on (`planPools`). */
  pools: readonly PoolAssignment[];
  nodes: NodeInfo[];
  policy: Policy;
  templates: WorkloadTemplates;
  now: Date;
  /**
   * A reconciler's memo of rendered files (`PlanLookups.rendered`): a scale change set is built
   * again every pass while its pull request is open, and its Deployment's edit parses the file.
   */
  renderCache?: RenderCache;
}

/**
 * One `scale/<name>` change-set input per decision that changes something on a task pool, in
 * the scaling pass's order. Engine gpuops: the Deployment as Git holds it with only
 * `spec.replicas` changed, to the Deployment's part of the decision (`gitReplicas`: claimed standby
 * pods carry the rest, so a scale-up that only claims changes no file) (a hand-written flow map that cannot be edited in place is rendered
 * whole), so a pending placement pull request never freezes scaling and both merge cleanly.
 * Engine hpa: the HPA owns replicas; only moved nodes are written.
 */
export function scaleChanges(input: ScaleChangesInput): ChangeSetInput[] {
  const { step, git, policy } = input;
  const cluster = git.cluster;
  const out: ChangeSetInput[] = [];
  for (const d of step.pass.decisions) {
    const state = step.states.get(d.algorithm)!;
    const pool = state.pool;
    if (d.action === 'hold' || (pool !== 'long-task' && pool !== 'short-task')) continue;
    const alg = state.algorithm;
    const files: FileChange[] = [];
    const deployment = git.deployments.get(alg.name)!;
    // Claimed standby pods carry part of the decision: Git holds the Deployment's own part.
    const inGit = gitReplicas(d);
    if (policy.spec.scaling.engine !== 'hpa' && inGit.to !== inGit.from) {
      files.push({
        path: deployment.path,
        content: withReplicas(deployment.text, inGit.to, input.renderCache, () => ({
          algorithm: alg,
          pool,
          policy: policy.spec,
          cluster,
          templates: input.templates,
          replicas: inGit.to,
          gpuProducts: deployment.products,
        })),
      });
    }
    if (d.nodes.length > 0) {
      const moved = input.pools
        .filter((a) => d.nodes.includes(a.node))
        .map((a) => ({ ...a, from: a.to, to: pool, reason: 'MovedForScaleUp' as const }));
      const at = input.now.toISOString();
      files.push(
        ...renderNodeFiles({
          cluster,
          assignments: moved,
          nodes: input.nodes,
          policy: policy.spec,
          moved: new Map(d.nodes.map((n) => [n, at])),
        }),
      );
    }
    const evidence = (step.pass.attribution.byAlgorithm.get(d.algorithm)?.samples ?? []).filter(
      (x) => x.namespace === alg.namespace,
    );
    out.push({
      cluster,
      kind: 'scale',
      subject: d.algorithm,
      files,
      current: git.files,
      labels: policy.spec.pullRequests.labels,
      scaling: [
        {
          decision: d,
          pods: evidence,
          min: alg.scaling.utilization.min,
          max: alg.scaling.utilization.max,
          minReplicas: alg.scaling.minReplicas,
          maxReplicas: alg.scaling.maxReplicas,
        },
      ],
    });
  }
  return out;
}

/**
 * The Deployment text with `spec.replicas` set; when it is not a plain block-style Deployment
 * (a hand-written flow map), the Deployment rendered whole from `render()` instead (only the
 * Deployment, not the algorithm's other files). With `cache`, an edit made before (the same text
 * and count: `setDeploymentReplicas` reads nothing else) is not made again.
 */
function withReplicas(
  text: string,
  replicas: number,
  cache: RenderCache | undefined,
  render: () => Parameters<typeof renderDeployment>[0],
): string {
  // Starts with NUL: never the sorted JSON key of a rendered document (`RenderCache`).
  const key = `\0replicas\0${replicas}\0${text}`;
  const hit = cache?.get(key);
  if (hit !== undefined) return hit;
  try {
    const edited = setDeploymentReplicas(text, replicas);
    cache?.set(key, edited);
    return edited;
  } catch {
    return renderYaml(renderDeployment(render()));
  }
}
