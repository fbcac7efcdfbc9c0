/**
 * Two real `gpuops run` processes (`node bin/gpuops.js run`) against one simulated cluster:
 * exactly one leads (the Lease read through @kubernetes/client-node and each process's
 * `gpuops_leader` gauge agree); after `kill -9` of the leader the other leads within the lease
 * time; after SIGTERM the leader releases the Lease, exits 0, and the other takes over within one
 * retry period. The GitHub token given in the environment never appears in any log line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/wait.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/gpuops.js');
const LEASE_DURATION = 3;
const RETRY = 0.5;
const LEASE_NS = 'gpuops-system';
const LEASE_NAME = 'gpuops-e2e';
const TOKEN = 'ghp_runProcessTestToken0123456789';

interface Proc {
  identity: string;
  child: ChildProcess;
  lines: string[];
  port: Promise<number>;
  exit: Promise<number | null>;
}

let sim: SimCluster;
let work: string;
let kubeconfig: string;
let repoUrl: string;
let coordination: k8s.CoordinationV1Api;
const procs: Proc[] = [];

function startRun(identity: string): Proc {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'run',
      '--kubeconfig',
      kubeconfig,
      '--cluster',
      'e2e',
      '--repo-url',
      repoUrl,
      '--database',
      `sqlite:${path.join(work, `${identity}.db`)}`,
      '--dry-run',
      '--interval',
      '1',
      '--health-port',
      '0',
      '--lease-namespace',
      LEASE_NS,
      '--lease-name',
      LEASE_NAME,
      '--identity',
      identity,
      '--lease-duration',
      String(LEASE_DURATION),
      '--retry-period',
      String(RETRY),
    ],
    {
      cwd: work,
      env: {
        ...process.env,
        GITHUB_TOKEN: TOKEN,
        POD_NAME: '',
        POD_NAMESPACE: '',
        KUBECONFIG: '',
        // Each replica has its own clone, as each Pod has its own emptyDir: replicas on one
        // machine must not fetch into one clone at once.
        GPUOPS_CACHE_DIR: path.join(work, `cache-${identity}`),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const lines: string[] = [];
  let resolvePort!: (p: number) => void;
  let rejectPort!: (e: Error) => void;
  const port = new Promise<number>((res, rej) => ((resolvePort = res), (rejectPort = rej)));
  let buffered = '';
  const collect = (chunk: Buffer): void => {
    buffered += chunk.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      lines.push(line);
      if (line.includes('"health server listening"'))
        resolvePort((JSON.parse(line) as { port: number }).port);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exit = new Promise<number | null>((r) =>
    child.on('exit', (code) => {
      // A process that dies before it serves health fails the test with its log, never hangs it.
      rejectPort(
        new Error(`${identity} exited (${code}) before serving health:\n${lines.slice(-20).join('\n')}`),
      );
      r(code);
    }),
  );
  port.catch(() => {}); // observed by the test's own awaits
  const p = { identity, child, lines, port, exit };
  procs.push(p);
  return p;
}

/** The exit code, or a failure with the process's last log lines when it does not exit in time. */
async function exited(p: Proc, ms = 30_000): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, rej) => {
    timer = setTimeout(
      () => rej(new Error(`${p.identity} did not exit within ${ms} ms:\n${p.lines.slice(-20).join('\n')}`)),
      ms,
    );
  });
  try {
    return await Promise.race([p.exit, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function holder(): Promise<string | undefined> {
  try {
    const lease = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace: LEASE_NS });
    return lease.spec?.holderIdentity ?? '';
  } catch {
    return undefined;
  }
}

async function lease(): Promise<k8s.V1Lease> {
  return coordination.readNamespacedLease({ name: LEASE_NAME, namespace: LEASE_NS });
}

/** The Lease's times in epoch ms. */
function spec(l: k8s.V1Lease): { renewTime: number; acquireTime: number } {
  return {
    renewTime: new Date(l.spec!.renewTime!).getTime(),
    acquireTime: new Date(l.spec!.acquireTime!).getTime(),
  };
}

/**
 * Waits until `identity` has renewed the Lease `n` more times (time passes as renewals, not as a
 * fixed sleep), checking on each read that it still holds it and running `check`.
 */
async function renewalsBy(identity: string, n: number, check?: () => Promise<void>): Promise<void> {
  const seen = new Set<number>();
  await until(`${n} renewals by ${identity}`, async () => {
    const l = await lease();
    expect(l.spec?.holderIdentity).toBe(identity);
    await check?.();
    seen.add(spec(l).renewTime);
    return seen.size > n;
  });
}

async function leaderGauge(p: Proc): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${await p.port}/metrics`);
  const m = /^gpuops_leader (\S+)$/m.exec(await res.text());
  return m ? Number(m[1]) : Number.NaN;
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-node-1' } }],
  });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-run-'));
  kubeconfig = path.join(work, 'kubeconfig.yaml');
  sim.writeKubeconfig(kubeconfig);
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(kubeconfig);
  coordination = kc.makeApiClient(k8s.CoordinationV1Api);
  // A real (empty) GitOps origin with a main branch, so a wired reconciler can start.
  const seed = path.join(work, 'seed');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main', seed);
  git('-C', seed, 'commit', '-q', '--allow-empty', '-m', 'init');
  git('clone', '-q', '--bare', seed, path.join(work, 'origin.git'));
  repoUrl = `file://${path.join(work, 'origin.git')}`;
});

