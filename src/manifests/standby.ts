/**
 * A pool's warm standby set as manifests (pure; docs/standby.md): the standby Deployment gpuops
 * renders into Git like every other workload, and the label patches of a claim and a give-back
 * (runtime state, never in Git).
 *
 * The Deployment `gpuops-standby-<set>` in the set's namespace runs the set's image on the pool's
 * nodes, one GPU count per pod, with a readiness probe on the declared endpoint; its pods carry
 * `gpuops.dev/standby: <set>`, which is its whole selector. Its file is
 * `clusters/<cluster>/standby/<set>/deployment.yaml`, a folder of its own so that one subject
 * alone (`standby/<set>`, branch `gpuops/<cluster>/standby/<set>`) writes it; the pass plans it in
 * `plan/standby-changes.ts`.
 *
 * A claim merge-patches a standby pod's labels: `gpuops.dev/standby` and `pod-template-hash` go
 * (the standby ReplicaSet releases it and creates a new standby, the cold path), the algorithm's
 * Service selector labels (`app.kubernetes.io/name`, `gpuops.dev/algorithm`) and
 * `gpuops.dev/claimed-from: <set>` come (its Service lists it as an endpoint; no ReplicaSet of the
 * algorithm adopts it, their selectors hold their own `pod-template-hash`). A give-back is the
 * reverse, with the standby ReplicaSet's current `pod-template-hash`, so that ReplicaSet adopts it
 * (and deletes its surplus, a starting standby first).
 *
 * A standby pod asks the scheduler to pack ({@link standbyPodAffinity}): under kube-scheduler's
 * default scoring every new pod, a standby's backfill included, goes to the emptiest node, so the
 * nodes a falling load would free keep a pod and are never returned.
 */
import type { KubeObject } from '../cluster/index.js';
import type { PolicySpec, ResolvedAlgorithm, StandbySet } from '../definitions/index.js';
import { restrictPod } from './pod-security.js';
import { GPUOPS, MANAGED_BY, NVIDIA, type AcceleratorVendor } from '../util/index.js';
import { algorithmVendor, anyVendorTolerations, poolScheduling } from './scheduling.js';
import { renderYaml } from './yaml.js';
import type { FileChange } from './file-change.js';

/** The label of a standby pod (its Deployment's selector): the set's name. */
export const STANDBY_LABEL = GPUOPS.standby;
/** The label of a claimed pod: the set it came from (how gpuops finds its claims after a restart). */
export const CLAIMED_FROM_LABEL = GPUOPS.claimedFrom;
/**
 * The annotation of a claimed pod: its own uid, which the claim patch writes (what a restarted
 * gpuops checks to know the pod is one it claimed; `scaling/rules/standby-owners.ts`).
 */
export const CLAIMED_UID_ANNOTATION = GPUOPS.claimedUid;
/** The label a Deployment's ReplicaSets add to their selector and pods. */
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/**
 * The weight of each of the standby pod's preferred pod affinity terms (1–100, the API's range).
 * Its value does not change which node a standby goes to: InterPodAffinity adds the weights of the
 * terms that match pods on each node and then normalises the sums to 0–100 across the feasible
 * nodes (`NormalizeScore`), so with both terms at one weight only the pod counts matter. It is the
 * highest the API allows so that a preference a user's admission policy adds beside them weighs
 * less.
 */
export const STANDBY_AFFINITY_WEIGHT = 100;

