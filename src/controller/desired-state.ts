/**
 * The whole decision of one pass, as data: repo + snapshot + what Git holds + benchmark outcomes +
 * one utilisation reading → the plan of DESIGN.md and one change set per subject (node pools;
 * placement per algorithm; scaling per algorithm). Pure: no clock, disk or network; `gpuops plan`
 * and the reconcile pass both call it, so what `plan` prints is what `reconcile` writes.
 */
import { parse } from 'yaml';
import type { NodeInfo, Snapshot } from '../cluster/types.js';
import { buildChangeSet, planFiles, type ChangeSetInput } from '../gitops/change-set.js';
import type { ChangeSet, FileChange, PlannedFile } from '../gitops/types.js';
import { movedNodes, nodeFilePath, nodesDir, kustomization, renderNodeFiles } from '../manifests/nodes.js';
import type { WorkloadTemplates } from '../manifests/templates.js';
import {
  renderWorkloadFiles,
  workloadDeletions,
  workloadDir,
  type WorkloadInput,
} from '../manifests/workloads.js';
import { renderYaml } from '../manifests/yaml.js';
import type { UtilizationReading } from '../metrics/types.js';
import { place } from '../placement/place.js';
import type { BenchmarkOutcome, Placement } from '../placement/types.js';
import { assignPools } from '../pools/assign.js';
import { returnIdleNodes } from '../pools/return-idle.js';
import type { PoolAssignment } from '../pools/types.js';
import { planScaling, type AlgorithmState } from '../scaling/plan-scaling.js';
import type { AlgorithmSample, DecisionRecord, HpaState, ScalingDecision } from '../scaling/types.js';
import type { BenchmarkRun } from '../store/types.js';
import { POOLS, type LoadedRepo, type Pool, type ResolvedAlgorithm, type SpecError } from '../spec/types.js';

/** `gpuops plan --output json` (DESIGN.md "Command-line contract"); fields may be added, these stay. */
export interface PlanOutput {
  cluster: string;
  errors: SpecError[];
  pools: PoolAssignment[];
  placements: Placement[];
  scaling: ScalingDecision[];
  files: PlannedFile[];
  /** Snapshot problems (objects that could not be read in full); absent when none. */
  warnings?: string[];
}

/** Everything one pass decides on. */
export interface DesiredStateInput {
  cluster: string;
  repo: Pick<LoadedRepo, 'policy' | 'errors' | 'algorithms'>;
  /** The cluster as observed. */
  snapshot: Snapshot;
  /** Files under `clusters/<cluster>/` at the base branch head: repo-relative path → content. */
  base: ReadonlyMap<string, string>;
  /** Benchmark outcome at each algorithm's current spec hash; absent = not benchmarked. */
  benchmarks: ReadonlyMap<string, BenchmarkOutcome>;
  /** The pass's one utilisation reading (no data is `{ ok: false }`, never 0 %). */
  reading: UtilizationReading;
  /** Benchmark runs behind each algorithm's outcome, for the placement PR's evidence. */
  benchmarkRuns?: ReadonlyMap<
    string,
    readonly Pick<BenchmarkRun, 'run' | 'status' | 'durationSeconds' | 'node'>[]
  >;
  /** Recorded scaling decisions since `historySince(policy, now)`. */
  recent: readonly DecisionRecord[];
  templates: WorkloadTemplates;
  /** With `scaling.engine: hpa`: each algorithm's HorizontalPodAutoscaler status as the cluster reports it. */
  hpa?: ReadonlyMap<string, HpaState>;
  /**
   * Since when each node has held no GPU pod, from the stored snapshots (ISO-8601; see
   * `Store.nodesEmptySince`). Without it no node goes back to `unused` (`ReturnedIdle`).
   */
  emptySince?: ReadonlyMap<string, string>;
  /** Test nodes that run a benchmark now (never released from the test pool). */
  runningBenchmarks?: readonly string[];
  /**
   * Algorithms whose spec is in `algorithms/` but fails validation (by `metadata.name`). What Git
   * holds for them stays as it is: a broken edit never proposes deleting a running workload.
   */
  invalidAlgorithms?: readonly string[];
  now: Date;
}

