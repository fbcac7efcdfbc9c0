/**
 * Issue 23 item 12: the health and status port binds where the operator says. The parse rules as
 * a table, then real `gpuops run` processes: `--health-address 127.0.0.1:0` answers on 127.0.0.1
 * and refuses 127.0.0.2 (a socket bound to one loopback address takes no connection to another,
 * one bound to 0.0.0.0 takes both); without the flag it binds 127.0.0.1 outside a Pod and
 * 0.0.0.0 in one (`KUBERNETES_SERVICE_HOST`); and the status page and `/metrics` of a controller
 * that has run a pass show none of its secrets (the GitHub token, a spec's env value).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthAddress, parseHealthAddress } from '../../src/cli/health-address.js';
import { UsageError } from '../../src/cli/settings.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { gpuNode } from '../support/reconcile-harness.js';
import { until } from '../support/wait.js';

describe('parseHealthAddress', () => {
  it.each<[string, string, { host: string; port: number } | RegExp]>([
    ['HostAndPort', '127.0.0.1:8080', { host: '127.0.0.1', port: 8080 }],
    ['PortOnly: every IPv4 interface', ':9090', { host: '0.0.0.0', port: 9090 }],
    ['IPv6InBrackets', '[::1]:8080', { host: '::1', port: 8080 }],
    ['HostName', 'localhost:8080', { host: 'localhost', port: 8080 }],
    ['PortZero: a free port', '127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['PortAtTheTop', '0.0.0.0:65535', { host: '0.0.0.0', port: 65535 }],
    ['PortOverTheTop', '0.0.0.0:65536', /port must be 0\.\.65535, got "65536"/],
    ['NoPort', '127.0.0.1', /expected HOST:PORT/],
    ['IPv6WithoutBrackets', '::1:8080', /expected HOST:PORT/],
    ['NotAnIPv6InBrackets', '[localhost]:8080', /in brackets must be an IPv6 address/],
    ['NotAHost', 'bad_host!:8080', /neither an IP address nor a host name/],
  ])('%s', (_name, value, want) => {
    if (want instanceof RegExp) expect(() => parseHealthAddress(value)).toThrow(want);
    else expect(parseHealthAddress(value)).toEqual(want);
  });

  it('defaults: 0.0.0.0:8080 in a Pod, 127.0.0.1:8080 elsewhere; --health-port keeps the host', () => {
    expect(healthAddress({}, { KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toEqual({
      host: '0.0.0.0',
      port: 8080,
    });
    expect(healthAddress({}, {})).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(healthAddress({ healthPort: '9000' }, {})).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(() => healthAddress({ healthAddress: ':1', healthPort: '2' }, {})).toThrow(UsageError);
  });
});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'ghp_healthAddressTestToken0123456789';
const ENV_SECRET = 'env-secret-value-8d41c0';

let sim: SimCluster;
let work = '';
let repoUrl = '';
const children: ChildProcess[] = [];

beforeAll(async () => {
  sim = await startSimCluster({ nodes: [gpuNode('gpu-a', 1), gpuNode('gpu-b', 1)] });
  work = mkdtempSync(path.join(tmpdir(), 'gpuops-health-'));
  sim.writeKubeconfig(path.join(work, 'kubeconfig.yaml'));
  const seed = path.join(work, 'seed');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main', seed);
  execFileSync('mkdir', ['-p', path.join(seed, 'algorithms')]);
  writeFileSync(
    path.join(seed, 'algorithms', 'resnet.yaml'),
    [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: resnet, namespace: algorithms}',
      'spec:',
      '  image: registry.example.com/ml/resnet:1.0.0',
      `  env: [{name: API_KEY, value: ${ENV_SECRET}}]`,
      '  resources: {gpus: 1, cpu: "2", memory: 8Gi}',
      '',
    ].join('\n'),
  );
  git('-C', seed, 'add', '-A');
  git('-C', seed, 'commit', '-q', '-m', 'init');
  git('clone', '-q', '--bare', seed, path.join(work, 'origin.git'));
  repoUrl = `file://${path.join(work, 'origin.git')}`;
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await sim.close();
  rmSync(work, { recursive: true, force: true });
});

/** `gpuops run` with `args`; resolves with the host and port it logs once it serves health. */
function run(name: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'bin/gpuops.js'),
      'run',
      '--kubeconfig',
      path.join(work, 'kubeconfig.yaml'),
      '--repo-url',
      repoUrl,
      '--cluster',
      'prod',
      '--database',
      `sqlite:${path.join(work, `${name}.db`)}`,
      '--interval',
      '1',
      '--lease-name',
      `gpuops-${name}`,
      ...args,
    ],
    {
      cwd: work,
      env: {
        ...process.env,
        GITHUB_TOKEN: TOKEN,
        KUBERNETES_SERVICE_HOST: '',
        POD_NAMESPACE: '',
        GPUOPS_CACHE_DIR: path.join(work, `cache-${name}`),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const lines: string[] = [];
  const listening = new Promise<{ host: string; port: number }>((resolve, reject) => {
    let buffered = '';
    const collect = (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        lines.push(line);
        if (line.includes('"health server listening"'))
          resolve(JSON.parse(line) as { host: string; port: number });
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('exit', (code) =>
      reject(new Error(`${name} exited (${code}):\n${lines.slice(-10).join('\n')}`)),
    );
  });
  return { child, lines, listening };
}

/** The status code of GET `path` on `host:port`, or the connection error's code. */
function get(host: string, port: number, p = '/healthz'): Promise<{ status: number | string; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host, port, path: p, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ status: err.code ?? 'error', body: '' }));
    req.end();
  });
}

