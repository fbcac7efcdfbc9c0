/**
 * `startController` in-process: two controllers with different identities against one simulated
 * cluster (Lease through @kubernetes/client-node over HTTP). Each pass labels a Node with its
 * identity and records its start and end, so "exactly one writes" is checked on the cluster and
 * in time.
 */
import { Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, until } from '../support/wait.js';
import { kubeLeaseApi, type LeaseApi } from '../../src/cluster/lease.js';
import { createLogger } from '../../src/controller/log.js';
import type { PassSummary } from '../../src/pass/summary.js';
import {
  loggableSettings,
  runDefaults,
  startController,
  type RunningController,
} from '../../src/controller/run-controller.js';
import { resolveSettings } from '../../src/cli/settings.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const LEASE_NS = 'gpuops-system';
const LEASE_DURATION = 2;
const RETRY = 0.2;

let sim: SimCluster;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let coordination: k8s.CoordinationV1Api;

interface PassRecord {
  identity: string;
  start: number;
  end: number;
}

const silent = pino({ level: 'silent' });
const summary: PassSummary = { nodes: 1, algorithms: 0, decisions: 1, prs: 0, errors: 0 };

/** A pass that labels Node `sim-node-1` with the identity, taking `ms` milliseconds. */
function labellingPass(identity: string, records: PassRecord[], ms = 20): () => Promise<PassSummary> {
  return async () => {
    const start = Date.now();
    await core.patchNode(
      { name: 'sim-node-1', body: { metadata: { labels: { 'test.gpuops.dev/written-by': identity } } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    await sleep(ms);
    records.push({ identity, start, end: Date.now() });
    return summary;
  };
}

/**
 * A Lease API that notes when each attempt (a read) starts, so a test counts attempts instead of
 * waiting a fixed time or bounding wall-clock time; `cut` makes every call hang, as when the API
 * server stops answering, and `renewals` keeps the renewTime of each write that got through.
 */
function observedLease(leaseName: string): {
  reads: number[];
  renewals: string[];
  cut: boolean;
  api: LeaseApi;
} {
  const real = kubeLeaseApi(kc, LEASE_NS, leaseName);
  const hang = (): Promise<never> => new Promise<never>(() => {});
  const reads: number[] = [];
  const renewals: string[] = [];
  const o: { reads: number[]; renewals: string[]; cut: boolean; api: LeaseApi } = {
    reads,
    renewals,
    cut: false,
    api: {
      read: () => {
        reads.push(Date.now());
        return o.cut ? hang() : real.read();
      },
      create: async (spec) => {
        if (o.cut) return hang();
        const ok = await real.create(spec);
        if (ok) renewals.push(spec.renewTime);
        return ok;
      },
      replace: async (spec, rv) => {
        if (o.cut) return hang();
        const ok = await real.replace(spec, rv);
        if (ok && spec.holderIdentity) renewals.push(spec.renewTime);
        return ok;
      },
    } as LeaseApi,
  };
  return o;
}

/** The attempts in `reads` that started in [from, to] (epoch ms). */
const attemptsBetween = (reads: readonly number[], from: number, to: number) =>
  reads.filter((t) => t >= from && t <= to).length;

async function lease(leaseName: string) {
  return (await coordination.readNamespacedLease({ name: leaseName, namespace: LEASE_NS })).spec!;
}

function controller(
  identity: string,
  leaseName: string,
  pass: () => Promise<PassSummary>,
  extra: { close?: () => Promise<void>; leaseApi?: LeaseApi } = {},
): Promise<RunningController> {
  return startController({
    identity,
    leaseApi: kubeLeaseApi(kc, LEASE_NS, leaseName),
    leaseDurationSeconds: LEASE_DURATION,
    retryPeriodSeconds: RETRY,
    intervalSeconds: 0.05,
    maxBackoffSeconds: 0.2,
    healthPort: 0,
    healthHost: '127.0.0.1',
    pass,
    log: silent,
    ...extra,
  });
}

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, text: await res.text() };
}

function gauge(text: string): number {
  const m = /^gpuops_leader (\S+)$/m.exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

async function holder(leaseName: string): Promise<string | undefined> {
  const lease = await coordination.readNamespacedLease({ name: leaseName, namespace: LEASE_NS });
  return lease.spec?.holderIdentity;
}

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'sim-node-1', labels: {} } }],
  });
  kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  coordination = kc.makeApiClient(k8s.CoordinationV1Api);
});

