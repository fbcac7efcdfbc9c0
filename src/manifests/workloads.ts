import type { KubeObject } from '../cluster/index.js';
import type { PolicySpec, ResolvedAlgorithm } from '../definitions/index.js';
import {
  algorithmVendor,
  containerEnv,
  containerResources,
  poolScheduling,
  productAffinity,
} from './scheduling.js';
import { applyPodTemplate } from './pod-template.js';
import { deploymentStrategy } from './rollout-strategy.js';
import { renderService } from './service.js';
import { modelCacheFilePath, mountModelCache, renderModelCacheFill } from './model-cache.js';
import { cloneTemplate, type WorkloadTemplates } from './templates.js';
import { renderYaml } from './yaml.js';
import type { FileChange } from './file-change.js';
import { DCGM, GPUOPS, MANAGED_BY } from '../util/index.js';

/** The pools a workload can be placed on. */
export type WorkloadPool = 'long-task' | 'short-task';

/** What one algorithm's generated folder is rendered from. */
export interface WorkloadInput {
  algorithm: ResolvedAlgorithm;
  /** The placement's pool. */
  pool: WorkloadPool;
  policy: PolicySpec;
  /** Cluster name: the folder under `clusters/`. */
  cluster: string;
  /**
   * Replica count written with `scaling.engine: gpuops` (the count in Git, or a scaling
   * decision's `to`); default the algorithm's `minReplicas`. Ignored with `hpa`.
   */
  replicas?: number;
  templates: WorkloadTemplates;
  /**
   * The GPU products its pods run on (`algorithmProducts`: those the spec names, else those it was
   * benchmarked on): a required node affinity `nvidia.com/gpu.product In [...]` beside the pool's
   * nodeSelector. Absent or empty: any product of the pool.
   */
  gpuProducts?: readonly string[];
}

/** `clusters/<cluster>/algorithms/<name>` (repo-relative, `/`-separated). */
export function workloadDir(cluster: string, algorithm: string): string {
  return `clusters/${cluster}/algorithms/${algorithm}`;
}

/** Labels of everything generated for an algorithm. The selector uses the first and the last. */
function workloadLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    [MANAGED_BY.key]: MANAGED_BY.value,
    [GPUOPS.algorithm]: name,
  };
}

/** The labels the Deployment and the Service select the algorithm's pods by. */
function podSelector(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name, [GPUOPS.algorithm]: name };
}

/**
 * The algorithm's apps/v1 Deployment on `pool`: image, command, args, env, requests/limits with
 * `nvidia.com/gpu`, `nodeSelector` on the pool label, a required node affinity on its GPU
 * products (`gpuProducts`), tolerations for the GPU and pool taints,
 * labels, the Argo CD sync wave "0", the policy's rollout strategy (`rollout-strategy.ts`), and the spec's `template` merged into the pod
 * (`pod-template.ts`: ports, probes, volumes, envFrom, …). The replica count has exactly one owner: with engine
 * `gpuops` it is `spec.replicas`; with engine `hpa` the field is left out, so that Argo CD
 * does not reset what the HorizontalPodAutoscaler sets (Argo CD docs, "Leaving room for
 * imperativeness"; Kubernetes HPA docs, "Migrating Deployments to horizontal autoscaling").
 * @throws RangeError when `replicas` is given and not an integer ≥ 0
 */
