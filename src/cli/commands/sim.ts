import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  ADMIN_TOKEN,
  randomToken,
  defaultControllers,
  nodeGpuCount,
  dcgmRoute,
  generateFleet,
  LoadModel,
  startSimCluster,
  isLoopbackAddress,
  listItems,
} from '../../sim/index.js';

interface SimFlags {
  nodes?: string;
  pods?: string;
  gpuNodes?: number;
  speed: number;
  port: number;
  host: string;
  token?: string;
  allowedHost: string[];
  kubeconfig: string;
  load: [string, number][];
}

/**
 * One `--load ALGORITHM=PERCENT` (repeatable): the algorithm's offered load in GPU-percent (100 is
 * one GPU fully busy; see LoadModel), added to the ones before.
 */
function loadSetting(value: string, previous: [string, number][]): [string, number][] {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)=(\d+(\.\d+)?)$/.exec(value);
  if (!m)
    throw new InvalidArgumentError(`expected ALGORITHM=PERCENT (e.g. resnet50-infer=250), got "${value}"`);
  return [...previous, [m[1]!, Number(m[3])]];
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return n;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function tokenValue(value: string): string {
  if (!/^[\x21-\x7e]+$/.test(value))
    throw new InvalidArgumentError('expected printable ASCII without spaces, not empty');
  return value;
}

function count(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError(`expected an integer >= 0, got "${value}"`);
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`expected a port 0..65535, got "${value}"`);
  return n;
}

/** Reads a JSON dump (`kubectl get ... -o json`). @throws Error naming the file */
function readDump(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`${path}: cannot read: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(
      `${path}: not JSON (expected \`kubectl get ... -o json\` output): ${(err as Error).message}`,
    );
  }
}

/**
 * Registers `gpuops sim [--nodes FILE --pods FILE] [--gpu-nodes N] [--speed X] [--port P]
 * [--host H] [--token T] [--allowed-host NAME…] [--kubeconfig OUT] [--load ALGORITHM=PERCENT…]`:
 * starts the simulated cluster with the dcgm-exporter page of every GPU node
 * (`/dcgm/<node>/metrics`, and `/dcgm/targets` for Prometheus HTTP service discovery; utilisation
 * from the `--load` settings, see LoadModel), writes its kubeconfig (mode 0600, with the admin
 * token every API request must carry), prints the URLs (and `export GPUOPS_DCGM_URL=…` for
 * `gpuops reconcile`/`run`), and runs until SIGINT/SIGTERM. The token is `gpuops-sim` on a
 * loopback address and a random one on any other, where a warning says the API is reachable from
 * other machines over plain HTTP (`--token`/`GPUOPS_SIM_TOKEN` chooses it). Exit 2 on bad flags
 * or unreadable dumps, 1 when it cannot listen.
 */
export function register(program: Command): void {
  program
    .command('sim')
    .description('run a simulated Kubernetes cluster (API server on loopback) for demos and tests')
    .option('--nodes <file>', 'a NodeList dump (`kubectl get nodes -o json`)')
    .option('--pods <file>', 'a PodList dump (`kubectl get pods -A -o json`)')
    .option('--gpu-nodes <n>', 'generate a mixed fleet with N GPU nodes instead of reading dumps', count)
    .option('--speed <x>', 'simulated seconds per real second', positiveNumber, 1)
    .option('--port <port>', 'listen port (0: a free one)', portNumber, 0)
    .option(
      '--host <host>',
      'listen address (a non-loopback one is reachable from other machines)',
      '127.0.0.1',
    )
    .addOption(
      new Option(
        '--token <token>',
        'the admin bearer token the kubeconfig holds (default: gpuops-sim on loopback, random otherwise)',
      )
        .env('GPUOPS_SIM_TOKEN')
        .argParser(tokenValue),
    )
    .option(
      '--allowed-host <name>',
      'a host name to answer beside the listen addresses (other Host headers get 403: DNS rebinding); repeatable',
      collect,
      [],
    )
    .option('--kubeconfig <file>', 'where to write the kubeconfig', 'gpuops-sim.kubeconfig')
    .option(
      '--load <algorithm=percent>',
      "an algorithm's offered load in GPU-percent (100 = one GPU busy), shown on the dcgm-exporter pages; repeatable",
      loadSetting,
      [],
    )
    .action(runSim);
}

