/**
 * A whole gpuops installation for integration tests of the reconcile pass, every part real and on
 * loopback: the simulated cluster over HTTP (with its controllers, dcgm-exporter pages and a
 * load model), a temporary bare GitOps repo with a working copy, a pull-request host (`git`, or
 * `github` against the fake GitHub), an in-memory SQLite store, and `reconcileOnce` wired to them
 * by `cli/compose.ts` (the composition `gpuops reconcile` uses).
 *
 * It also plays the people and the GitOps agent around gpuops: `merge(branch)` merges a gpuops
 * branch into `main` as a person would, `push(files)` commits to `main`, and `sync()` applies
 * `clusters/<cluster>/` at `main` to the simulated cluster as Argo CD would (`applyGitOpsFolder`).
 */
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { pino, type Logger } from 'pino';
import type { RunnerClock } from '../../src/benchmark/clock.js';
import type { StandbyPodsOptions } from '../../src/cluster/standby-pods.js';
import { compose } from '../../src/compose/compose.js';
import { settingsWith } from '../../src/config/settings.js';
import { reconcileOnce, type PassResult, type ReconcileDeps } from '../../src/pass/reconcile.js';
import { storeLedger } from '../../src/working-copy/commit-ledger.js';
import { GitHubHost } from '../../src/git-hosts/github-host.js';
import { GitPullRequestHost } from '../../src/git-hosts/git-host.js';
import type { PullRequestHost } from '../../src/git-hosts/pr-host.js';
import { WorkingCopy } from '../../src/working-copy/working-copy.js';
import { applyGitOpsFolder } from '../../src/gitops-apply/index.js';
import type { ApplySummary } from '../../src/gitops-apply/types.js';
import type { UtilizationSource } from '../../src/metrics/types.js';
import { defaultControllers, type SimBehaviourConfig } from '../../src/sim/controllers/index.js';
import { dcgmRoute } from '../../src/sim/dcgm/route.js';
import { startSimCluster, type KubeObject, type SimCluster } from '../../src/sim/index.js';
import { LoadModel } from '../../src/sim/load-model.js';
import { openStore, type Store } from '../../src/store/index.js';
import { git, makeRemote, PersonClone, remoteFile, remoteRef, type TempRepo } from '../gitops/helpers.js';
import type { FakeGitHub } from './github-server.js';

/** A GPU node for the simulated cluster: `gpus` A100s, plenty of CPU and memory, optional pool label. */
export function gpuNode(name: string, gpus: number, pool: string | null = null): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-80GB',
        'nvidia.com/gpu.count': String(gpus),
        ...(pool ? { 'gpuops.dev/pool': pool } : {}),
      },
    },
    spec: {},
    status: {
      capacity: { cpu: '64', memory: '512Gi', pods: '110', 'nvidia.com/gpu': String(gpus) },
      allocatable: { cpu: '64', memory: '512Gi', pods: '110', 'nvidia.com/gpu': String(gpus) },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  };
}

/** An Algorithm file (`algorithms/<name>.yaml`) with 1 GPU, one benchmark run of `benchSeconds` in the simulator. */
export function algorithmFile(
  name: string,
  o: { benchSeconds?: number; pool?: 'auto' | 'long-task' | 'short-task'; maxReplicas?: number } = {},
): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata:',
    `  name: ${name}`,
    '  namespace: algorithms',
    'spec:',
    `  image: registry.example.com/ml/${name}:1.0.0`,
    '  command: [python, serve.py]',
    '  args: [--port=8080]',
    '  resources: {gpus: 1, cpu: "2", memory: 8Gi}',
    '  benchmark:',
    `    args: [--bench, --sim-duration=${o.benchSeconds ?? 60}]`,
    '    runs: 1',
    '    timeoutSeconds: 3600',
    '  scaling:',
    '    minReplicas: 1',
    `    maxReplicas: ${o.maxReplicas ?? 6}`,
    '    utilization: {min: 30, max: 80}',
    `  placement: {pool: ${o.pool ?? 'auto'}}`,
    '',
  ].join('\n');
}

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  /** Files of the GitOps repo's first commit on `main`. */
  files: Record<string, string>;
  nodes: KubeObject[];
  /** Pods already running (a dump's), as the simulator loads them. */
  pods?: KubeObject[];
  /** Cluster name (folder under `clusters/`); default `prod`. */
  cluster?: string;
  /** Pull-request host; `github` needs `github`. Default `git`. */
  provider?: 'git' | 'github';
  github?: FakeGitHub;
  /** The simulator's load model (drives the dcgm pages); a fresh one by default. */
  load?: LoadModel;
  /** More behaviour settings of the simulated cluster. */
  behaviour?: SimBehaviourConfig;
  /** The utilisation source of the pass; none (no data) by default. Set later with `setMetrics`. */
  metrics?: UtilizationSource | null;
  /**
   * Run gpuops as its ServiceAccount (`gpuops-system/gpuops`, a bearer token) on a simulated
   * cluster that enforces RBAC and NamespaceLifecycle; the person and Argo CD (`sync`) stay admin.
   */
  asServiceAccount?: boolean;
  /** The standby pods adapter's options (the runtime's wake address). */
  standbyPods?: StandbyPodsOptions;
  /** Simulated seconds per real second (default 1); tiny values all but stop the clock between `advance` calls. */
  speed?: number;
}

