/**
 * The real-cluster suite's installation, every part real: kube-apiserver, kube-controller-manager,
 * kube-scheduler and etcd built from source, KWOK's nodes, Flux's source-controller and
 * kustomize-controller applying a local bare GitOps repo served over HTTP, a Prometheus scraping
 * dcgm-exporter pages, and gpuops composed as `gpuops reconcile` composes it, authenticated as
 * its ServiceAccount (a TokenRequest token) with the RBAC of templates/install applied as shipped.
 *
 * It plays the people around gpuops: `merge(branch)` presses "Merge", `push(files)` commits to
 * `main`; `sync()` is `flux reconcile kustomization --with-source`. Helpers for tests of the
 * scheduler's rules (`addNodes`, `apply`, `pods`, `until`) keep such a test short.
 */
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import { describe } from 'vitest';
import { compose } from '../../src/compose/compose.js';
import { settingsWith } from '../../src/config/settings.js';
import { reconcileOnce, type PassResult, type ReconcileDeps } from '../../src/pass/reconcile.js';
import { GitPullRequestHost } from '../../src/git-hosts/git-host.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { kubeObjectApi } from '../../src/gitops-apply/index.js';
import { createClusterCache, type ClusterCache } from '../../src/cluster/cache.js';
import { createKubeClient } from '../../src/cluster/kube-client.js';
import type { KubeObject } from '../../src/cluster/object.js';
import { cacheSource } from '../../src/cluster/source.js';
import { BINARIES, CORE, findAssets } from '../../src/local-cluster/assets.js';
import { installGpuopsRbac, issuerOf, serviceAccountKubeconfig } from '../../src/local-cluster/install.js';
import { httpsRequest } from '../../src/local-cluster/control-plane.js';
import type { GitOpsConnection } from '../../src/local-cluster/gitops-connection.js';
import {
  startLocalCluster,
  type LocalCluster,
  type LocalClusterOptions,
} from '../../src/local-cluster/local-cluster.js';
import { openStore, type Store } from '../../src/store/index.js';
import { git, makeRemote, PersonClone, remoteFile, type TempRepo } from '../gitops/helpers.js';

export const INSTALL = join(import.meta.dirname, '../../templates/install');

/**
 * `describe` when the binaries are built, else a skipped `describe` (outside CI) that says how to
 * build them. In CI (`CI=true`) a missing binary fails: `.ci/test.sh` builds them first.
 */
export function describeReal(
  name: string,
  fn: () => void,
  needs: { flux: boolean; also?: string[] } = { flux: true },
): void {
  const found = findAssets(process.env, [
    ...(needs.flux ? [...BINARIES, 'crds'] : CORE),
    ...(needs.also ?? []),
  ]);
  if (found.ok) {
    describe(name, fn);
    return;
  }
  const why = `${found.missing.join(', ')} not built (bash scripts/k8s/build.sh)`;
  if (process.env.CI === 'true')
    describe(name, () => {
      throw new Error(`real-cluster suite: ${why}`);
    });
  else describe.skip(`${name} (skipped: ${why})`, fn);
}

/** Options of {@link startRealHarness}. */
export interface RealHarnessOptions extends LocalClusterOptions {
  /** Files of the GitOps repo's first commit; with them Flux is connected. */
  files?: Record<string, string>;
  /** Cluster name (folder under `clusters/`); default `prod`. */
  cluster?: string;
  /** Read utilisation from the cluster's Prometheus; default true when metrics run. */
  prometheus?: boolean;
  /**
   * Passes read a watch-driven cache (as `gpuops run`) instead of listing; its watches count as
   * stalled after `stallSeconds`.
   */
  cache?: { stallSeconds: number };
}