/** The Nodes and Pods to start with: a generated fleet or the dumps. @throws Error on a bad combination or dump */
function simObjects(flags: SimFlags): { nodes: unknown; pods: unknown } {
  if (flags.gpuNodes !== undefined) {
    if (flags.nodes || flags.pods) throw new Error('--gpu-nodes cannot be combined with --nodes/--pods');
    return generateFleet({ gpuNodes: flags.gpuNodes });
  }
  return {
    nodes: flags.nodes ? listItems(readDump(flags.nodes), flags.nodes) : undefined,
    pods: flags.pods ? listItems(readDump(flags.pods), flags.pods) : undefined,
  };
}

/** Writes the kubeconfig and prints where the API server and the dcgm-exporter pages are. */
function announce(sim: SimCluster, flags: SimFlags, controllerCount: number): void {
  const kubeconfig = resolve(flags.kubeconfig);
  sim.writeKubeconfig(kubeconfig);
  const nodeCount = sim.store.list('nodes').length;
  const podCount = sim.store.list('pods').length;
  const url = sim.url;
  const pages = sim.store
    .list('nodes')
    .filter((n) => nodeGpuCount(n) > 0)
    .map((n) => `${url}/dcgm/${encodeURIComponent(n.metadata.name)}/metrics`);
  const loads = flags.load.map(([a, p]) => `${a}=${p}`).join(' ');
  process.stdout.write(
    `gpuops sim: serving the Kubernetes API at ${url} (${nodeCount} nodes, ${podCount} pods, ` +
      `speed ${flags.speed}x, ${controllerCount} controllers)\n` +
      `kubeconfig: ${kubeconfig} (TLS at ${sim.tlsUrl}, the admin token in it)\n  export KUBECONFIG=${kubeconfig}\n` +
      `dcgm-exporter pages: ${url}/dcgm/<node>/metrics for ${pages.length} GPU ${pages.length === 1 ? 'node' : 'nodes'}` +
      ` (Prometheus http_sd_configs: ${url}/dcgm/targets); offered load: ${loads || 'none (0 % on every algorithm)'}\n` +
      (pages.length > 0 ? `  export GPUOPS_DCGM_URL="${pages.join(' ')}"\n` : '') +
      `press Ctrl-C to stop\n`,
  );
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilSignal(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

type SimCluster = Awaited<ReturnType<typeof startSimCluster>>;

/** The `sim` command's action: see {@link register}. */
async function runSim(flags: SimFlags): Promise<void> {
  let objects: { nodes: unknown; pods: unknown };
  try {
    objects = simObjects(flags);
  } catch (err) {
    process.stderr.write(`gpuops sim: ${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const { nodes, pods } = objects;
  const load = new LoadModel();
  for (const [algorithm, percent] of flags.load) load.setLoad(algorithm, percent);
  const controllers = defaultControllers({ loadModel: load });
  let sim: SimCluster | undefined;
  try {
    sim = await startSimCluster({
      nodes,
      pods,
      controllers,
      // The route reads the cluster at request time, once `sim` is set.
      routes: [dcgmRoute(() => sim, load)],
      speed: flags.speed,
      port: flags.port,
      host: flags.host,
      token: flags.token ?? (isLoopbackAddress(flags.host) ? ADMIN_TOKEN : randomToken()),
      allowedHosts: flags.allowedHost,
    });
  } catch (err) {
    process.stderr.write(`gpuops sim: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  for (const warning of sim.loadErrors) process.stderr.write(`gpuops sim: warning: ${warning}\n`);
  if (!isLoopbackAddress(new URL(sim.url).hostname))
    process.stderr.write(
      `gpuops sim: warning: listening on ${flags.host}, not a loopback address: other machines can ` +
        `reach this API server (plain HTTP, and TLS with a self-signed certificate); every API ` +
        `request needs the admin token in the kubeconfig` +
        `${flags.token === undefined ? ' (a random one for this run)' : ''}\n`,
    );
  announce(sim, flags, controllers.length);
  await untilSignal();
  await sim.close();
  process.stdout.write('gpuops sim: stopped\n');
}
