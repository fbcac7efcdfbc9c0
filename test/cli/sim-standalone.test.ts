/**
 * `gpuops sim` on its own, as a person starts it (issue 28 item 3: it served no dcgm-exporter
 * pages, 404, though the docs said it did): it prints the page URLs and `export GPUOPS_DCGM_URL=…`,
 * every GPU node's page answers in dcgm-exporter's format, `--load` drives the utilisation of an
 * algorithm's GPUs, and `/dcgm/targets` lists one Prometheus target group per GPU node.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fleet = path.join(root, 'test/fixtures/cluster-mixed');

let child: ChildProcess | undefined;
let dir = '';
let out = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'gpuops-sim-standalone-'));
  child = spawn(
    'node',
    [
      'bin/gpuops.js',
      'sim',
      '--nodes',
      path.join(fleet, 'nodes.json'),
      '--pods',
      path.join(fleet, 'pods.json'),
      '--load',
      'llm-serve=150',
      '--kubeconfig',
      path.join(dir, 'sim.kubeconfig'),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  // Started when it has printed its last line of instructions.
  await new Promise<void>((resolve, reject) => {
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('press Ctrl-C to stop')) resolve();
    });
    child!.on('exit', (code) => reject(new Error(`gpuops sim exited with ${code}:\n${out}`)));
  });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('gpuops sim on its own', () => {
  it('prints the dcgm-exporter pages of its 11 GPU nodes, and each answers in the exporter format', async () => {
    expect(out).toMatch(
      /dcgm-exporter pages: http:\/\/127\.0\.0\.1:\d+\/dcgm\/<node>\/metrics for 11 GPU nodes/,
    );
    expect(out).toContain('offered load: llm-serve=150');
    const urls = /export GPUOPS_DCGM_URL="([^"]+)"/.exec(out)![1]!.split(' ');
    expect(urls).toHaveLength(11);
    for (const url of urls) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
      const page = await res.text();
      expect(page).toContain('# TYPE DCGM_FI_DEV_GPU_UTIL gauge');
      expect(page).toMatch(/^DCGM_FI_DEV_GPU_UTIL\{gpu="0",UUID="GPU-/m);
    }
  });

  it("--load sets the utilisation the pages show for an algorithm's GPUs: 150 % over 2 GPUs is 75 % each", async () => {
    const base = /serving the Kubernetes API at (http:\/\/[^ ]+)/.exec(out)![1]!;
    const labels = { app: 'llm-serve', 'gpuops.dev/algorithm': 'llm-serve' };
    const created = await fetch(`${base}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer gpuops-sim' },
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'llm-serve', labels },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              tolerations: [{ operator: 'Exists' }],
              containers: [
                {
                  name: 'serve',
                  image: 'registry.example.com/llm:1',
                  resources: { limits: { 'nvidia.com/gpu': '1' } },
                },
              ],
            },
          },
        },
      }),
    });
    expect(created.status).toBe(201);
    const urls = /export GPUOPS_DCGM_URL="([^"]+)"/.exec(out)![1]!.split(' ');
    const series = async () =>
      (await Promise.all(urls.map(async (u) => (await fetch(u)).text())))
        .flatMap((page) => page.split('\n'))
        .filter((l) => l.startsWith('DCGM_FI_DEV_GPU_UTIL{') && l.includes('pod="llm-serve-'));
    const deadline = Date.now() + 30_000;
    let rows = await series();
    while (rows.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      rows = await series();
    }
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(/ 75$/);
  });

  it('lists one Prometheus target group per GPU node at /dcgm/targets', async () => {
    const base = /serving the Kubernetes API at (http:\/\/[^ ]+)/.exec(out)![1]!;
    const groups = (await (await fetch(`${base}/dcgm/targets`)).json()) as { labels: { node: string } }[];
    expect(groups).toHaveLength(11);
    expect(groups.map((g) => g.labels.node)).toContain('gpu-a100-01');
  });
});

describe('gpuops sim --host 0.0.0.0 (issue 29 item 8)', () => {
  it('warns that other machines can reach it, and requires a random token the kubeconfig holds', async () => {
    const kubeconfig = path.join(dir, 'wide.kubeconfig');
    const wide = spawn('node', ['bin/gpuops.js', 'sim', '--host', '0.0.0.0', '--kubeconfig', kubeconfig], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'GPUOPS_SIM_TOKEN')),
    });
    let text = '';
    try {
      await new Promise<void>((resolve, reject) => {
        const seen = (d: Buffer) => {
          text += d.toString();
          if (text.includes('press Ctrl-C to stop')) resolve();
        };
        wide.stdout.on('data', seen);
        wide.stderr.on('data', seen);
        wide.on('exit', (code) => reject(new Error(`gpuops sim exited with ${code}:\n${text}`)));
      });
      expect(text).toContain(
        'gpuops sim: warning: listening on 0.0.0.0, not a loopback address: other machines can reach this API server',
      );
      const token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))![1]!;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      const base = /serving the Kubernetes API at (http:\/\/[^ ]+)/.exec(text)![1]!;
      const nodes = (auth: string) =>
        fetch(`${base}/api/v1/nodes`, { headers: { authorization: auth } }).then((r) => r.status);
      expect(await nodes(`Bearer ${token}`)).toBe(200);
      expect(await nodes('Bearer gpuops-sim')).toBe(401);
    } finally {
      if (wide.exitCode === null) {
        const exited = new Promise((r) => wide.once('exit', r));
        wide.kill('SIGTERM');
        await exited;
      }
    }
  }, 60_000);
});
