/**
 * The cluster side of the standby set `llm` (`STANDBY_SET`, standby-policy.ts) for tests of the pass's scaling
 * step (`planScaling`): one short-task node `gpu-s1`, an algorithm's Deployment and its pods, the
 * set's standby Deployment and its pods, the DCGM utilisation of pods, and the Deployment file in Git.
 */
import type { NodeInfo, PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';
import type { GpuSeries } from '../../src/metrics/types.js';
import { nodeInfo } from './node-info.js';

/** The one GPU node of these tests: it serves the short-task pool. */
export const NODE = 'gpu-s1';

/**
 * A Running, Ready pod gpuops manages on {@link NODE} in namespace `algorithms` (1 GPU, 1 CPU,
 * 1 GiB), with `labels` beside `app.kubernetes.io/managed-by: gpuops`; its algorithm is its
 * `gpuops.dev/algorithm` label's (null without), no owner, created and started 2026-12-06T10:00Z.
 * `over` replaces whole fields.
 */
export function managedPod(
  name: string,
  labels: Record<string, string>,
  over: Partial<PodInfo> = {},
): PodInfo {
  return {
    namespace: 'algorithms',
    name,
    uid: `uid-${name}`,
    labels: { 'app.kubernetes.io/managed-by': 'gpuops', ...labels },
    nodeName: NODE,
    phase: 'Running',
    ready: true,
    terminating: false,
    gpuRequest: 1,
    requests: { cpuMillis: 1000, memoryBytes: 2 ** 30 },
    managed: true,
    algorithm: labels['gpuops.dev/algorithm'] ?? null,
    owner: null,
    unschedulable: false,
    createdAt: '2026-12-06T10:00:00Z',
    startedAt: '2026-12-06T10:00:00Z',
    ...over,
  };
}

/** The ReplicaSet `<alg>-abc` (uid `rs-<alg>`) of `alg`'s Deployment, `replicas` wanted. */
export function algorithmRs(alg: string, replicas: number): ReplicaSetInfo {
  return {
    namespace: 'algorithms',
    name: `${alg}-abc`,
    uid: `rs-${alg}`,
    owner: { kind: 'Deployment', name: alg, controller: true, uid: `d-${alg}` },
    revision: 1,
    replicas,
  };
}

/** Replica `i` of `alg`'s Deployment, `<alg>-abc-<i>`, owned by {@link algorithmRs}. */
export function algorithmReplica(alg: string, i: number, over: Partial<PodInfo> = {}): PodInfo {
  return managedPod(
    `${alg}-abc-${i}`,
    { 'gpuops.dev/algorithm': alg, 'app.kubernetes.io/name': alg, 'pod-template-hash': 'abc' },
    { owner: { kind: 'ReplicaSet', name: `${alg}-abc`, controller: true, uid: `rs-${alg}` }, ...over },
  );
}

/** The ReplicaSet `gpuops-standby-llm-bbb222` (uid `rs-bbb222`) of the set's Deployment, `replicas` wanted. */
export function standbyRs(replicas: number): ReplicaSetInfo {
  return {
    namespace: 'algorithms',
    name: 'gpuops-standby-llm-bbb222',
    uid: 'rs-bbb222',
    owner: { kind: 'Deployment', name: 'gpuops-standby-llm', controller: true, uid: 'd-sb' },
    revision: 1,
    replicas,
  };
}

/** Standby `i` of the set, `gpuops-standby-llm-bbb222-s<i>` (Ready unless `over` says), owned by {@link standbyRs}. */
export function standbyPod(i: number, over: Partial<PodInfo> = {}): PodInfo {
  return managedPod(
    `gpuops-standby-llm-bbb222-s${i}`,
    { 'gpuops.dev/standby': 'llm', 'pod-template-hash': 'bbb222' },
    {
      owner: { kind: 'ReplicaSet', name: 'gpuops-standby-llm-bbb222', controller: true, uid: 'rs-bbb222' },
      ...over,
    },
  );
}

/** {@link NODE} in the short-task pool (its label and the snapshot's pool), `gpuRequested` GPUs requested. */
export function shortTaskNode(gpuRequested: number): NodeInfo {
  return nodeInfo(NODE, { pool: 'short-task', labels: { 'gpuops.dev/pool': 'short-task' }, gpuRequested });
}

/**
 * dcgm-exporter's `DCGM_FI_DEV_GPU_UTIL` for each of `pods` on {@link NODE}, `percent` at `atMs`
 * (ms since the epoch), with a GPU of its own (`GPU-<pod>`) and the pod labels a Prometheus scrape adds.
 */
export function gpuUtilSeries(pods: readonly PodInfo[], percent: number, atMs: number): GpuSeries[] {
  return pods.map((p) => ({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    labels: { UUID: `GPU-${p.name}`, node: NODE, exported_pod: p.name, exported_namespace: p.namespace },
    value: percent,
    timestamp: atMs,
  }));
}

/** `clusters/prod/algorithms/<alg>/deployment.yaml` in Git: `replicas`, its pods on the short-task pool. */
export function deploymentYaml(alg: string, replicas: number): string {
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${alg}\n  namespace: algorithms\nspec:\n  replicas: ${replicas}\n  template:\n    spec:\n      nodeSelector:\n        gpuops.dev/pool: short-task\n`;
}
