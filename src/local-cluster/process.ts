/**
 * One process of the local cluster (etcd, kube-apiserver, KWOK, a Flux controller, Prometheus):
 * spawned with its output in a log file, waited for until a readiness probe answers, stopped with
 * SIGTERM (SIGKILL after a grace period). Every failure is one line that names the step
 * (`cluster up: kube-apiserver: ...`): a port already in use (checked before the spawn), a binary
 * that is missing or exits before it is ready (with the last line of its log that says why), a
 * probe that never answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { sleep } from '../retry/index.js';

/** A failure of `cluster up` / `down`: its message is the one line to show. */
export class LocalClusterError extends Error {
  override name = 'LocalClusterError';
}

/** Throws a {@link LocalClusterError} `cluster up: <step>: <message>`. */
export function fail(step: string, message: string): never {
  throw new LocalClusterError(`cluster up: ${step}: ${message}`);
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Puts `next` in the place of `old` in the list of processes `stop` ends, so a process started
 * again (kube-apiserver after `restartApiServer`) is stopped with the rest, however often it was
 * restarted. Throws a {@link LocalClusterError} when `old` is not in the list: the new process
 * would otherwise outlive the cluster.
 */
export function replaceRunning(processes: RunningProcess[], old: RunningProcess, next: RunningProcess): void {
  const slot = processes.indexOf(old);
  if (slot < 0)
    throw new LocalClusterError(
      `cluster: ${next.name}: the process it replaces is not in the cluster's list`,
    );
  processes[slot] = next;
}

/** Whether 127.0.0.1:`port` can be bound now. */
export async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * Every process started and not yet exited: killed (SIGKILL) when this Node process exits or is
 * ended by SIGTERM/SIGINT/SIGHUP without stopping them, so a killed test worker or `cluster serve`
 * leaves no etcd or kube-apiserver running behind it.
 */
const children = new Set<ChildProcess>();
let exitHooked = false;
function killChildrenOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const c of children) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      killAll();
      // The default action, once the children are gone: end with the signal's code.
      if (process.listenerCount(signal) === 0)
        process.exit(128 + (signal === 'SIGHUP' ? 1 : signal === 'SIGINT' ? 2 : 15));
    });
}

/** What {@link startProcess} starts. */
export interface ProcessSpec {
  /** Step name in messages, e.g. `kube-apiserver`. */
  name: string;
  bin: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Output (stdout and stderr) goes here. */
  logFile: string;
  /** Ports the process listens on: each must be free before it starts. */
  ports: number[];
  /** Resolves true once the process serves; errors count as "not yet". */
  ready: () => Promise<boolean>;
  /** How long to wait for `ready` (ms); default 60 s. */
  timeoutMs?: number;
}

/** A started process. */
export interface RunningProcess {
  readonly name: string;
  readonly pid: number;
  /** Null while it runs; its exit code (or signal name) once it ended. */
  exit(): string | null;
  /** SIGTERM, then SIGKILL after `graceMs` (default 10 s); resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/** The last line of a log that reads like the reason a process stopped (an error line, else the last). */
export function reasonFromLog(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const error = [...lines].reverse().find((l) => /\b(error|fatal|failed|panic|refused|in use)\b/i.test(l));
  const line = error ?? lines.at(-1) ?? '(no output)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/**
 * Starts a process and waits until `ready()` answers true.
 * @throws LocalClusterError naming `spec.name` when a port is in use, the binary is missing, the
 *   process exits before it is ready, or it is not ready within the timeout (the process is stopped)
 */
export async function startProcess(spec: ProcessSpec): Promise<RunningProcess> {
  if (!existsSync(spec.bin)) fail(spec.name, `${spec.bin} not found (build it with scripts/k8s/build.sh)`);
  for (const port of spec.ports) {
    if (!(await portIsFree(port))) fail(spec.name, `port 127.0.0.1:${port} is already in use`);
  }
  const out = openSync(spec.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(spec.bin, spec.args, {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', out, out],
    });
  } finally {
    closeSync(out);
  }
  killChildrenOnExit();
  children.add(child);
  let exit: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ?? String(code);
      children.delete(child);
      resolve();
    });
    child.once('error', (err) => {
      exit = err.message;
      resolve();
    });
  });
  const running: RunningProcess = {
    name: spec.name,
    pid: child.pid ?? -1,
    exit: () => exit,
    stop: async (graceMs = 10_000) => {
      if (exit !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  const deadline = Date.now() + (spec.timeoutMs ?? 60_000);
  for (;;) {
    if (exit !== null) {
      const log = existsSync(spec.logFile) ? readFileSync(spec.logFile, 'utf8') : '';
      fail(spec.name, `exited (${exit}) before it was ready: ${reasonFromLog(log)} (log: ${spec.logFile})`);
    }
    if (await spec.ready().catch(() => false)) return running;
    if (Date.now() > deadline) {
      await running.stop(2000);
      fail(
        spec.name,
        `not ready after ${Math.round((spec.timeoutMs ?? 60_000) / 1000)} s (log: ${spec.logFile})`,
      );
    }
    await sleep(200);
  }
}
