/**
 * The demo's simulated cluster: the mixed fleet of `test/fixtures/cluster-mixed` (11 GPU nodes
 * with the traps real clusters have, each documented in its README, with stable names a
 * newcomer can look up), the default controllers (scheduler, kubelet, Job, Deployment), a load
 * model the demo raises and lowers, and the dcgm-exporter pages gpuops scrapes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import {
  defaultControllers,
  dcgmRoute,
  LoadModel,
  startSimCluster,
  type SimCluster,
  nodeGpuCount,
} from '../sim/index.js';

/** The fleet the demo starts from (`kubectl get nodes/pods -o json` dumps). */
export const DEMO_FLEET_DIR = fileURLToPath(new URL('../../test/fixtures/cluster-mixed/', import.meta.url));

/** A running demo cluster. */
export interface DemoCluster {
  sim: SimCluster;
  load: LoadModel;
  kubeConfig: KubeConfig;
  /** One dcgm-exporter page per GPU node: `{ url, node }`. */
  dcgmTargets: { url: string; node: string }[];
  close(): Promise<void>;
}

/** Options of {@link startDemoCluster}. */
export interface DemoClusterOptions {
  /** Simulated seconds per real second. */
  speed: number;
  /** Folder with `nodes.json` and `pods.json`; default {@link DEMO_FLEET_DIR}. */
  fleetDir?: string;
}

/**
 * Starts the simulated cluster on 127.0.0.1 (a free port).
 * @throws Error naming the file when a dump cannot be read, or when the cluster cannot start
 */
export async function startDemoCluster(options: DemoClusterOptions): Promise<DemoCluster> {
  const dir = options.fleetDir ?? DEMO_FLEET_DIR;
  const read = (file: string): unknown => {
    const p = `${dir.replace(/\/$/, '')}/${file}`;
    try {
      return JSON.parse(readFileSync(p, 'utf8')) as unknown;
    } catch (err) {
      throw new Error(`${p}: cannot read the fleet dump: ${(err as Error).message}`);
    }
  };
  const load = new LoadModel();
  // The route reads the cluster at request time, after `sim` is set.
  const sim: SimCluster = await startSimCluster({
    nodes: read('nodes.json'),
    pods: read('pods.json'),
    controllers: defaultControllers({ loadModel: load }),
    routes: [dcgmRoute(() => sim, load)],
    speed: options.speed,
    tickMs: 50,
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(sim.kubeconfig());
  const dcgmTargets = sim.store
    .list('nodes')
    .filter((n) => nodeGpuCount(n) > 0)
    .map((n) => ({
      url: `${sim.url}/dcgm/${encodeURIComponent(n.metadata.name)}/metrics`,
      node: n.metadata.name,
    }));
  return { sim, load, kubeConfig, dcgmTargets, close: () => sim.close() };
}
