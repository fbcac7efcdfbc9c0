/**
 * The Policy document (`policies/*.yaml`, merged over `policies/default.yaml`) as TypeScript types:
 * every threshold of the method, the standby sets, the namespaces and what a spec may ask of a pod.
 * `types.ts` re-exports it.
 */
import type { DcgmScalingMetric } from '../util/index.js';
import type { API_VERSION, ServiceMetricPolicy, SignalKind, TaintEffect } from './algorithm-types.js';

/** The merged policy: `policies/default.yaml` overridden field by field by a repo's `policies/*.yaml`. */
export interface Policy {
  apiVersion: typeof API_VERSION;
  kind: 'Policy';
  metadata: { name: string };
  spec: PolicySpec;
}

/** Every threshold of the method; units in the field comments and in `policies/default.yaml`. */
export interface PolicySpec {
  /** Namespace of an algorithm whose spec names none. */
  namespace: string;
  /**
   * The namespaces algorithms may run in (a spec author is confined): names, or a prefix ending in `*`
   * (`team-*`). Optional; absent: only `namespace`. `kube-*` and `controllerNamespace` are
   * refused whatever the list says (`rules/namespaces.ts`).
   */
  allowedNamespaces?: string[];
  /**
   * Which namespaces the specs of which folders may use (`rules/namespace-bindings.ts`): the
   * first entry whose `path` matches a spec's file decides; a namespace an entry names is refused
   * to every file that no such entry matches. Narrows `allowedNamespaces`, never widens it.
   * Optional; absent: any spec may use any allowed namespace.
   */
  namespacesByPath?: NamespaceBinding[];
  /** The namespace gpuops itself runs in (its ServiceAccount's); no algorithm may use it. */
  controllerNamespace: string;
  /** The most a spec may ask for (`rules/spec-limits.ts`); the policy's own defaults stay within them. */
  limits: SpecLimits;
  /**
   * Annotation keys a spec may put on its pods (`metadata.annotations`,
   * `spec.template.metadata.annotations`): a key, `prefix/*` or `*` (`*` matches any characters
   * but `/`). See `rules/pod-annotations.ts`.
   */
  allowedPodAnnotations: string[];
  /** What a spec's `spec.template` may choose that widens its pod's access (`rules/pod-security.ts`). */
  podSecurity: PodSecurityPolicy;
  pools: {
    labelKey: string;
    taint: { enabled: boolean; effect: TaintEffect };
    test: { size: number; perGPUProduct: boolean };
    /** Seconds a node gpuops moved into a task pool may stay empty before it returns to `unused`. */
    returnAfterSeconds: number;
    /**
     * Pre-staging (`manifests/prepull.ts`): with `enabled`, the pools pull request holds a
     * DaemonSet per task pool that pulls the images of the algorithms Git places on it onto the
     * pool's nodes and the `unused` ones; without it, gpuops deletes the ones it wrote.
     */
    prePull: { enabled: boolean };
  };
  placement: {
    longTaskThresholdSeconds: number;
    /**
     * What gpuops does when an algorithm's spec leaves `algorithms/` while its objects run:
     * `propose-removal` (default) opens a pull request that deletes them, titled as a removal;
     * `keep-and-report` leaves them and reports them every pass until a person deletes the folder.
     */
    onDeletedSpec?: OnDeletedSpec;
  };
  benchmark: {
    runs: number;
    timeoutSeconds: number;
    unschedulableTimeoutSeconds: number;
    /** Seconds a benchmark container may wait in an image or configuration error before the run ends. */
    startTimeoutSeconds: number;
    /** Seconds before a run that could not start is tried again; doubles per failed start, at most 1 h. */
    startRetryBackoffSeconds: number;
    backoffLimit: number;
    ttlSecondsAfterFinished: number;
    /**
     * The queue of a queueing system (Kueue's LocalQueue) benchmark Jobs go to, as the label
     * `kueue.x-k8s.io/queue-name`; absent: none named (such a system may hold the Job suspended).
     */
    queueName?: string;
  };
  scaling: {
    mode: 'pull-request' | 'patch';
    engine: 'gpuops' | 'hpa';
    metric: DcgmScalingMetric;
    /**
     * The signal of an algorithm whose spec names none; absent: `gpuEngineActive` when `metric` is
     * `DCGM_FI_PROF_GR_ENGINE_ACTIVE`, else `gpuUtil`.
     */
    signal?: SignalKind;
    /** The signals a spec may choose; absent: every GPU signal, and `serviceMetric` when any is listed. */
    allowedSignals?: SignalKind[];
    /** The per-pod metrics a spec may scale on with `signal: serviceMetric`; absent: none. */
    serviceMetrics?: ServiceMetricPolicy[];
    /** Whether specs may say `scaling.targets: fromBenchmark`, and the rule's numbers (`benchmark/band-proposal.ts`). */
    fromBenchmark?: { allowed: boolean; headroom: number; bandRatio: number };
    minReplicas: number;
    maxReplicas: number;
    step: number;
    /**
     * How far one decision goes: `step` (default) by `step` replicas; `load` by the replicas the
     * load needs at the band's middle, at least `step` (see `scaling/size-for-load.ts`);
     * `headroom` to the replicas the load plus `headroomFactor × √load` needs at `max`, up and down
     * (see `scaling/headroom-replicas.ts`, `scaling/rules/headroom.ts`).
     */
    sizing: 'step' | 'load' | 'headroom';
    /** `headroom` sizing: β of `ceil((L + β·√L) / max)` (L in GPUs; ≥ 0, dimensionless). */
    headroomFactor: number;
    /**
     * `headroom` sizing: the hysteresis band, in units of √load: a scale-down goes only to the
     * replicas the load needs at β + this, and only when that is below the current count (≥ 0);
     * below `utilization.min`, to the replicas it needs at β (see `scaling/rules/headroom.ts`).
     */
    headroomDownMargin: number;
    /** `headroom` sizing: no scale-up within this long after a scale-down (seconds; 0: off). */
    headroomFlapHoldSeconds: number;
    /**
     * `load` sizing: the utilisation a decision sizes for, `ceil(pods × utilisation / target)`
     * (percent, 0..100); 0: the middle of `utilization.min` and `.max`.
     */
    targetUtilization: number;
    /** Percent, 0..100. */
    utilization: { min: number; max: number };
    windowSeconds: number;
    staleSampleSeconds: number;
    /**
     * A not-Ready replica counts as starting (capacity on its way) for this long from its start;
     * from then on it is stuck and left out (seconds; `scaling/starting-pods.ts`).
     */
    podStartupSeconds: number;
    scaleUp: { cooldownSeconds: number; stabilizationWindowSeconds: number };
    scaleDown: {
      cooldownSeconds: number;
      stabilizationWindowSeconds: number;
      /**
       * Seconds back a scale-down looks for the highest recorded load: it goes no lower than the
       * replicas that keep that peak at or below `utilization.max` (see `scaling/history.ts`
       * `recentPeak`). Optional; absent or 0: off (default 0).
       */
      peakWindowSeconds?: number;
    };
    hpa: { targetUtilization: number };
  };
  pullRequests: { maxOpenedPerPass: number; maxOpen: number; labels: string[] };
  /**
   * How an algorithm's Deployment replaces its pods when the pod template changes (its
   * `spec.strategy`): `RollingUpdate` with `maxSurge` extra and at most `maxUnavailable` missing
   * pods (whole pods, not percentages: each surge pod takes the algorithm's GPUs), or `Recreate`.
   */
  rollout: { strategy: 'RollingUpdate' | 'Recreate'; maxSurge: number; maxUnavailable: number };
  /**
   * Warm standby sets (docs/standby.md): a pool keeps its shared spare as standby pods of an image
   * that can serve any of a declared set of algorithms, claimed by label in seconds. Optional;
   * absent or empty: no standby, the spare is held as extra replicas of each Deployment.
   */
  standby?: StandbySet[];
}

