/**
 * The controller's own health: `/healthz` stops answering 200 once a leader's passes cannot
 * succeed (here: a clone-cache lock a real live process holds), and with the API server gone the
 * log says so once, then at a falling rate, without a stack, while the status page's first cause
 * names the API server and that this replica is not leading. Pure rules as table rows beside.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { kubeLeaseApi, type LeaseApi } from '../../src/cluster/lease.js';
import type { LeaseView } from '../../src/cluster/types.js';
import {
  controllerCauses,
  initialHealthState,
  logThisFailure,
  notLive,
} from '../../src/controller/controller-health.js';
import { startController, type RunningController } from '../../src/controller/run-controller.js';
import { withCloneLock } from '../../src/working-copy/clone-lock.js';
import { startSimCluster } from '../../src/sim/index.js';
import { sleep, until } from '../support/wait.js';

let controller: RunningController | undefined;
let child: ChildProcess | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await controller?.stop();
  if (child && child.exitCode === null) child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  controller = child = undefined;
});

/** A Lease kept in memory that this single replica always gets. */
function memoryLease(): LeaseApi {
  let lease: LeaseView | null = null;
  let rv = 0;
  return {
    read: async () => lease,
    create: async (spec) => ((lease = { ...spec, resourceVersion: String(++rv) }), true),
    replace: async (spec) => ((lease = { ...spec, resourceVersion: String(++rv) }), true),
  };
}

const base = { identity: 'r1', healthPort: 0, healthHost: '127.0.0.1', log: pino({ level: 'silent' }) };
const summary = { nodes: 0, algorithms: 0, decisions: 0, prs: 0, errors: 0 };

describe('the controller’s own health', () => {
  it('/healthz answers 503, naming why, once a leader’s passes cannot succeed (a lock a live process holds)', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'gpuops-healthz-'));
    dirs.push(tmp);
    const dir = join(tmp, 'clone');
    child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '../support/lock-holder-child.ts'), dir, 'hold'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, TMPDIR: tmp },
      },
    );
    await new Promise<void>((r) => child!.stdout!.once('data', () => r()));
    controller = await startController({
      ...base,
      leaseApi: memoryLease(),
      leaseDurationSeconds: 15,
      retryPeriodSeconds: 0.1,
      intervalSeconds: 0.02,
      maxBackoffSeconds: 0.05,
      unhealthyAfterSeconds: 0.5,
      pass: () => withCloneLock(dir, async () => summary, { timeoutMs: 20 }),
    });
    const healthz = () => fetch(`http://127.0.0.1:${controller!.port}/healthz`);
    await until('leading', () => controller!.isLeader());
    expect((await healthz()).status).toBe(200); // within the bound: alive
    const res = await until(
      '503',
      async () => ((await healthz()).status === 503 ? await healthz() : undefined),
      10_000,
    );
    expect(await res.text()).toMatch(
      /^not live: no reconcile pass succeeded for \d+ s \(\d+ failed passes\): .*is held by \d+@/,
    );
    expect(controller.healthCauses().map((c) => c.reason)).toEqual(['PassFailing']);
  });

  it('with the API server gone: said once, then at a falling rate, no stack; the page names it first', async () => {
    const sim = await startSimCluster({});
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfig());
    await sim.close(); // the API server is gone: every request is refused
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    let attempts = 0;
    const real = kubeLeaseApi(kc, 'gpuops-system', 'gone');
    controller = await startController({
      ...base,
      log: pino({ level: 'info' }, sink),
      leaseApi: { ...real, read: () => (attempts++, real.read()) },
      leaseDurationSeconds: 15,
      retryPeriodSeconds: 0.02,
      intervalSeconds: 1,
      pass: async () => summary,
    });
    await until('30 attempts', () => attempts >= 30, 20_000);
    await sleep(50);
    const warned = lines.filter((l) => /API server unreachable/.test(String(l.msg)));
    // 30+ failed attempts: logged at the 1st, 2nd, 4th, 8th, 16th (and 32nd) only.
    expect(warned.length).toBeGreaterThanOrEqual(5);
    expect(warned.length).toBeLessThanOrEqual(6);
    expect(warned.map((l) => l.failures).slice(0, 5)).toEqual([1, 2, 4, 8, 16]);
    expect(JSON.stringify(lines)).not.toMatch(/"stack"/);
    const [first] = controller.healthCauses();
    expect(first?.reason).toBe('ApiServerUnreachable');
    expect(first?.message).toMatch(
      /^API server unreachable for \d+ s \(.*ECONNREFUSED.*\): this replica cannot hold the leader Lease, no pass runs$/,
    );
  });
});

describe('controller health rules', () => {
  const T = 1_000_000;
  const leading = (over: Partial<ReturnType<typeof initialHealthState>>) => ({
    ...initialHealthState(T),
    leading: true,
    ...over,
  });
  it.each([
    [
      '3 failures, the last success 600 s ago: still live',
      leading({ passFailures: 3, lastPassOkAt: T }),
      T + 600_000,
      null,
    ],
    [
      '3 failures, the last success 601 s ago: not live',
      leading({ passFailures: 3, lastPassOkAt: T, passError: 'x' }),
      T + 601_000,
      'no reconcile pass succeeded for 10 min (3 failed passes): x',
    ],
    ['2 failures only: live', leading({ passFailures: 2, lastPassOkAt: T }), T + 3_600_000, null],
    [
      'a follower is live whatever its passes did',
      { ...leading({ passFailures: 9 }), leading: false },
      T + 3_600_000,
      null,
    ],
    [
      'no success ever: counted from when it began to lead',
      leading({ passFailures: 5, passError: 'x' }),
      T + 601_000,
      'no reconcile pass succeeded for 10 min (5 failed passes): x',
    ],
  ])('%s', (_what, s, now, why) => {
    expect(notLive(s, now, 600)).toBe(why);
  });

  it('names an unreachable API server before failing passes; says nothing when all is well', () => {
    expect(controllerCauses(leading({}), T)).toEqual([]);
    expect(
      controllerCauses(
        {
          ...leading({ passFailures: 1, passError: 'e' }),
          electionFailingSince: T - 89_000,
          electionError: 'connect ECONNREFUSED',
        },
        T,
      ),
    ).toEqual([
      {
        level: 'critical',
        reason: 'ApiServerUnreachable',
        message:
          'API server unreachable for 89 s (connect ECONNREFUSED): this replica cannot hold the leader Lease, no pass runs',
      },
    ]);
  });

  it.each([
    [1, true],
    [2, true],
    [3, false],
    [4, true],
    [7, false],
    [8, true],
    [0, false],
  ])('failure %i logged: %s', (n, yes) => expect(logThisFailure(n)).toBe(yes));
});