/** A running installation. */
export interface RealHarness {
  cluster: string;
  local: LocalCluster;
  /** The admin's access. */
  kc: k8s.KubeConfig;
  /** gpuops's access: the ServiceAccount's token. */
  gpuopsKc: k8s.KubeConfig;
  /** The kubeconfig text of gpuops's access (for a `gpuops` process). */
  gpuopsKubeconfig: string;
  repo: TempRepo;
  gitops: GitOpsConnection | null;
  store: Store;
  deps: ReconcileDeps;
  logs: Record<string, unknown>[];
  /** The cache passes read, with `cache`. */
  cache: ClusterCache | null;
  pass(): Promise<PassResult>;
  merge(branch: string): string;
  push(files: Record<string, string>, message?: string): string;
  file(ref: string, path: string): string | null;
  /** Flux fetches `main` and applies it; resolves with the applied revision. */
  sync(): Promise<string>;
  /** Server-side apply as the admin (or as `fieldManager`). */
  apply(obj: KubeObject, fieldManager?: string): Promise<void>;
  /** Raw GET as the admin: the parsed body. */
  get<T = KubeObject>(path: string): Promise<T>;
  /** Pods of a namespace (all when omitted), optionally by label selector. */
  pods(namespace?: string, selector?: string): Promise<KubeObject[]>;
  /** KWOK nodes: `gpus` A100s each, with labels (GPU Feature Discovery's and any given). */
  addNodes(nodes: TestNode[]): Promise<void>;
  close(): Promise<void>;
}

/** A test node: `gpus` A100s, GPU Feature Discovery's labels and any given, cpu and memory. */
export interface TestNode {
  name: string;
  gpus: number;
  labels?: Record<string, string>;
  /** Allocatable (= capacity) cpu; default 64. */
  cpu?: string;
  /** Allocatable (= capacity) memory; default 512Gi. */
  memory?: string;
}

/**
 * The Node object of a test node, as KWOK plays it (`kwok.x-k8s.io/node: fake`); the simulator
 * twin of a test (sim-twin.ts) loads the same object.
 */
export function kwokNode(n: TestNode): KubeObject {
  const resources = {
    cpu: n.cpu ?? '64',
    memory: n.memory ?? '512Gi',
    pods: '110',
    'nvidia.com/gpu': String(n.gpus),
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: n.name,
      annotations: { 'kwok.x-k8s.io/node': 'fake' },
      labels: {
        'kubernetes.io/hostname': n.name,
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
        'nvidia.com/gpu.count': String(n.gpus),
        ...n.labels,
      },
    },
    status: { capacity: resources, allocatable: resources },
  };
}

/** Polls `check` every 250 ms until it returns a value other than undefined/false. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting until ${what}${last ? `: ${String(last)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Applies templates/install's ServiceAccount and RBAC (or a component's) as shipped, as the admin. */
export const installRbac = installGpuopsRbac;

const json = (o: unknown) => ({ type: 'application/json', text: JSON.stringify(o) });