/** One pool's warm standby set (`spec.standby[]` of a Policy; docs/standby.md). */
export interface StandbySet {
  /** DNS-1123 label: the standby Deployment is `gpuops-standby-<name>`. */
  name: string;
  /** The pool whose spare it holds. */
  pool: 'long-task' | 'short-task';
  /** Its namespace: a pod cannot change namespace, so every algorithm of `algorithms` must run here. */
  namespace: string;
  /** An image that can serve any algorithm of `algorithms` (a multi-model runtime). */
  image: string;
  /** The algorithms a standby may become (names). */
  algorithms: string[];
  /** Whole GPUs of one standby pod; an algorithm asking for another count is not served by it. */
  gpus: number;
  /**
   * The runtime's HTTP port: `readinessPath` answers 200 when the pod can take a claim or serves
   * its model (503 while it switches), `wakePath` takes a POST `{"algorithm": "<name>"}`.
   */
  port: number;
  readinessPath: string;
  wakePath: string;
  /** The wake or switch time the runtime declares (seconds): claimed → Ready in the Service. */
  claimSeconds: number;
  /** β of the set, `ceil(β·√ΣL / (gpus × max/100))` standby pods; absent: `scaling.headroomFactor`. */
  headroomFactor?: number;
}

/**
 * One `namespacesByPath` entry: the spec files `path` matches may use only `namespaces`.
 * `path` is a pattern of the file's repo-relative path: `*` any characters of one folder or file
 * name, `**` any folders, `{name}` one folder or file name (or part of one) captured as `name`
 * (`algorithms/{team}/**`); `namespaces` entries are namespace names or `prefix*` patterns in
 * which `{name}` stands for what the path captured (`team-{team}`). A spec without
 * `metadata.namespace` in a matching file runs in the first entry when it has no `*`.
 */