afterAll(async () => {
  for (const p of procs)
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => p.exit));
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

describe('two gpuops run processes against one simulated cluster', () => {
  it('exactly one leads; kill -9 hands over within the lease time; SIGTERM releases within a retry period', async () => {
    const a = startRun('proc-a');
    const b = startRun('proc-b');
    await Promise.all([a.port, b.port]);
    const first = await until('a leader', async () => {
      const h = await holder();
      return h === 'proc-a' || h === 'proc-b' ? h : undefined;
    });
    const [leader, follower] = first === 'proc-a' ? [a, b] : [b, a];

    // Over five renewals: the Lease and both gauges agree that exactly one leads.
    await until('the leader gauge', async () => (await leaderGauge(leader)) === 1);
    await renewalsBy(leader.identity, 5, async () => {
      expect([await leaderGauge(leader), await leaderGauge(follower)]).toEqual([1, 0]);
    });

    // kill -9: no release; the follower takes over once the Lease has expired.
    leader.child.kill('SIGKILL');
    const lastRenewal = spec(await lease()).renewTime;
    await until('the follower to lead', async () =>
      (await holder()) === follower.identity ? true : undefined,
    );
    // Not before the Lease expired: the follower's acquireTime is at least the lease duration
    // after the dead leader's last renewal (both as the Lease records them).
    const acquired = spec(await lease()).acquireTime;
    expect(acquired - lastRenewal).toBeGreaterThanOrEqual(LEASE_DURATION * 1000);
    await until('the new leader gauge', async () => (await leaderGauge(follower)) === 1);

    // A third replica joins as follower; SIGTERM of the leader hands the Lease over.
    const c = startRun('proc-c');
    await c.port;
    await renewalsBy(follower.identity, 3);
    expect(await holder()).toBe(follower.identity);
    expect(await leaderGauge(c)).toBe(0);

    const renewedBeforeStop = spec(await lease()).renewTime;
    follower.child.kill('SIGTERM');
    await until('proc-c to lead', async () => ((await holder()) === 'proc-c' ? true : undefined));
    expect(await exited(follower)).toBe(0);
    const released = follower.lines
      .map((l) => JSON.parse(l) as { msg: string; time: string })
      .find((l) => l.msg === 'released leader Lease');
    expect(released).toBeDefined();
    // Handed over by the release, not by expiry: proc-c took the Lease before the lease duration
    // since the stopped leader's last renewal had passed.
    expect(spec(await lease()).acquireTime).toBeLessThan(renewedBeforeStop + LEASE_DURATION * 1000);
    expect(follower.lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
    await until('proc-c gauge', async () => (await leaderGauge(c)) === 1);

    c.child.kill('SIGTERM');
    expect(await exited(c)).toBe(0);

    // Structured JSON logs, and the token never written.
    const all = procs.flatMap((p) => p.lines);
    expect(all.length).toBeGreaterThan(10);
    for (const line of all) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(all.join('\n')).not.toContain(TOKEN);
    expect(all.some((l) => l.includes('"githubToken":"[Redacted]"'))).toBe(true);
  }, 240_000);
});