/** The result of {@link planDesiredState}. */
export interface DesiredState {
  output: PlanOutput;
  /** One per subject whose files differ from the base branch, in the order pools, placement, scale. */
  changeSets: ChangeSet[];
  /** Per-pod samples the scaling step counted (to store). */
  samples: AlgorithmSample[];
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Pools as Git says them: the pool label of each `clusters/<cluster>/nodes/<node>.yaml`. Git is
 * the desired state: a relabel merged but not yet applied by Argo CD must not be proposed back.
 */
export function gitNodePools(
  cluster: string,
  base: ReadonlyMap<string, string>,
  labelKey: string,
): Map<string, Pool | null> {
  const prefix = `${nodesDir(cluster)}/`;
  const out = new Map<string, Pool | null>();
  for (const [path, text] of base) {
    if (!path.startsWith(prefix) || path.endsWith('/kustomization.yaml')) continue;
    const doc = parseOrNull(text) as { metadata?: { name?: string; labels?: Record<string, string> } } | null;
    const name = doc?.metadata?.name;
    if (!name) continue;
    const value = doc?.metadata?.labels?.[labelKey];
    out.set(
      name,
      value !== undefined && (POOLS as readonly string[]).includes(value) ? (value as Pool) : null,
    );
  }
  return out;
}

/** Nodes gpuops moved into a task pool, by the annotations of their manifests in Git: node → moved-at. */
export function gitMovedNodes(cluster: string, base: ReadonlyMap<string, string>): Map<string, string> {
  const prefix = `${nodesDir(cluster)}/`;
  const metas: { name?: string; annotations?: Record<string, string> }[] = [];
  for (const [path, text] of base) {
    if (!path.startsWith(prefix) || path.endsWith('/kustomization.yaml')) continue;
    const doc = parseOrNull(text) as {
      metadata?: { name?: string; annotations?: Record<string, string> };
    } | null;
    if (doc?.metadata) metas.push(doc.metadata);
  }
  return movedNodes(metas);
}

/** What the base branch holds of one algorithm's Deployment: replicas and the pool of its nodeSelector. */
export function gitDeployment(
  cluster: string,
  name: string,
  base: ReadonlyMap<string, string>,
  labelKey: string,
): { replicas: number | null; pool: Pool | null } | null {
  const text = base.get(`${workloadDir(cluster, name)}/deployment.yaml`);
  if (text === undefined) return null;
  const doc = parseOrNull(text) as {
    spec?: { replicas?: unknown; template?: { spec?: { nodeSelector?: Record<string, string> } } };
  } | null;
  const replicas = typeof doc?.spec?.replicas === 'number' ? doc.spec.replicas : null;
  const selected = doc?.spec?.template?.spec?.nodeSelector?.[labelKey];
  const pool =
    selected !== undefined && (POOLS as readonly string[]).includes(selected) ? (selected as Pool) : null;
  return { replicas, pool };
}

/**
 * Parsed files by their text. Git's generated files rarely change between passes and the `yaml`
 * parser costs about 1 ms per Deployment, so a 1,000-algorithm pass parsed for seconds; identical
 * text is parsed once. Bounded: the oldest entries go first past {@link PARSE_CACHE_SIZE}. Callers
 * only read the result.
 */
const parseCache = new Map<string, unknown>();
const PARSE_CACHE_SIZE = 20_000;

function parseOrNull(text: string): unknown {
  if (parseCache.has(text)) return parseCache.get(text);
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    doc = null;
  }
  if (parseCache.size >= PARSE_CACHE_SIZE) parseCache.delete(parseCache.keys().next().value as string);
  parseCache.set(text, doc);
  return doc;
}

/**
 * Rendered workload files by algorithm object, the last two renders each (a pass renders an
 * algorithm for its placement and, when it scales, again with the new replica count). The specs
 * of an unchanged repo are the same objects pass after pass (the controller keeps the last parse),
 * so 1,000 unchanged algorithms are not rendered again; any other input that differs (pool,
 * replicas, policy, templates, cluster) renders anew. Callers only read the files.
 */
const renderedWorkloads = new WeakMap<ResolvedAlgorithm, { input: WorkloadInput; files: FileChange[] }[]>();

function workloadFiles(input: WorkloadInput): FileChange[] {
  const seen = renderedWorkloads.get(input.algorithm) ?? [];
  const hit = seen.find(
    ({ input: x }) =>
      x.pool === input.pool &&
      x.replicas === input.replicas &&
      x.policy === input.policy &&
      x.templates === input.templates &&
      x.cluster === input.cluster,
  );
  if (hit) return [...hit.files];
  const files = renderWorkloadFiles(input);
  renderedWorkloads.set(input.algorithm, [{ input, files }, ...seen].slice(0, 2));
  return [...files];
}