export function renderDeployment(input: WorkloadInput): KubeObject {
  const { algorithm: alg, policy, pool } = input;
  const d = cloneTemplate(input.templates.deployment) as KubeObject & { spec: DeploymentSpec };
  const labels = workloadLabels(alg.name);
  d.metadata = {
    ...d.metadata,
    name: alg.name,
    namespace: alg.namespace,
    labels: { ...d.metadata.labels, ...labels },
    annotations: { ...d.metadata.annotations, 'argocd.argoproj.io/sync-wave': '0' },
  };
  const spec = d.spec;
  if (policy.scaling.engine === 'gpuops') {
    const replicas = input.replicas ?? alg.scaling.minReplicas;
    if (!Number.isInteger(replicas) || replicas < 0) {
      throw new RangeError(`${alg.name}: replicas must be an integer ≥ 0, got ${replicas}`);
    }
    spec.replicas = replicas;
  } else {
    delete spec.replicas;
  }
  spec.selector = { matchLabels: podSelector(alg.name) };
  spec.strategy = deploymentStrategy(policy.rollout);
  const vendor = algorithmVendor(alg.spec);
  const { nodeSelector, tolerations } = poolScheduling(pool, policy, null, vendor);
  const affinity = productAffinity(input.gpuProducts, vendor);
  applyPodTemplate(
    spec.template,
    alg.spec.template,
    {
      labels: { ...labels, [policy.pools.labelKey]: pool },
      nodeSelector,
      ...(affinity ? { affinity } : {}),
      tolerations,
      allowServiceAccountToken: policy.podSecurity.automountServiceAccountToken,
      container: {
        name: alg.name,
        image: alg.spec.image,
        command: alg.spec.command,
        args: alg.spec.args,
        env: containerEnv(alg.spec.env),
        resources: containerResources(alg.spec.resources, vendor),
      },
    },
    false,
  );
  if (alg.spec.modelCache) mountModelCache(alg.name, alg.spec.modelCache, spec.template);
  return d;
}

/**
 * The HPA target for the policy's metric, as a per-pod `AverageValue` quantity.
 * `DCGM_FI_DEV_GPU_UTIL` is a percent, so the target is the percent itself (`"60"`);
 * `DCGM_FI_PROF_GR_ENGINE_ACTIVE` is a ratio 0..1, so 60 % becomes `"600m"`.
 */
export function hpaAverageValue(policy: PolicySpec): string {
  const target = policy.scaling.hpa.targetUtilization;
  if (policy.scaling.metric === DCGM.GPU_UTIL) return String(target);
  return `${Math.round(target * 10)}m`;
}

/**
 * The algorithm's autoscaling/v2 HorizontalPodAutoscaler (engine `hpa` only): min/max replicas
 * from the resolved spec, one `Pods` metric on the policy's DCGM field (served per pod by
 * dcgm-exporter through the Prometheus Adapter) with target `AverageValue` =
 * `scaling.hpa.targetUtilization`, and the policy's stabilisation windows as `behavior`.
 */
export function renderHpa(input: WorkloadInput): KubeObject {
  const { algorithm: alg, policy } = input;
  const h = cloneTemplate(input.templates.hpa) as KubeObject & { spec: Record<string, unknown> };
  h.metadata = {
    ...h.metadata,
    name: alg.name,
    namespace: alg.namespace,
    labels: { ...h.metadata.labels, ...workloadLabels(alg.name) },
    annotations: { ...h.metadata.annotations, 'argocd.argoproj.io/sync-wave': '0' },
  };
  h.spec = {
    ...h.spec,
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: alg.name },
    minReplicas: alg.scaling.minReplicas,
    maxReplicas: alg.scaling.maxReplicas,
    metrics: [
      {
        type: 'Pods',
        pods: {
          metric: { name: policy.scaling.metric },
          target: { type: 'AverageValue', averageValue: hpaAverageValue(policy) },
        },
      },
    ],
    behavior: {
      scaleUp: { stabilizationWindowSeconds: policy.scaling.scaleUp.stabilizationWindowSeconds },
      scaleDown: { stabilizationWindowSeconds: policy.scaling.scaleDown.stabilizationWindowSeconds },
    },
  };
  return h;
}

/**
 * Every file of one algorithm's generated folder, as byte-stable YAML (`renderYaml`), sorted by
 * path: `deployment.yaml` (mounting the model cache when the spec names one), `hpa.yaml` (engine
 * `hpa` only), `model-cache-fill.yaml` (the fill Job of `spec.modelCache.fill`, `model-cache.ts`)
 * and `service.yaml` (when the container declares ports, `service.ts`). Whether the Deployment
 * may read the cache yet is the plan's call (`plan/model-cache.ts`). No kustomization lists them (`manifests/cluster-layout.ts`); a
 * file this render no longer writes is deleted by {@link workloadDeletions}.
 */