/** Starts every part (see the module comment); close it in `afterAll`. */
export async function startRealHarness(o: RealHarnessOptions = {}): Promise<RealHarness> {
  const cluster = o.cluster ?? 'prod';
  const local = await startLocalCluster(o);
  const admin = (path: string, method = 'GET', body?: unknown) =>
    httpsRequest(
      `${local.server}${path}`,
      local.credentials.ca,
      local.credentials.tokens.admin,
      method,
      body === undefined ? undefined : json(body),
    );
  const repo = makeRemote(o.files ?? { 'README.md': '# gitops\n' });
  const store = await openStore('sqlite::memory:');
  try {
    const gitops = o.files && (o.flux ?? true) ? await local.connectGitOps(repo.remote, cluster, '1h') : null;
    await installGpuopsRbac(local.kc);
    const gpuopsKubeconfig = await serviceAccountKubeconfig(issuerOf(local));
    const gpuopsKc = new k8s.KubeConfig();
    gpuopsKc.loadFromString(gpuopsKubeconfig);
    const logs: Record<string, unknown>[] = [];
    const log: Logger = pino(
      { level: 'info' },
      { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
    );
    const workingCopy = await WorkingCopy.open({
      repoUrl: repo.url,
      baseBranch: 'main',
      dir: join(repo.root, 'cache', 'gitops'),
      backoff: { baseMs: 10, maxMs: 50 },
    });
    const clock = {
      now: () => new Date(),
      sleep: (s: number) => new Promise<void>((r) => setTimeout(r, s * 1000)),
    };
    const host = new GitPullRequestHost({
      store,
      cluster,
      base: 'main',
      now: () => new Date(),
      log,
      branchStatus: (b) => workingCopy.branchStatus(b),
    });
    const prometheusUrl = (o.prometheus ?? true) && local.prometheusUrl ? local.prometheusUrl : undefined;
    const cache = o.cache
      ? createClusterCache({
          kc: gpuopsKc,
          client: createKubeClient(gpuopsKc),
          stallSeconds: o.cache.stallSeconds,
          backoff: { baseMs: 200, maxMs: 1000 },
        })
      : null;
    cache?.start();
    if (cache && !(await cache.waitForSync(60))) throw new Error('the cluster cache did not sync in 60 s');
    const { deps } = await compose(
      settingsWith({ repoUrl: repo.url, cluster, ...(prometheusUrl ? { prometheusUrl } : {}) }),
      {
        store,
        kubeConfig: gpuopsKc,
        workingCopy,
        host,
        ...(prometheusUrl ? {} : { metrics: null }),
        ...(cache ? { clusterRead: cacheSource(cache) } : {}),
        clock,
        log,
      },
    );
    const person = new PersonClone(repo);
    return {
      cluster,
      local,
      kc: local.kc,
      gpuopsKc,
      gpuopsKubeconfig,
      repo,
      gitops,
      store,
      deps,
      logs,
      cache,
      pass: () => reconcileOnce(deps),
      merge: (branch) => person.merge(branch),
      push: (files, message) => person.commit('main', files, message),
      file: (ref, path) => remoteFile(repo, ref, path),
      sync: async () => {
        if (!gitops) throw new Error('no GitOps repo connected (pass files)');
        return gitops.reconcile();
      },
      apply: async (obj, fieldManager = 'kubectl') => {
        await kubeObjectApi(local.kc).apply(obj, fieldManager, true);
      },
      get: async <T>(path: string) => {
        const res = await admin(path);
        if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body.slice(0, 300)}`);
        return JSON.parse(res.body) as T;
      },
      pods: async (namespace, selector) => {
        const base = namespace ? `/api/v1/namespaces/${namespace}/pods` : '/api/v1/pods';
        const res = await admin(`${base}${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ''}`);
        return (JSON.parse(res.body) as { items: KubeObject[] }).items;
      },
      addNodes: async (nodes) => {
        for (const n of nodes) {
          const body = kwokNode(n);
          const res = await admin('/api/v1/nodes', 'POST', body);
          if (res.status !== 201) throw new Error(`create node ${n.name}: ${res.status} ${res.body}`);
        }
        // Ready, and the not-ready taint the TaintNodesByCondition admission plugin puts on a new
        // node removed by the node lifecycle controller (until then gpuops counts it unschedulable).
        await until('the new nodes are Ready and untainted', async () => {
          const list = await admin('/api/v1/nodes');
          type N = KubeObject<
            { taints?: { key: string }[] },
            { conditions?: { type: string; status: string }[] }
          >;
          const items = (JSON.parse(list.body) as { items: N[] }).items;
          return nodes.every((n) => {
            const node = items.find((i) => i.metadata.name === n.name);
            const ready = node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
            return ready && !node?.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/not-ready');
          });
        });
      },
      close: async () => {
        await cache?.stop();
        await store.close();
        await local.stop();
        repo.cleanup();
      },
    };
  } catch (err) {
    await store.close();
    await local.stop();
    repo.cleanup();
    throw err;
  }
}

/** Branch names of the remote. */
export function branches(repo: TempRepo): string[] {
  return git(repo.remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')
    .split('\n')
    .filter((b) => b !== '')
    .sort();
}