/**
 * The root `clusters/<cluster>/kustomization.yaml` for a given set of files: it lists `nodes`
 * only when `nodes/kustomization.yaml` exists and every `algorithms/<name>` folder that has a
 * kustomization, so a merged pull request never leaves Argo CD a folder that is not there.
 */
export function rootKustomization(cluster: string, files: ReadonlyMap<string, string | null>): FileChange {
  const root = `clusters/${cluster}`;
  const resources: string[] = [];
  if (files.get(`${root}/nodes/kustomization.yaml`)) resources.push('nodes');
  const algs: string[] = [];
  const re = /^algorithms\/([^/]+)\/kustomization\.yaml$/;
  for (const [path, content] of files) {
    if (!path.startsWith(`${root}/`) || content === null) continue;
    const m = re.exec(path.slice(root.length + 1));
    if (m) algs.push(m[1]!);
  }
  resources.push(...[...new Set(algs)].sort(byString).map((n) => `algorithms/${n}`));
  return { path: `${root}/kustomization.yaml`, content: renderYaml(kustomization(resources)) };
}

/** `base` with `changes` applied (content `null` deletes). */
function overlay(
  base: ReadonlyMap<string, string>,
  changes: readonly FileChange[],
): Map<string, string | null> {
  const out = new Map<string, string | null>(base);
  for (const c of changes) out.set(c.path, c.content);
  return out;
}

/**
 * Adds the root kustomization to a subject's files when the subject's own change alters what it
 * lists (an algorithm folder appears or goes). The pools subject also repairs a root that drifted
 * from the folders in Git (two placement PRs merged one after the other). So the root is never
 * in every pull request at once.
 */
function withRoot(
  cluster: string,
  base: ReadonlyMap<string, string>,
  files: FileChange[],
  repair: boolean,
): FileChange[] {
  // The root only lists `nodes` and the algorithm folders that have a kustomization: when no file
  // of the subject makes one appear or go, the root after the change is the base's root (computed
  // once per pass, not once per subject over the whole tree).
  const after = listsChange(cluster, base, files)
    ? rootKustomization(cluster, overlay(base, files))
    : baseRoot(cluster, base);
  const before = repair ? base.get(after.path) : baseRoot(cluster, base).content;
  return before === after.content ? files : [...files, after];
}

/** The root kustomization of the base branch's files, once per `base` map. */
const baseRoots = new WeakMap<ReadonlyMap<string, string>, Map<string, FileChange>>();
function baseRoot(cluster: string, base: ReadonlyMap<string, string>): FileChange {
  let byCluster = baseRoots.get(base);
  if (!byCluster) baseRoots.set(base, (byCluster = new Map()));
  let root = byCluster.get(cluster);
  if (!root) byCluster.set(cluster, (root = rootKustomization(cluster, base)));
  return root;
}

/** Whether `files` make `nodes/kustomization.yaml` or an `algorithms/<name>/kustomization.yaml` appear or go. */
function listsChange(
  cluster: string,
  base: ReadonlyMap<string, string>,
  files: readonly FileChange[],
): boolean {
  const root = `clusters/${cluster}/`;
  const algorithm = /^algorithms\/[^/]+\/kustomization\.yaml$/;
  return files.some((f) => {
    if (!f.path.startsWith(root)) return false;
    const rel = f.path.slice(root.length);
    const before = base.get(f.path);
    if (rel === 'nodes/kustomization.yaml') return Boolean(before) !== Boolean(f.content);
    if (algorithm.test(rel)) return (before !== undefined) !== (f.content !== null);
    return false;
  });
}

/**
 * Plans one pass (pure, deterministic). Subjects and their files:
 * - `pools`: every node manifest and `nodes/kustomization.yaml` (and the root kustomization while
 *   it does not list `nodes` yet);
 * - `placement/<name>`: the algorithm's Deployment (with the replica count Git holds), HPA and
 *   kustomization, or their deletion when the algorithm left `algorithms/`;
 * - `scale/<name>`: the Deployment with the new replica count and the manifests of `unused` nodes
 *   moved into its pool. An algorithm whose placement change is still open is not scaled.
 */