export function renderWorkloadFiles(input: WorkloadInput): FileChange[] {
  const dir = workloadDir(input.cluster, input.algorithm.name);
  const files: FileChange[] = [
    { path: `${dir}/deployment.yaml`, content: renderYaml(renderDeployment(input)) },
  ];
  // Pushed in path order: deployment.yaml < hpa.yaml < model-cache-fill.yaml < service.yaml.
  if (input.policy.scaling.engine === 'hpa') {
    files.push({ path: `${dir}/hpa.yaml`, content: renderYaml(renderHpa(input)) });
  }
  const fill = renderModelCacheFill(input.algorithm);
  if (fill)
    files.push({ path: modelCacheFilePath(input.cluster, input.algorithm.name), content: renderYaml(fill) });
  const name = input.algorithm.name;
  const service = renderService(input.algorithm, workloadLabels(name), podSelector(name));
  if (service) files.push({ path: `${dir}/service.yaml`, content: renderYaml(service) });
  return files;
}

/**
 * Deletions that keep `clusters/<cluster>/algorithms/` in step with Git:
 * - every file of a folder whose algorithm is no longer in `algorithms/` (`algorithmsInGit`);
 * - a file of a rendered algorithm's folder that this render no longer writes (e.g. `hpa.yaml`
 *   after the engine changed from `hpa` to `gpuops`, so the HPA and gpuops never both own the
 *   replica count).
 * An algorithm still in Git but not rendered now (benchmark pending, failed) keeps its files:
 * its running Deployment stays until a new placement replaces it.
 *
 * @param present  repo-relative paths of the files under `clusters/<cluster>/algorithms/` now
 * @param rendered the files rendered in this pass (any cluster paths; others are ignored)
 * @returns `{path, content: null}` per file to delete, sorted by path
 */
export function workloadDeletions(input: {
  cluster: string;
  algorithmsInGit: Iterable<string>;
  present: Iterable<string>;
  rendered: FileChange[];
}): FileChange[] {
  const prefix = `clusters/${input.cluster}/algorithms/`;
  const inGit = new Set(input.algorithmsInGit);
  const renderedPaths = new Set(input.rendered.map((f) => f.path));
  const renderedAlgorithms = new Set<string>();
  for (const p of renderedPaths) {
    if (p.startsWith(prefix)) renderedAlgorithms.add(p.slice(prefix.length).split('/')[0]!);
  }
  const out: FileChange[] = [];
  for (const path of new Set(input.present)) {
    if (!path.startsWith(prefix)) continue;
    const name = path.slice(prefix.length).split('/')[0]!;
    const removed = !inGit.has(name);
    const stale = renderedAlgorithms.has(name) && !renderedPaths.has(path);
    if (removed || stale) out.push({ path, content: null });
  }
  return out.sort(byPath);
}

/** Orders files by path, by UTF-16 code unit (as git lists them for ASCII paths). */
function byPath(a: FileChange, b: FileChange): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

interface DeploymentSpec {
  replicas?: number;
  selector?: unknown;
  strategy?: unknown;
  template: {
    metadata?: Record<string, unknown>;
    spec: Record<string, unknown> & { containers?: Record<string, unknown>[] };
  };
}

/**
 * The generated files of every placed algorithm, sorted by path. An algorithm whose placement has
 * no pool (benchmark pending or failed) gets no files here; see {@link workloadDeletions} for
 * what happens to files it already has.
 * @param replicas current replica count per algorithm (engine `gpuops`), default `minReplicas`
 */
export function renderPlacedWorkloads(input: {
  algorithms: readonly ResolvedAlgorithm[];
  placements: readonly { algorithm: string; pool: WorkloadPool | null }[];
  policy: PolicySpec;
  cluster: string;
  templates: WorkloadTemplates;
  replicas?: ReadonlyMap<string, number>;
}): FileChange[] {
  const pools = new Map(input.placements.map((p) => [p.algorithm, p.pool]));
  const files: FileChange[] = [];
  for (const algorithm of input.algorithms) {
    const pool = pools.get(algorithm.name);
    if (!pool) continue;
    files.push(
      ...renderWorkloadFiles({
        algorithm,
        pool,
        policy: input.policy,
        cluster: input.cluster,
        templates: input.templates,
        replicas: input.replicas?.get(algorithm.name),
      }),
    );
  }
  return files.sort(byPath);
}