afterAll(async () => {
  await sim.close();
});

describe('two controllers against one simulated cluster', () => {
  it('only the Lease holder runs passes; a clean stop hands over within one retry period', async () => {
    const records: PassRecord[] = [];
    const a = await controller('replica-a', 'gpuops-two', labellingPass('replica-a', records));
    await until('replica-a to lead', () => a.isLeader());
    const bLease = observedLease('gpuops-two');
    const b = await controller('replica-b', 'gpuops-two', labellingPass('replica-b', records), {
      leaseApi: bLease.api,
    });
    await until('10 passes', () => records.length >= 10);
    await until('replica-b to try four times', () => bLease.reads.length >= 4);

    expect(await holder('gpuops-two')).toBe('replica-a');
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    expect(new Set(records.map((r) => r.identity))).toEqual(new Set(['replica-a']));
    const node = await core.readNode({ name: 'sim-node-1' });
    expect(node.metadata?.labels?.['test.gpuops.dev/written-by']).toBe('replica-a');
    expect(gauge((await get(a.port, '/metrics')).text)).toBe(1);
    expect(gauge((await get(b.port, '/metrics')).text)).toBe(0);
    expect((await get(b.port, '/readyz')).status).toBe(200);
    expect((await get(a.port, '/healthz')).status).toBe(200);
    expect((await get(a.port, '/metrics')).text).toMatch(
      /gpuops_reconcile_passes_total\{result="success"\} [1-9]/,
    );

    await a.stop();
    const releasedAt = Date.now();
    const aLastEnd = Math.max(...records.filter((r) => r.identity === 'replica-a').map((r) => r.end));
    await until('replica-b to lead', async () => (await holder('gpuops-two')) === 'replica-b');
    // Within one retry period: the first attempt of replica-b after the release takes the Lease
    // (its acquireTime is the time of that attempt's decision).
    const acquiredAt = new Date((await lease('gpuops-two')).acquireTime!).getTime();
    expect(attemptsBetween(bLease.reads, releasedAt, acquiredAt)).toBeLessThanOrEqual(1);
    await until('a pass by replica-b', () => records.some((r) => r.identity === 'replica-b'));
    const bFirstStart = Math.min(...records.filter((r) => r.identity === 'replica-b').map((r) => r.start));
    // No overlap: replica-b's first write starts after replica-a's last one ended.
    expect(bFirstStart).toBeGreaterThan(aLastEnd);
    await until(
      'replica-b label',
      async () =>
        (await core.readNode({ name: 'sim-node-1' })).metadata?.labels?.['test.gpuops.dev/written-by'] ===
        'replica-b',
    );
    expect(gauge((await get(b.port, '/metrics')).text)).toBe(1);
    await b.stop();
    // The stopped health server no longer answers.
    await expect(get(a.port, '/healthz')).rejects.toThrow();
  });

  it('a leader cut off from the Lease stops writing before the other takes over after the lease duration', async () => {
    const records: PassRecord[] = [];
    // cut-a is cut off by its Lease calls hanging: the renew deadline, not a failed call, must
    // stop it from writing.
    const aLease = observedLease('gpuops-cut');
    const a = await controller('cut-a', 'gpuops-cut', labellingPass('cut-a', records), {
      leaseApi: aLease.api,
    });
    await until('cut-a to lead', () => a.isLeader());
    const bLease = observedLease('gpuops-cut');
    const b = await controller('cut-b', 'gpuops-cut', labellingPass('cut-b', records), {
      leaseApi: bLease.api,
    });
    await until('cut-b to try three times', () => bLease.reads.length >= 3);
    expect(await holder('gpuops-cut')).toBe('cut-a');

    aLease.cut = true; // no renewal reaches the Lease any more
    await until('cut-b to lead', async () => (await holder('gpuops-cut')) === 'cut-b');
    const lastRenewal = Date.parse(aLease.renewals.at(-1)!);
    const expiry = lastRenewal + LEASE_DURATION * 1000;
    const acquiredAt = new Date((await lease('gpuops-cut')).acquireTime!).getTime();
    // The Lease is respected for its full duration after cut-a's last renewal …
    expect(acquiredAt).toBeGreaterThanOrEqual(expiry);
    // … and taken by the first attempt of cut-b after it expired (within one retry period).
    expect(attemptsBetween(bLease.reads, expiry, acquiredAt)).toBeLessThanOrEqual(1);
    await until('a pass by cut-b', () => records.some((r) => r.identity === 'cut-b'));
    const aLastEnd = Math.max(...records.filter((r) => r.identity === 'cut-a').map((r) => r.end));
    const bFirstStart = Math.min(...records.filter((r) => r.identity === 'cut-b').map((r) => r.start));
    expect(bFirstStart).toBeGreaterThan(aLastEnd);
    expect(a.isLeader()).toBe(false);
    expect(gauge((await get(a.port, '/metrics')).text)).toBe(0);
    await a.stop();
    await b.stop();
  });
});