/**
 * The standby pod's `affinity`: two `preferredDuringSchedulingIgnoredDuringExecution` pod affinity
 * terms, each of {@link STANDBY_AFFINITY_WEIGHT}, on `kubernetes.io/hostname`, in every namespace
 * (`namespaceSelector: {}`): towards pods carrying `gpuops.dev/algorithm` (the algorithms'
 * replicas, claimed standbys included) and towards pods carrying `gpuops.dev/standby` (other
 * standbys). The pool's `nodeSelector` keeps the standby on the pool's nodes, so the pods these
 * terms count are the pool's.
 *
 * How kube-scheduler weighs it (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity;
 * kubernetes/kubernetes `pkg/scheduler/apis/config/v1/default_plugins.go` and
 * `pkg/scheduler/framework/plugins/interpodaffinity/scoring.go`): a node's score is
 * Σ plugin weight × the plugin's 0–100 score; by default NodeResourcesFit (weight 1, its
 * `LeastAllocated` strategy: the free share of the node after the pod) and InterPodAffinity
 * (weight 2: the matching pods' term weights on the node, normalised between the lowest and the
 * highest node). So the node with the most of the pool's pods scores up to 200 on affinity against
 * at most 100 that `LeastAllocated` gives an empty node: a standby goes to a busy node that fits it
 * (an empty node only when no busy node has room). The scoring is symmetric: an existing pod's
 * preferred terms count for an incoming pod they match, so an algorithm's cold replica, which
 * carries no term, is drawn towards the nodes that hold standbys or claimed pods too.
 * Not asked: `requiredDuringScheduling` (a standby must start even when every busy node is full).
 * The algorithms' own Deployments carry no such term: the standbys' terms already draw their cold
 * replicas to the standbys' nodes (the replay: within 1.8 of ~85 node-hours either way),
 * and gpuops's affinity replaces a template's own by key (`pod-template.ts`); docs/standby.md,
 * "Pool node-hours on the pod groups".
 */
export function standbyPodAffinity(): Record<string, unknown> {
  const term = (key: string) => ({
    weight: STANDBY_AFFINITY_WEIGHT,
    podAffinityTerm: {
      labelSelector: { matchExpressions: [{ key, operator: 'Exists' }] },
      namespaceSelector: {},
      topologyKey: 'kubernetes.io/hostname',
    },
  });
  return {
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [term(GPUOPS.algorithm), term(STANDBY_LABEL)],
    },
  };
}

/** The standby Deployment's name: `gpuops-standby-<set>` (a set's name is at most 48 characters). */
export function standbyName(set: Pick<StandbySet, 'name'>): string {
  return `gpuops-standby-${set.name}`;
}

/** `clusters/<cluster>/standby/<set>/deployment.yaml`. */
export function standbyPath(cluster: string, set: Pick<StandbySet, 'name'>): string {
  return `clusters/${cluster}/standby/${set.name}/deployment.yaml`;
}

/**
 * The vendor whose GPUs a standby of `set` asks (`spec.gpu.vendor` of its algorithms, the
 * vocabulary's `VENDORS`): a standby becomes one of them, so it holds the GPUs they ask. The first
 * algorithm of the set, in its declared order, that `algorithms` defines in the set's namespace;
 * none defined: NVIDIA, the default of a spec.
 */
export function standbyVendor(
  set: StandbySet,
  algorithms: readonly Pick<ResolvedAlgorithm, 'name' | 'namespace' | 'spec'>[],
): AcceleratorVendor {
  for (const name of set.algorithms) {
    const alg = algorithms.find((a) => a.name === name && a.namespace === set.namespace);
    if (alg) return algorithmVendor(alg.spec);
  }
  return NVIDIA;
}

/**
 * The standby Deployment of `set` with `replicas` pods (the set's size, `standbyReplicas` of
 * `scaling/rules/claim.ts`), on the set's pool (`poolScheduling`, tolerating every vendor's GPU
 * taint: a pool holds nodes of any vendor), in the restricted pod profile
 * (`restrictPod`), a readiness probe every second on `readinessPath` (a claim's switch shows as
 * not Ready until the model serves), a preferred pod affinity to the pool's busy nodes
 * ({@link standbyPodAffinity}), the Argo CD sync wave "0". Each pod requests `gpus` of
 * `vendor`'s resource (`nvidia.com/gpu`, `amd.com/gpu`; {@link standbyVendor}).
 */