export interface NamespaceBinding {
  path: string;
  namespaces: string[];
}

/**
 * Caps of what one spec may ask for (counts and seconds); the policy's defaults
 * (`scaling.minReplicas`/`maxReplicas`, `benchmark.runs`/`timeoutSeconds`) lie within them.
 */
export interface SpecLimits {
  /** Most replicas a spec may ask for: its `scaling.minReplicas` and `maxReplicas` (replicas). */
  replicas: number;
  /** Most GPUs one pod may request: `spec.resources.gpus` (GPUs). */
  gpusPerPod: number;
  /** Most benchmark runs a spec may ask for: `spec.benchmark.runs` (runs). */
  benchmarkRuns: number;
  /** Longest deadline of one benchmark run a spec may ask for: `spec.benchmark.timeoutSeconds` (seconds). */
  benchmarkTimeoutSeconds: number;
}

/**
 * The pod fields a spec author may set only when the platform allows it (a pod that widens its
 * reach beyond its namespace is the platform team's choice, not the spec author's); every allowance
 * defaults to off in `policies/default.yaml`.
 */
export interface PodSecurityPolicy {
  /** `securityContext.privileged: true` (and Windows `hostProcess`). */
  privileged: boolean;
  /** `securityContext.allowPrivilegeEscalation: true`. */
  allowPrivilegeEscalation: boolean;
  /** Linux capabilities a container may add (`securityContext.capabilities.add`), e.g. `SYS_PTRACE`. */
  capabilities: string[];
  /** `hostPath` volumes. */
  hostPath: boolean;
  /** `hostNetwork: true`. */
  hostNetwork: boolean;
  /** `hostPID: true`. */
  hostPID: boolean;
  /** `hostIPC: true`. */
  hostIPC: boolean;
  /** A container port with a `hostPort`. */
  hostPorts: boolean;
  /** ServiceAccounts a pod may run as besides the namespace's `default`. */
  serviceAccountNames: string[];
  /** `automountServiceAccountToken: true` or a projected `serviceAccountToken` volume. */
  automountServiceAccountToken: boolean;
  /** Running as root: `runAsNonRoot: false` or `runAsUser: 0` (Pod Security "restricted" refuses both). */
  runAsRoot: boolean;
  /** `seLinuxOptions` beyond the container types Pod Security "baseline" allows (a `type`, a `user`, a `role`). */
  seLinux: boolean;
  /**
   * Volume types beyond Pod Security "restricted"'s (`configMap`, `csi`, `downwardAPI`,
   * `emptyDir`, `ephemeral`, `persistentVolumeClaim`, `projected`, `secret`), e.g. `nfs`;
   * `hostPath` has its own allowance.
   */
  volumeTypes: string[];
  /** Sysctls beyond Pod Security "baseline"'s safe set, by name. */
  sysctls: string[];
  /**
   * Extended resources a container may request besides the GPUs gpuops sets (`nvidia.com/mig-*`,
   * `amd.com/gpu`, `nvidia.com/gpu.shared`): names, or a prefix and `*`.
   */
  extendedResources: string[];
  /** Dynamic resource allocation: the pod's `resourceClaims` (a claim can hand out GPUs too). */
  resourceClaims: boolean;
  /** `priorityClassName`s a pod may use (`system-node-critical` and every other class are refused unless listed). */
  priorityClassNames: string[];
}

/** `placement.onDeletedSpec` of the Policy. */
export type OnDeletedSpec = 'propose-removal' | 'keep-and-report';
