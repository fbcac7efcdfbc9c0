/**
 * `gpuops cluster up | down | serve`: the real control plane on this machine (src/local-cluster),
 * built by `scripts/k8s/build.sh`.
 *
 * - `up` starts `gpuops cluster serve` in the background, waits until it is ready, and prints the
 *   admin kubeconfig, the GitOps repository Flux applies and the Prometheus URL. One line on
 *   stderr naming the step when something fails, and nothing left running.
 * - `serve` starts the cluster in the foreground, writes the state file, and stops everything
 *   (processes, ports, the temp folder, the state file) on SIGTERM or SIGINT.
 * - `down` stops what `up` started and checks that the process and the folder are gone.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { DEMO_FLEET_DIR, createOrigin, EXAMPLES_DIR } from '../../demo/index.js';
import { startLocalCluster, LocalClusterError } from '../../local-cluster/index.js';
import { sleep } from '../../retry/index.js';

/** What `serve` writes once ready (and `down` reads). */
interface ClusterState {
  pid: number;
  dir: string;
  kubeconfig: string;
  server: string;
  repo: string;
  repoUrl: string;
  prometheus: string | null;
  versions: string;
  error?: string;
}

const defaultState = () => path.join(homedir(), '.cache', 'gpuops', 'cluster', 'state.json');
const readState = (file: string): ClusterState | null =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClusterState) : null;
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function serve(stateFile: string, fleet: string): Promise<void> {
  mkdirSync(path.dirname(stateFile), { recursive: true });
  let cluster;
  try {
    cluster = await startLocalCluster({
      fleetDir: fleet,
      // An operator trying `engine: hpa` on the local cluster needs the custom metrics API its
      // HorizontalPodAutoscaler reads; scripts/k8s/build.sh builds prometheus-adapter with the rest.
      customMetrics: true,
      onStep: (s) => process.stderr.write(`cluster up: ${s}\n`),
    });
  } catch (err) {
    const message = err instanceof LocalClusterError ? err.message : `cluster up: ${(err as Error).message}`;
    writeFileSync(stateFile, JSON.stringify({ pid: process.pid, error: message }));
    process.exitCode = 1;
    return;
  }
  const repo = path.join(cluster.dir, 'git', 'gitops.git');
  try {
    await createOrigin(repo, EXAMPLES_DIR);
    const gitops = await cluster.connectGitOps(repo, 'local');
    const state: ClusterState = {
      pid: process.pid,
      dir: cluster.dir,
      kubeconfig: cluster.kubeconfig,
      server: cluster.server,
      repo,
      repoUrl: gitops.url,
      prometheus: cluster.prometheusUrl,
      versions: cluster.versions,
    };
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
  } catch (err) {
    await cluster.stop();
    writeFileSync(
      stateFile,
      JSON.stringify({ pid: process.pid, error: `cluster up: gitops: ${(err as Error).message}` }),
    );
    process.exitCode = 1;
    return;
  }
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await cluster.stop();
  rmSync(stateFile, { force: true });
}

async function up(stateFile: string, fleet: string): Promise<void> {
  const running = readState(stateFile);
  if (running && !running.error && alive(running.pid)) {
    process.stdout.write(
      `a local cluster is already running (pid ${running.pid}): KUBECONFIG=${running.kubeconfig}\n`,
    );
    return;
  }
  rmSync(stateFile, { force: true });
  mkdirSync(path.dirname(stateFile), { recursive: true });
  const log = path.join(path.dirname(stateFile), 'serve.log');
  const out = openSync(log, 'w');
  const child = spawn(
    process.execPath,
    [...process.execArgv, process.argv[1]!, 'cluster', 'serve', '--state', stateFile, '--fleet', fleet],
    {
      detached: true,
      stdio: ['ignore', out, out],
    },
  );
  closeSync(out);
  child.unref();
  for (;;) {
    const state = readState(stateFile);
    if (state?.error) {
      process.stderr.write(`${state.error}\n`);
      rmSync(stateFile, { force: true });
      process.exitCode = 1;
      return;
    }
    if (state) {
      process.stdout.write(
        `local cluster up (${state.versions.split('\n').join(', ')})\n` +
          `export KUBECONFIG=${state.kubeconfig}\n` +
          `API server: ${state.server}\nGitOps repository Flux applies (clusters/local): ${state.repo} (served at ${state.repoUrl})\n` +
          `Prometheus: ${state.prometheus} (served to the HorizontalPodAutoscaler as custom.metrics.k8s.io by prometheus-adapter)\nStop it with: npm run cluster:down\n`,
      );
      return;
    }
    if (child.exitCode !== null || !alive(child.pid!)) {
      process.stderr.write(`cluster up: the cluster process ended before it was ready (log: ${log})\n`);
      process.exitCode = 1;
      return;
    }
    await sleep(250);
  }
}

async function down(stateFile: string): Promise<void> {
  const state = readState(stateFile);
  if (!state) {
    process.stdout.write(`no local cluster is running (no ${stateFile})\n`);
    return;
  }
  if (alive(state.pid)) process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 90_000;
  while (alive(state.pid) && Date.now() < deadline) await sleep(200);
  if (alive(state.pid)) {
    process.stderr.write(`cluster down: process ${state.pid} did not stop within 90 s\n`);
    process.exitCode = 1;
    return;
  }
  if (state.dir) rmSync(state.dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
  process.stdout.write('local cluster stopped: no process, port or temp folder left\n');
}

/** Registers `gpuops cluster up|down|serve`. */
export function register(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('the real Kubernetes control plane on this machine (see scripts/k8s/build.sh)');
  const stateOption = ['--state <file>', 'state file of the running cluster', defaultState()] as const;
  cluster
    .command('up')
    .description('start the control plane, KWOK with the demo fleet, Prometheus and Flux; print a kubeconfig')
    .option(...stateOption)
    .option('--fleet <dir>', 'folder with nodes.json and pods.json', DEMO_FLEET_DIR)
    .action((f: { state: string; fleet: string }) => up(f.state, f.fleet));
  cluster
    .command('serve')
    .description('run the local cluster in the foreground (what `up` starts)')
    .option(...stateOption)
    .option('--fleet <dir>', 'folder with nodes.json and pods.json', DEMO_FLEET_DIR)
    .action((f: { state: string; fleet: string }) => serve(f.state, f.fleet));
  cluster
    .command('down')
    .description('stop the local cluster that `up` started')
    .option(...stateOption)
    .action((f: { state: string }) => down(f.state));
}
