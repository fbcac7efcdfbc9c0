/**
 * `startLocalCluster`: the real control plane on loopback with everything gpuops meets on a
 * cluster, for the real-cluster suite, `gpuops demo --real` and `gpuops cluster up`:
 *
 * 1. etcd, kube-apiserver (TLS, RBAC, default admission plugins incl. ResourceQuota),
 *    kube-controller-manager, kube-scheduler (control-plane.ts), credentials in a temp folder;
 * 2. KWOK playing the kubelets of a fleet dump (kwok.ts, fleet.ts), Job pods running for a time;
 * 3. dcgm-exporter pages from the simulator's load model on the real pods, scraped by a real
 *    Prometheus (dcgm-exporters.ts, prometheus.ts);
 *    With `customMetrics`, prometheus-adapter serves them as the custom metrics API the real
 *    HorizontalPodAutoscaler reads (metrics-adapter.ts);
 * 4. Flux's source-controller and kustomize-controller with their CRDs (flux.ts); the GitOps
 *    repository is connected later (`connectGitOps`), served by a local Git HTTP server.
 *
 * Every step that fails throws one line naming it and stops what was started; `stop()` ends every
 * process and removes the temp folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { LoadModel } from '../sim/index.js';
import { CORE, findAssets } from './assets.js';
import * as cp from './control-plane.js';
import { writeCredentials, type Credentials } from './credentials.js';
import { startDcgmExporters, type ApiAccess } from './dcgm-exporters.js';
import { fleetNamespaces, readFleet } from './fleet.js';
import { installFluxCrds, startFluxControllers } from './flux.js';
import { createFleet, startKwok } from './kwok.js';
import { connectGitOps, type GitOpsConnection } from './gitops-connection.js';
import { fail, replaceRunning, type RunningProcess } from './process.js';
import { startPrometheus } from './prometheus.js';
import { ADAPTER_BINARY, startMetricsAdapter } from './metrics-adapter.js';

/** Options of {@link startLocalCluster}. */
export interface LocalClusterOptions {
  /** Folder with `nodes.json` (and `pods.json`) to load; none: no nodes. */
  fleetDir?: string;
  /** Job pods run `seconds / speed` real seconds (see kwok-stages.ts); default 1. */
  speed?: number;
  /** Start Flux's controllers; default true. */
  flux?: boolean;
  /** Start the dcgm-exporter pages and Prometheus; default true. */
  metrics?: boolean;
  /**
   * Serve the GPU metrics as the custom metrics API (prometheus-adapter, registered as an
   * APIService) for the HorizontalPodAutoscaler; needs `metrics`. Default false.
   */
  customMetrics?: boolean;
  /** A fixed API server port (must be free); default any free port. */
  apiServerPort?: number;
  /** Seconds between the HPA controller's syncs; default 15 (kube-controller-manager's). */
  hpaSyncSeconds?: number;
  /** Called with each step's name as it starts. */
  onStep?: (step: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** A running local cluster. */
export interface LocalCluster {
  dir: string;
  /** `https://127.0.0.1:PORT`. */
  server: string;
  credentials: Credentials;
  /** The admin's kubeconfig file (`system:masters`) and loaded form. */
  kubeconfig: string;
  kc: KubeConfig;
  /** What `scripts/k8s/build.sh` recorded in the assets folder. */
  versions: string;
  load: LoadModel;
  /** Prometheus's URL, or null without metrics. */
  prometheusUrl: string | null;
  dcgmUrl: string | null;
  /** Serves `repo` (a bare repository) to Flux and creates the shipped GitRepository and Kustomization. */
  connectGitOps(repo: string, cluster: string, interval?: string): Promise<GitOpsConnection>;
  /**
   * Stops kube-apiserver and starts it again (same port, same etcd); `between` runs while it is
   * down. `graceMs` (default 10 s) is how long SIGTERM's graceful shutdown may take before SIGKILL:
   * during it kube-apiserver holds watch streams open and silent; 0 ends them at once, as a crash.
   */
  restartApiServer(between?: () => Promise<void>, graceMs?: number): Promise<void>;
  /** Compacts etcd to its current revision (see control-plane.ts); returns it. */
  compactEtcd(): Promise<number>;
  stop(): Promise<void>;
}

type Started = { processes: RunningProcess[]; closers: (() => Promise<void>)[] };

async function startControlPlane(
  o: LocalClusterOptions,
  dir: string,
  assets: (b: string) => string,
  started: Started,
): Promise<{ config: cp.ControlPlaneConfig; apiServer: RunningProcess }> {
  const step = o.onStep ?? (() => {});
  const ports = await cp.pickPorts(o.apiServerPort);
  const credentials = writeCredentials(dir, cp.apiServerUrl(ports));
  const config: cp.ControlPlaneConfig = {
    assets,
    dir,
    ports,
    credentials,
    ...(o.hpaSyncSeconds ? { hpaSyncSeconds: o.hpaSyncSeconds } : {}),
  };
  step('etcd');
  started.processes.push(await cp.startEtcd(config));
  step('kube-apiserver');
  const apiServer = await cp.startApiServer(config);
  started.processes.push(apiServer);
  step('kube-controller-manager');
  started.processes.push(await cp.startControllerManager(config));
  step('kube-scheduler');
  started.processes.push(await cp.startScheduler(config));
  return { config, apiServer };
}

/** Starts the cluster (see the module comment). @throws LocalClusterError naming the failed step */
export async function startLocalCluster(o: LocalClusterOptions = {}): Promise<LocalCluster> {
  const found = findAssets(o.env, o.flux === false ? CORE : undefined);
  if (!found.ok)
    fail(
      'assets',
      `${found.missing.join(', ')} not found in ${found.folders.join(' or ')}: run bash scripts/k8s/build.sh`,
    );
  const dir = mkdtempSync(path.join(tmpdir(), 'gpuops-cluster-'));
  const started: Started = { processes: [], closers: [] };
  const stopAll = async () => {
    for (const c of started.closers.reverse()) await c().catch(() => {});
    for (const p of started.processes.reverse()) await p.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return await startRest(o, dir, found, started, stopAll);
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/**
 * The metrics side: one dcgm-exporter page per node (utilisation from `load`), Prometheus scraping
 * them, and with `customMetrics` the prometheus-adapter serving them to the API server (its
 * kubeconfig `adapterKubeconfig`). Every process and page goes into `started`.
 * @throws LocalClusterError when the prometheus-adapter binary is not built
 */
async function startMetrics(
  o: LocalClusterOptions,
  dir: string,
  admin: ApiAccess,
  load: LoadModel,
  adapterKubeconfig: string,
  started: Started,
): Promise<{ prometheusUrl: string; dcgmUrl: string }> {
  const step = o.onStep ?? (() => {});
  step('dcgm-exporter pages');
  const pages = await startDcgmExporters(admin, load);
  started.closers.push(pages.close);
  step('prometheus');
  const prom = await startPrometheus(dir, pages.url);
  started.processes.push(prom.process);
  if (o.customMetrics) {
    step('prometheus-adapter');
    const adapter = findAssets(o.env, [ADAPTER_BINARY]);
    if (!adapter.ok)
      fail(
        'prometheus-adapter',
        `not found in ${adapter.folders.join(' or ')}: run bash scripts/k8s/build.sh`,
      );
    started.processes.push(
      await startMetricsAdapter(adapter.path(ADAPTER_BINARY), dir, adapterKubeconfig, prom.url, admin),
    );
  }
  return { prometheusUrl: prom.url, dcgmUrl: pages.url };
}

async function startRest(
  o: LocalClusterOptions,
  dir: string,
  found: { path: (b: string) => string; crds: string; versions: string },
  started: Started,
  stopAll: () => Promise<void>,
): Promise<LocalCluster> {
  const step = o.onStep ?? (() => {});
  const control = await startControlPlane(o, dir, found.path, started);
  const { config } = control;
  let apiServer = control.apiServer;
  const cr = config.credentials;
  const server = cp.apiServerUrl(config.ports);
  const kc = new KubeConfig();
  kc.loadFromFile(cr.kubeconfigs.admin);
  const admin: ApiAccess = { server, ca: cr.ca, token: cr.tokens.admin };
  step('kwok');
  started.processes.push(await startKwok(found.path, dir, cr.kubeconfigs.kwok, o.speed ?? 1));
  if (o.fleetDir) {
    step('fleet');
    const fleet = readFleet(o.fleetDir);
    await createFleet(admin, { ...fleet, namespaces: fleetNamespaces(fleet.pods) });
  }
  const load = new LoadModel();
  const { prometheusUrl, dcgmUrl } =
    (o.metrics ?? true)
      ? await startMetrics(o, dir, admin, load, cr.kubeconfigs.metricsAdapter, started)
      : { prometheusUrl: null, dcgmUrl: null };
  if (o.flux ?? true) {
    step('flux');
    await installFluxCrds(kc, found.crds);
    started.processes.push(...(await startFluxControllers(found.path, dir, cr.kubeconfigs.flux)).processes);
  }
  return {
    dir,
    server,
    credentials: cr,
    kubeconfig: cr.kubeconfigs.admin,
    kc,
    versions: found.versions,
    load,
    prometheusUrl,
    dcgmUrl,
    connectGitOps: async (repo, cluster, interval = '10s') => {
      const c = await connectGitOps(kc, repo, cluster, interval);
      started.closers.push(c.close);
      return c;
    },
    restartApiServer: async (between, graceMs) => {
      const old = apiServer;
      await old.stop(graceMs);
      await between?.();
      apiServer = await cp.startApiServer(config);
      replaceRunning(started.processes, old, apiServer);
    },
    compactEtcd: () => cp.compactEtcd(config.ports),
    stop: stopAll,
  };
}
