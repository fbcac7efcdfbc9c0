/**
 * Two `gpuops run` replicas on the real Lease API (coordination.k8s.io/v1, in gpuops-system, with
 * the shipped Role): one holds the Lease and passes; the other follows and writes nothing; killed
 * without a release (SIGKILL), the leader's Lease expires and the other replica takes it over and
 * passes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const BIN = path.join(import.meta.dirname, '../../bin/gpuops.js');

interface Replica {
  id: string;
  child: ChildProcess;
  lines: Record<string, unknown>[];
}

let h: RealHarness;
let dir: string;
const replicas: Replica[] = [];

function startReplica(id: string, kubeconfig: string): Replica {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'run',
      '--kubeconfig',
      kubeconfig,
      '--repo-url',
      h.repo.url,
      '--cluster',
      'prod',
      '--database',
      `sqlite:${path.join(dir, `${id}.db`)}`,
      '--interval',
      '2',
      '--lease-duration',
      '4',
      '--retry-period',
      '1',
      '--identity',
      id,
      '--health-port',
      '0',
    ],
    { env: { ...process.env, GPUOPS_CACHE_DIR: path.join(dir, id) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const r: Replica = { id, child, lines: [] };
  let buf = '';
  // gpuops logs JSON lines on standard error.
  child.stderr!.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        r.lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
  });
  replicas.push(r);
  return r;
}

const passes = (r: Replica) => r.lines.filter((l) => l.msg === 'reconcile pass').length;
type Lease = { spec: { holderIdentity?: string; leaseTransitions?: number } };
const lease = () => h.get<Lease>('/apis/coordination.k8s.io/v1/namespaces/gpuops-system/leases/gpuops-prod');

describeReal(
  'two gpuops replicas on a real Lease',
  () => {
    beforeAll(async () => {
      h = await startRealHarness({
        files: { 'README.md': '# gitops\n', 'algorithms/serve.yaml': algorithmFile('serve') },
        flux: false,
        metrics: false,
      });
      await h.addNodes([{ name: 'gpu-a', gpus: 1 }]);
      dir = mkdtempSync(path.join(tmpdir(), 'gpuops-lease-'));
      writeFileSync(path.join(dir, 'kubeconfig'), h.gpuopsKubeconfig);
    });
    afterAll(async () => {
      const running = replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
      const exited = running.map((r) => new Promise((res) => r.child.once('exit', res)));
      for (const r of running) r.child.kill('SIGKILL');
      await Promise.all(exited);
      if (dir) rmSync(dir, { recursive: true, force: true });
      await h?.close();
    });

    it('one leads and passes, the other follows; killed, the leader is replaced within the lease duration', async () => {
      const kubeconfig = path.join(dir, 'kubeconfig');
      const [a, b] = [startReplica('replica-a', kubeconfig), startReplica('replica-b', kubeconfig)];
      const holder = await until(
        'a replica holds the Lease',
        async () => (await lease()).spec.holderIdentity || undefined,
        90_000,
      );
      const leader = holder === a.id ? a : b;
      const follower = leader === a ? b : a;
      await until('the leader passed twice', async () => passes(leader) >= 2, 90_000);
      expect(passes(follower)).toBe(0);
      const transitions = (await lease()).spec.leaseTransitions ?? 0;
      leader.child.kill('SIGKILL');
      const killedAt = Date.now();
      await until(
        'the follower holds the Lease',
        async () => (await lease()).spec.holderIdentity === follower.id,
        30_000,
      );
      expect(Date.now() - killedAt).toBeLessThan(15_000);
      expect((await lease()).spec.leaseTransitions).toBe(transitions + 1);
      await until('the new leader passes', async () => passes(follower) >= 1, 60_000);
    });
  },
  { flux: false },
);