describe('one controller', () => {
  it('lets the pass in flight finish before releasing the Lease and closing the reconciler', async () => {
    const events: string[] = [];
    let inPass = false;
    let endPass!: () => void;
    const passMayEnd = new Promise<void>((resolve) => (endPass = resolve));
    const c = await controller(
      'slow',
      'gpuops-slow',
      async () => {
        inPass = true;
        events.push('pass start');
        await passMayEnd; // held open until the test has asked the controller to stop
        events.push('pass end');
        inPass = false;
        return summary;
      },
      {
        close: async () => {
          events.push(`close (holder=${(await holder('gpuops-slow')) || 'none'})`);
        },
      },
    );
    await until('a pass in flight', () => inPass);
    const stopping = c.stop();
    events.push('stop asked');
    endPass();
    await stopping;
    expect(events.slice(-4)).toEqual(['pass start', 'stop asked', 'pass end', 'close (holder=none)']);
    expect(await c.stop()).toBeGreaterThanOrEqual(1); // idempotent
  });

  it('reports failing passes as not ready and counts them', async () => {
    const c = await controller('failing', 'gpuops-failing', async () => {
      throw new Error('git remote unreachable');
    });
    await until('a failed pass', async () =>
      /gpuops_reconcile_passes_total\{result="error"\} [1-9]/.test((await get(c.port, '/metrics')).text),
    );
    expect((await get(c.port, '/readyz')).status).toBe(503);
    expect((await get(c.port, '/healthz')).status).toBe(200);
    expect((await get(c.port, '/metrics')).text).toMatch(/gpuops_errors_total\{kind="pass"\} [1-9]/);
    await c.stop();
  });
});

describe('defaults and redaction', () => {
  it.each([
    [
      'in a Pod',
      { POD_NAMESPACE: 'ml-ops', POD_NAME: 'gpuops-7d9f-abc' },
      { leaseNamespace: 'ml-ops', leaseName: 'gpuops-prod', identity: 'gpuops-7d9f-abc' },
    ],
    [
      'outside a Pod',
      {},
      { leaseNamespace: 'gpuops-system', leaseName: 'gpuops-prod', identity: 'laptop-4242' },
    ],
  ])('runDefaults %s', (_name, env, want) => {
    expect(runDefaults('prod', env, 'laptop', 4242)).toEqual(want);
  });

  it('never writes the GitHub token or URL credentials to the log, even inside an error', () => {
    const token = 'ghp_0123456789abcdefSECRET';
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const settings = resolveSettings(
      {
        repoUrl: 'https://bot:hunter2pass@github.example.com/org/gitops.git',
        database: 'postgres://gpuops:pgpass99@db:5432/gpuops',
      },
      { GITHUB_TOKEN: token },
      '/nonexistent/gpuops.yaml',
    );
    const log = createLogger('info', sink, { secrets: [settings.githubToken] });
    log.info({ settings: loggableSettings(settings) }, 'starting gpuops run');
    log.info({ settings }, 'raw settings'); // path redaction
    log.error(
      { err: new Error(`push to https://x-access-token:${token}@github.com/o/r failed`) },
      'push failed',
    );
    log.warn({ detail: `octokit said: Bearer ${token}` }, 'host error');

    const text = lines.join('');
    expect(lines).toHaveLength(4);
    expect(text).not.toContain(token);
    expect(text).not.toContain('hunter2pass');
    expect(text).not.toContain('pgpass99');
    const first = JSON.parse(lines[0]!) as { settings: Record<string, unknown> };
    expect(first.settings.githubToken).toBe('[Redacted]');
    expect(first.settings.repoUrl).toBe('https://***@github.example.com/org/gitops.git');
    expect(first.settings.cluster).toBe('default');
    expect(JSON.parse(lines[3]!).detail).toBe('octokit said: Bearer [Redacted]');
  });
});