describe('gpuops run binds its health port where the operator says', { timeout: 120_000 }, () => {
  it('--health-address 127.0.0.1:0: 127.0.0.1 answers, 127.0.0.2 is refused', async () => {
    const p = run('loopback', ['--dry-run', '--health-address', '127.0.0.1:0']);
    const { host, port } = await p.listening;
    expect(host).toBe('127.0.0.1');
    expect((await get('127.0.0.1', port)).status).toBe(200);
    expect((await get('127.0.0.2', port)).status).toBe('ECONNREFUSED');
    p.child.kill('SIGTERM');
  });

  it('no flag, not in a Pod: 127.0.0.1; in a Pod: 0.0.0.0 (127.0.0.2 answers too)', async () => {
    const laptop = run('laptop', ['--dry-run', '--health-port', '0']);
    const l = await laptop.listening;
    expect(l.host).toBe('127.0.0.1');
    expect((await get('127.0.0.2', l.port)).status).toBe('ECONNREFUSED');
    laptop.child.kill('SIGTERM');

    const pod = run('pod', ['--dry-run', '--health-port', '0'], { KUBERNETES_SERVICE_HOST: '10.96.0.1' });
    const q = await pod.listening;
    expect(q.host).toBe('0.0.0.0');
    expect((await get('127.0.0.2', q.port)).status).toBe(200);
    pod.child.kill('SIGTERM');
  });

  it('the status page and /metrics after a pass show no secret', async () => {
    const p = run('secrets', ['--health-address', '127.0.0.1:0']);
    const { port } = await p.listening;
    const page = await until(
      'a page that shows the algorithm',
      async () => {
        const r = await get('127.0.0.1', port, '/');
        return r.status === 200 && r.body.includes('resnet') ? r.body : undefined;
      },
      60_000,
      200,
    );
    const metrics = (await get('127.0.0.1', port, '/metrics')).body;
    expect(metrics).toContain('gpuops_');
    for (const text of [page, metrics, p.lines.join('\n')]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(ENV_SECRET);
    }
    p.child.kill('SIGTERM');
  });
});
