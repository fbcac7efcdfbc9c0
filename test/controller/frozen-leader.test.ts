/**
 * A leader frozen inside a pass (SIGSTOP of a real `startController` process, as a stopped
 * container or a long GC pause) is replaced once its Lease expires; when it wakes, the push it was
 * about to make is refused by the write fence, so Git never has two writers. The Lease is a real
 * `coordination.k8s.io/v1` Lease of the simulated cluster; the pushes go to a real bare repository.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeLeaseApi } from '../../src/cluster/lease.js';
import { startController, type RunningController } from '../../src/controller/run-controller.js';
import { createLeaderFence, NotLeadingError } from '../../src/controller/write-fence.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { git, makeRemote, type TempRepo } from '../gitops/helpers.js';
import { until } from '../support/wait.js';

const CHILD = join(import.meta.dirname, '../support/frozen-leader-child.ts');
let sim: SimCluster | undefined;
let repo: TempRepo | undefined;
let child: ChildProcess | undefined;
let other: RunningController | undefined;
let tmp = '';

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  await other?.stop();
  await sim?.close();
  repo?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  child = other = sim = repo = undefined;
});

/** Lines the child printed so far, and a wait for one that matches. */
function lines(c: ChildProcess): { all: string[]; next(re: RegExp, ms?: number): Promise<string> } {
  const all: string[] = [];
  let buf = '';
  c.stdout!.on('data', (b: Buffer) => {
    buf += b.toString();
    const parts = buf.split('\n');
    buf = parts.pop()!;
    all.push(...parts);
  });
  return {
    all,
    next: (re, ms = 20_000) => until(`a line like ${re}`, () => all.find((l) => re.test(l)), ms),
  };
}

const remoteBranch = (name: string): string | null => {
  try {
    return git(repo!.remote, 'rev-parse', '--verify', '--quiet', `refs/heads/${name}`);
  } catch {
    return null;
  }
};

describe('a leader frozen inside a pass', () => {
  it('wakes after another replica took the Lease, and its push is refused: one writer', async () => {
    sim = await startSimCluster({});
    repo = makeRemote();
    tmp = mkdtempSync(join(tmpdir(), 'gpuops-frozen-'));
    const kubeconfig = join(tmp, 'kubeconfig');
    sim.writeKubeconfig(kubeconfig);
    child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, kubeconfig, repo.url, join(tmp, 'clone-a'), 'replica-a', 'gpuops-frozen'],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: tmp } },
    );
    const a = lines(child);
    // Replica A leads and pushes once, then is frozen inside its second pass, before the push.
    // Its start (a tsx child, a controller, a clone) took over 20 s at load average 33: the wait
    // for its first push is bounded by the test's own timeout, not by a guess at start-up speed.
    await a.next(/^pushed 1$/, 90_000);
    await a.next(/^pass 2$/);
    child.kill('SIGSTOP');
    const frozenAt = Date.now();

    // Replica B (this process) takes the Lease once it expires, and writes.
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const fence = createLeaderFence();
    let bPushes = 0;
    other = await startController({
      identity: 'replica-b',
      leaseApi: kubeLeaseApi(kc, 'gpuops-system', 'gpuops-frozen'),
      leaseDurationSeconds: 2,
      retryPeriodSeconds: 0.2,
      intervalSeconds: 0.1,
      healthPort: 0,
      healthHost: '127.0.0.1',
      fence,
      log: pino({ level: 'silent' }),
      pass: async () => {
        fence.check('push');
        git(repo!.remote, 'branch', '-f', 'gpuops/prod/pools/replica-b', 'main');
        bPushes++;
        return { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };
      },
    });
    await until('B leads and writes', () => bPushes > 0, 15_000);
    expect(Date.now() - frozenAt).toBeGreaterThanOrEqual(1500); // not before A's Lease expired
    const before = remoteBranch('gpuops/prod/pools/replica-a');

    // A wakes inside its pass: its push must be refused, its branch left as it was.
    child.kill('SIGCONT');
    const end = await a.next(/^(pushed|refused) 2/);
    expect(end).toMatch(
      /^refused 2: git push failed \(refused\): push refused: replica-a does not hold the leader Lease/,
    );
    expect(remoteBranch('gpuops/prod/pools/replica-a')).toBe(before);
    expect(other.isLeader()).toBe(true);
    expect(a.all.filter((l) => /^pass /.test(l))).toEqual(['pass 1', 'pass 2']); // no pass after waking
  }, 180_000);

  it('a fence not yet bound to an election refuses every write, naming it', () => {
    const fence = createLeaderFence();
    expect(() => fence.check('push')).toThrow(NotLeadingError);
    let leading = true;
    fence.bind(() => leading, 'replica-x');
    expect(() => fence.check('push')).not.toThrow();
    leading = false;
    expect(() => fence.check('scale of Deployment a/b')).toThrow(
      'scale of Deployment a/b refused: replica-x does not hold the leader Lease',
    );
  });
});