export function renderStandbyDeployment(
  set: StandbySet,
  policy: PolicySpec,
  replicas: number,
  vendor: AcceleratorVendor = NVIDIA,
): KubeObject {
  const labels = { [MANAGED_BY.key]: MANAGED_BY.value, [STANDBY_LABEL]: set.name };
  const { nodeSelector } = poolScheduling(set.pool, policy);
  const pod: Record<string, unknown> & { containers: Record<string, unknown>[] } = {
    nodeSelector,
    tolerations: anyVendorTolerations(policy, set.pool),
    affinity: standbyPodAffinity(),
    automountServiceAccountToken: false,
    containers: [
      {
        name: 'runtime',
        image: set.image,
        ports: [{ name: 'http', containerPort: set.port, protocol: 'TCP' }],
        readinessProbe: {
          httpGet: { path: set.readinessPath, port: set.port },
          periodSeconds: 1,
          failureThreshold: 1,
        },
        resources: {
          requests: { [vendor.resource]: String(set.gpus) },
          limits: { [vendor.resource]: String(set.gpus) },
        },
      },
    ],
  };
  restrictPod(pod);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: standbyName(set),
      namespace: set.namespace,
      labels,
      annotations: { 'argocd.argoproj.io/sync-wave': '0' },
    },
    spec: {
      replicas,
      selector: { matchLabels: { [STANDBY_LABEL]: set.name } },
      template: { metadata: { labels }, spec: pod },
    },
  } as KubeObject;
}

/** The standby Deployment's file for `cluster` (see {@link renderStandbyDeployment}). */
export function standbyFile(
  cluster: string,
  set: StandbySet,
  policy: PolicySpec,
  replicas: number,
  vendor: AcceleratorVendor = NVIDIA,
): FileChange {
  return {
    path: standbyPath(cluster, set),
    content: renderYaml([renderStandbyDeployment(set, policy, replicas, vendor)]),
  };
}

/** A JSON merge patch (RFC 7386) of a pod's labels and annotations; `null` removes a key. */
export interface PodMetadataPatch {
  metadata: {
    labels: Record<string, string | null>;
    annotations: Record<string, string | null>;
  };
}

/**
 * The JSON merge patch (RFC 7386, `application/merge-patch+json`) of a claim: the pod leaves the
 * standby set `set` and joins the Service of `algorithm` (see the module comment), annotated
 * `gpuops.dev/claimed-uid: <podUid>`, its own uid, as the mark of a claim gpuops made.
 * @throws Error when `algorithm` is not one the set may become, or `podUid` is empty
 */
export function claimPatch(set: StandbySet, algorithm: string, podUid: string): PodMetadataPatch {
  if (!set.algorithms.includes(algorithm))
    throw new Error(
      `standby ${set.name}: cannot become ${algorithm} (it serves ${set.algorithms.join(', ')})`,
    );
  if (podUid === '') throw new Error(`standby ${set.name}: a claim needs the pod's uid`);
  return {
    metadata: {
      labels: {
        [STANDBY_LABEL]: null,
        [POD_TEMPLATE_HASH]: null,
        'app.kubernetes.io/name': algorithm,
        [GPUOPS.algorithm]: algorithm,
        [CLAIMED_FROM_LABEL]: set.name,
      },
      annotations: { [CLAIMED_UID_ANNOTATION]: podUid },
    },
  };
}

/**
 * The JSON merge patch of a give-back: the claimed pod leaves its algorithm's Service and matches
 * the standby ReplicaSet whose `pod-template-hash` is `currentHash` again (that ReplicaSet adopts
 * it); the claim's annotation goes. A pod claimed from an older template (the hash moved since) is
 * deleted instead: give no patch for it. @throws Error when `currentHash` is empty
 */
export function giveBackPatch(set: StandbySet, currentHash: string): PodMetadataPatch {
  if (currentHash === '')
    throw new Error(`standby ${set.name}: no current pod-template-hash to give back to`);
  return {
    metadata: {
      labels: {
        'app.kubernetes.io/name': null,
        [GPUOPS.algorithm]: null,
        [CLAIMED_FROM_LABEL]: null,
        [STANDBY_LABEL]: set.name,
        [POD_TEMPLATE_HASH]: currentHash,
      },
      annotations: { [CLAIMED_UID_ANNOTATION]: null },
    },
  };
}