export function planDesiredState(input: DesiredStateInput): DesiredState {
  const { cluster, repo, base, now } = input;
  const policy = repo.policy;
  const labelKey = policy.spec.pools.labelKey;
  const labels = policy.spec.pullRequests.labels;

  // 1. Pools, from the cluster as Git wants it labelled.
  const gitPools = gitNodePools(cluster, base, labelKey);
  const nodes: NodeInfo[] = input.snapshot.nodes.map((n) =>
    gitPools.has(n.name) ? { ...n, pool: gitPools.get(n.name)! } : n,
  );
  const snapshot: Snapshot = { ...input.snapshot, nodes };
  let pools = assignPools(snapshot, policy, { runningBenchmarks: [...(input.runningBenchmarks ?? [])] });
  const moved = gitMovedNodes(cluster, base);
  // The pools change set is built after scaling (step 4 below): a node returns only when no
  // scale-up of this pass counts on it.
  const inputs: ChangeSetInput[] = [];

  // 2. Placement.
  const placements: Placement[] = repo.algorithms.map((alg) =>
    place(
      { algorithm: alg.name, pinned: alg.placement, benchmark: input.benchmarks.get(alg.name) ?? null },
      policy.spec.placement.longTaskThresholdSeconds,
    ),
  );
  const placementOf = new Map(placements.map((p) => [p.algorithm, p]));
  const placementChanged = new Set<string>();
  const algorithmFiles: FileChange[] = [];
  for (const alg of repo.algorithms) {
    const p = placementOf.get(alg.name)!;
    if (!p.pool) continue;
    const git = gitDeployment(cluster, alg.name, base, labelKey);
    const files = workloadFiles({
      algorithm: alg,
      pool: p.pool,
      policy: policy.spec,
      cluster,
      templates: input.templates,
      replicas: git?.replicas ?? undefined,
    });
    algorithmFiles.push(...files);
  }
  const deletions = workloadDeletions({
    cluster,
    algorithmsInGit: [...repo.algorithms.map((a) => a.name), ...(input.invalidAlgorithms ?? [])],
    present: [...base.keys()],
    rendered: algorithmFiles,
  });
  const bySubject = new Map<string, FileChange[]>();
  for (const f of [...algorithmFiles, ...deletions]) {
    const name = f.path.slice(`clusters/${cluster}/algorithms/`.length).split('/')[0]!;
    const list = bySubject.get(name) ?? [];
    list.push(f);
    bySubject.set(name, list);
  }
  for (const [name, files] of [...bySubject].sort(([a], [b]) => byString(a, b))) {
    const p = placementOf.get(name);
    const input1: ChangeSetInput = {
      cluster,
      kind: 'placement',
      subject: name,
      files: withRoot(cluster, base, files, false),
      current: base,
      labels,
      ...(p
        ? {
            placements: [
              {
                placement: p,
                runs: [...(input.benchmarkRuns?.get(name) ?? [])],
                longTaskThresholdSeconds: policy.spec.placement.longTaskThresholdSeconds,
              },
            ],
          }
        : {}),
    };
    if (planFiles(input1.files, base).length > 0) placementChanged.add(name);
    inputs.push(input1);
  }

  // 3. Scaling: every algorithm with a Deployment in Git.
  const states: AlgorithmState[] = [];
  for (const alg of repo.algorithms) {
    const git = gitDeployment(cluster, alg.name, base, labelKey);
    if (!git) continue;
    states.push({
      algorithm: alg,
      pool: git.pool,
      replicas: git.replicas ?? input.hpa?.get(alg.name)?.currentReplicas ?? alg.scaling.minReplicas,
      hpa: input.hpa?.get(alg.name) ?? null,
    });
  }
  const scalingPass = planScaling({
    algorithms: states,
    snapshot,
    reading: input.reading,
    recent: [...input.recent],
    policy,
    now,
  });
  const algByName = new Map<string, ResolvedAlgorithm>(repo.algorithms.map((a) => [a.name, a]));
  const scaling: ScalingDecision[] = [];
  const stateByName = new Map(states.map((s) => [s.algorithm.name, s]));
  for (const d of scalingPass.decisions) {
    const alg = algByName.get(d.algorithm)!;
    const state = stateByName.get(d.algorithm)!;
    if (d.action === 'hold' || !state.pool || (state.pool !== 'long-task' && state.pool !== 'short-task')) {
      scaling.push(d);
      continue;
    }
    if (placementChanged.has(d.algorithm)) {
      scaling.push({
        ...d,
        action: 'hold',
        replicas: { from: d.replicas.from, to: d.replicas.from },
        nodes: [],
        message: `${d.message}; waits until the placement pull request of ${d.algorithm} is merged`,
      });
      continue;
    }
    scaling.push(d);
    const files: FileChange[] = workloadFiles({
      algorithm: alg,
      pool: state.pool,
      policy: policy.spec,
      cluster,
      templates: input.templates,
      replicas: policy.spec.scaling.engine === 'hpa' ? undefined : d.replicas.to,
    }).filter((f) => f.path.endsWith('/deployment.yaml'));
    if (d.nodes.length > 0) {
      const moved = pools
        .filter((a) => d.nodes.includes(a.node))
        .map((a) => ({ ...a, from: a.to, to: state.pool as Pool, reason: 'MovedForScaleUp' as const }));
      const movedFiles = renderNodeFiles({
        cluster,
        assignments: moved,
        nodes,
        policy: policy.spec,
        moved: new Map(d.nodes.map((n) => [n, now.toISOString()])),
      });
      files.push(...movedFiles.filter((f) => d.nodes.some((n) => f.path === nodeFilePath(cluster, n))));
    }
    const evidence = (scalingPass.attribution.byAlgorithm.get(d.algorithm)?.samples ?? []).filter(
      (x) => x.namespace === alg.namespace,
    );
    inputs.push({
      cluster,
      kind: 'scale',
      subject: d.algorithm,
      files,
      current: base,
      labels,
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

  // 4. Pools shrink: nodes gpuops moved that stayed empty go back to unused; then the pools change set.
  pools = returnIdlePools(pools, nodes, moved, scaling, stateByName, algByName, input);
  const nodeFiles: FileChange[] = renderNodeFiles({
    cluster,
    assignments: pools,
    nodes,
    policy: policy.spec,
    moved,
  });
  const rendered = new Set(nodeFiles.map((f) => f.path));
  for (const path of base.keys()) {
    if (path.startsWith(`${nodesDir(cluster)}/`) && !rendered.has(path))
      nodeFiles.push({ path, content: null });
  }
  inputs.unshift({
    cluster,
    kind: 'pools',
    subject: 'pools',
    files: withRoot(cluster, base, nodeFiles, true),
    current: base,
    pools,
    labels,
  });

  const changeSets = inputs.map(buildChangeSet).filter((c): c is ChangeSet => c !== null);
  const planned = new Map<string, PlannedFile>();
  for (const cs of changeSets) for (const f of planFiles(cs.files, base)) planned.set(f.path, f);
  const output: PlanOutput = {
    cluster,
    errors: repo.errors,
    pools,
    placements,
    scaling,
    files: [...planned.values()].sort((a, b) => byString(a.path, b.path)),
  };
  if (input.snapshot.warnings && input.snapshot.warnings.length > 0)
    output.warnings = input.snapshot.warnings;
  return { output, changeSets, samples: scalingPass.samples };
}

/**
 * The `ReturnedIdle` step of {@link planDesiredState}: what each task pool's pods need (replicas
 * after this pass's decisions × GPUs per replica) and which pools scale up now, then
 * `returnIdleNodes`.
 */
function returnIdlePools(
  pools: PoolAssignment[],
  nodes: readonly NodeInfo[],
  moved: ReadonlyMap<string, string>,
  scaling: readonly ScalingDecision[],
  states: ReadonlyMap<string, AlgorithmState>,
  algorithms: ReadonlyMap<string, ResolvedAlgorithm>,
  input: DesiredStateInput,
): PoolAssignment[] {
  const demandGpus: Partial<Record<Pool, number>> = {};
  const scalingUp = new Set<Pool>();
  for (const d of scaling) {
    const pool = states.get(d.algorithm)?.pool;
    const alg = algorithms.get(d.algorithm);
    if (!pool || !alg) continue;
    const replicas = Math.max(d.replicas.from, d.replicas.to);
    demandGpus[pool] = (demandGpus[pool] ?? 0) + replicas * alg.spec.resources.gpus;
    if (d.action === 'scale-up' || d.action === 'relabel') scalingUp.add(pool);
  }
  return returnIdleNodes({
    assignments: pools,
    nodes,
    moved,
    emptySince: input.emptySince ?? new Map(),
    demandGpus,
    scalingUp,
    returnAfterSeconds: input.repo.policy.spec.pools.returnAfterSeconds,
    now: input.now,
  });
}