/** A running installation; see the module comment. */
export interface Harness {
  cluster: string;
  sim: SimCluster;
  /** The admin's (Argo CD's) access. */
  kc: k8s.KubeConfig;
  /** gpuops's access: the ServiceAccount's with `asServiceAccount`, else the admin's. */
  gpuopsKc: k8s.KubeConfig;
  repo: TempRepo;
  store: Store;
  workingCopy: WorkingCopy;
  host: PullRequestHost;
  load: LoadModel;
  deps: ReconcileDeps;
  /** Log lines (JSON objects) the pass wrote. */
  logs: Record<string, unknown>[];
  /** One reconcile pass. */
  pass(): Promise<PassResult>;
  setMetrics(source: UtilizationSource | null): void;
  /** A file at a ref of the remote (`main`, `gpuops/prod/pools`, a commit), or null. */
  file(ref: string, path: string): string | null;
  /** The commit a branch of the remote points at, or null. */
  ref(branch: string): string | null;
  /** Branch names of the remote. */
  branches(): string[];
  /** Merges a branch into `main` (a merge commit, as GitHub's merge button) and pushes. */
  merge(branch: string): string;
  /** A person's commit on `main`. */
  push(files: Record<string, string>, message?: string): string;
  /** Argo CD: applies `clusters/<cluster>/` at `main` to the simulated cluster. */
  sync(): Promise<ApplySummary>;
  /** Lets the simulator's controllers run (pending writes settle). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** The runner's clock is the simulator's: a benchmark's wait advances simulated time at once. */
function simClock(sim: SimCluster): RunnerClock {
  return {
    now: () => sim.clock.now(),
    sleep: async (seconds) => {
      sim.clock.advance(seconds);
      await new Promise((r) => setImmediate(r));
    },
  };
}

/** Starts every part; close it in `afterAll`. */
export async function startHarness(opts: HarnessOptions): Promise<Harness> {
  const cluster = opts.cluster ?? 'prod';
  const load = opts.load ?? new LoadModel();
  // The dcgm route reads the cluster at request time, so it can be made before the cluster starts.
  const started: { sim?: SimCluster } = {};
  const simCluster = await startSimCluster({
    nodes: opts.nodes,
    ...(opts.pods ? { pods: opts.pods } : {}),
    controllers: defaultControllers({ ...opts.behaviour, loadModel: load }),
    routes: [dcgmRoute(() => started.sim, load)],
    ...(opts.asServiceAccount ? { rbac: true, namespaceLifecycle: true } : {}),
    ...(opts.speed === undefined ? {} : { speed: opts.speed }),
  });
  started.sim = simCluster;
  const kc = new k8s.KubeConfig();
  kc.loadFromString(simCluster.kubeconfig());
  const gpuopsKc = new k8s.KubeConfig();
  gpuopsKc.loadFromString(
    simCluster.rbac
      ? simCluster.kubeconfigWithToken(simCluster.rbac.issueToken('gpuops-system', 'gpuops'))
      : simCluster.kubeconfig(),
  );
  const repo = makeRemote(opts.files);
  const store = await openStore('sqlite::memory:');
  const logs: Record<string, unknown>[] = [];
  const log: Logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const clock = simClock(simCluster);
  const workingCopy = await WorkingCopy.open({
    repoUrl: repo.url,
    baseBranch: 'main',
    dir: join(repo.root, 'cache', 'gitops'),
    backoff: { baseMs: 10, maxMs: 50 },
    // As compose wires it: gpuops's pushed commits are recorded in the Store.
    ledger: storeLedger(store),
  });
  let host: PullRequestHost;
  if ((opts.provider ?? 'git') === 'github') {
    if (!opts.github) throw new Error('startHarness: provider github needs the fake GitHub');
    host = new GitHubHost({
      owner: opts.github.owner,
      repo: opts.github.repo,
      base: 'main',
      cluster,
      token: opts.github.token,
      baseUrl: opts.github.url,
      msPerSecond: 1,
      pacing: false,
      log,
    });
  } else {
    host = new GitPullRequestHost({
      store,
      cluster,
      base: 'main',
      now: () => clock.now(),
      log,
      branchStatus: (branch) => workingCopy.branchStatus(branch),
    });
  }
  // The same composition as `gpuops reconcile`, with the harness's own parts.
  const { deps } = await compose(settingsWith({ repoUrl: repo.url, cluster }), {
    store,
    kubeConfig: gpuopsKc,
    workingCopy,
    host,
    metrics: opts.metrics ?? null,
    clock,
    log,
    ...(opts.standbyPods ? { standbyPods: opts.standbyPods } : {}),
  });
  const person = new PersonClone(repo);
  // Runs the simulator's controllers now, round after round until nothing changes (no fixed sleep).
  const settle = async (): Promise<void> => simCluster.clock.advance(0);

  return {
    cluster,
    sim: simCluster,
    kc,
    gpuopsKc,
    repo,
    store,
    workingCopy,
    host,
    load,
    deps,
    logs,
    pass: () => reconcileOnce(deps),
    setMetrics: (source) => {
      deps.metrics = source;
    },
    file: (ref, path) => remoteFile(repo, ref, path),
    ref: (branch) => remoteRef(repo, branch),
    branches: () =>
      git(repo.remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/')
        .split('\n')
        .filter((b) => b !== '')
        .sort(),
    merge: (branch) => person.merge(branch),
    push: (files, message) => person.commit('main', files, message),
    sync: async () => {
      git(person.dir, 'fetch', '-q', 'origin');
      git(person.dir, 'checkout', '-q', '-B', 'main', 'origin/main');
      const summary = await applyGitOpsFolder(kc, join(person.dir, 'clusters', cluster));
      await settle();
      return summary;
    },
    settle,
    close: async () => {
      await store.close();
      await simCluster.close();
      repo.cleanup();
    },
  };
}
