/**
 * The real kubectl binary against the simulated cluster over HTTP, as a user would drive it:
 * `get` (kubectl's columns from the server's Table), `-o wide`, `describe`, `explain`,
 * `api-resources`, `apply -k` of the install templates with client-side validation on (kubectl
 * reads the OpenAPI v3 documents), `apply -f` / re-apply / `delete` of a Secret and a ConfigMap, and
 * strict field validation. What kubectl wrote is read back with @kubernetes/client-node.
 *
 * kubectl comes from `.ci/install-kubectl.sh` (run by `.ci/install-services.sh`) or the PATH; set
 * GPUOPS_KUBECTL to use another binary. Without kubectl the suite is skipped, except under CI=true
 * where it fails.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppsV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { until } from '../support/wait.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/cluster-mixed');

function findKubectl(): string | undefined {
  if (process.env.GPUOPS_KUBECTL) return process.env.GPUOPS_KUBECTL;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const p = path.join(dir, 'kubectl');
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}
const KUBECTL = findKubectl();
if (!KUBECTL && process.env.CI === 'true') {
  throw new Error('kubectl is missing under CI=true: .ci/install-services.sh runs .ci/install-kubectl.sh');
}

let sim: SimCluster;
let dir: string;
let core: CoreV1Api;
let apps: AppsV1Api;

/** Runs kubectl; resolves with its exit code, stdout and stderr (never throws on exit code). */
async function kubectl(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      KUBECTL!,
      ['--kubeconfig', path.join(dir, 'kubeconfig'), '--cache-dir', path.join(dir, 'cache'), ...args],
      { cwd: ROOT, env: { ...process.env, KUBECONFIG: '' }, timeout: 60_000 },
    );
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : 1, out: x.stdout ?? '', err: x.stderr ?? String(e) };
  }
}

/** Rows of kubectl's table output, split on runs of two or more spaces. */
const rows = (out: string) =>
  out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

describe.skipIf(!KUBECTL)('kubectl against gpuops sim (skipped when kubectl is not installed)', () => {
  beforeAll(async () => {
    sim = await startSimCluster({
      nodes: JSON.parse(readFileSync(path.join(FIXTURE, 'nodes.json'), 'utf8')),
      pods: JSON.parse(readFileSync(path.join(FIXTURE, 'pods.json'), 'utf8')),
    });
    dir = mkdtempSync(path.join(tmpdir(), 'gpuops-kubectl-'));
    writeFileSync(path.join(dir, 'kubeconfig'), sim.kubeconfig());
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig());
    core = kc.makeApiClient(CoreV1Api);
    apps = kc.makeApiClient(AppsV1Api);
  });
  afterAll(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('get nodes: STATUS (cordoned, Unknown), ROLES, AGE, VERSION', async () => {
    const r = await kubectl('get', 'nodes');
    expect(r.err).toBe('');
    const t = rows(r.out);
    expect(t[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    const row = (n: string) => t.find((x) => x[0] === n)!;
    expect(t).toHaveLength(14);
    expect(row('gpu-h100-02').slice(1, 3)).toEqual(['Ready,SchedulingDisabled', '<none>']);
    expect(row('gpu-t4-04')[1]).toBe('Unknown');
    expect(row('ip-10-0-1-11.ec2.internal')[2]).toBe('system');
    expect(row('gpu-a100-01')[3]).toMatch(/^\d+d$/);
    expect(row('gpu-a100-01')[4]).toBe('v1.31.2');
  });

  it('get nodes -o wide: INTERNAL-IP, OS-IMAGE, CONTAINER-RUNTIME', async () => {
    const t = rows((await kubectl('get', 'node', 'gpu-a100-01', '-o', 'wide')).out);
    expect(t[0]).toEqual([
      'NAME',
      'STATUS',
      'ROLES',
      'AGE',
      'VERSION',
      'INTERNAL-IP',
      'EXTERNAL-IP',
      'OS-IMAGE',
      'KERNEL-VERSION',
      'CONTAINER-RUNTIME',
    ]);
    expect(t[1]![5]).toBe('192.0.2.24');
    expect(t[1]![9]).toBe('containerd://1.7.22');
  });

  it('get pods -A: READY n/m, STATUS, RESTARTS, AGE', async () => {
    const t = rows((await kubectl('get', 'pods', '-A')).out);
    expect(t[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    const video = t.find((x) => x[1] === 'video-decode-5c9d7-2xq8w')!;
    expect(video.slice(0, 5)).toEqual(['media', 'video-decode-5c9d7-2xq8w', '2/2', 'Running', '0']);
    const pods = await core.listPodForAllNamespaces();
    expect(t).toHaveLength(pods.items.length + 1);
  });

  it('describe node shows the allocatable GPUs; describe pod shows its node and no events', async () => {
    const node = await kubectl('describe', 'node', 'gpu-a100-01');
    expect(node.code).toBe(0);
    const allocatable = node.out.split('Allocatable:')[1]!.split('System Info:')[0]!;
    expect(allocatable).toMatch(/nvidia\.com\/gpu:\s+8\n/);
    expect(node.out).toMatch(/Taints:\s+nvidia\.com\/gpu=present:NoSchedule/);
    const pod = await kubectl('describe', 'pod', 'video-decode-5c9d7-2xq8w', '-n', 'media');
    expect(pod.code).toBe(0);
    expect(pod.out).toMatch(/^Namespace:\s+media$/m);
    expect(pod.out).toMatch(/^Events:\s+<none>$/m);
  });

  it('api-resources and explain read discovery and the OpenAPI v3 documents', async () => {
    const t = rows((await kubectl('api-resources')).out);
    const cm = t.find((x) => x[0] === 'configmaps')!;
    expect(cm).toEqual(['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
    expect(t.find((x) => x[0] === 'secrets')).toEqual(['secrets', 'v1', 'true', 'Secret']);
    const explain = await kubectl('explain', 'deployment.spec.replicas');
    expect(explain.err).toBe('');
    expect(explain.out).toMatch(/FIELD:\s+replicas <integer>/);
    expect(explain.out).toMatch(/desired pods/i);
  });

  it('apply -k of the install templates (validation on) creates what client-node reads back; again: unchanged', async () => {
    const first = await kubectl('apply', '-k', 'templates/install');
    expect(first.err).toBe('');
    expect(first.out).toMatch(/^deployment\.apps\/gpuops created$/m);
    expect(first.out).toMatch(/^service\/gpuops created$/m);
    expect(first.out).toMatch(/^serviceaccount\/gpuops created$/m);
    const dep = await apps.readNamespacedDeployment({ name: 'gpuops', namespace: 'gpuops-system' });
    expect(dep.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toContain(
      '"kind":"Deployment"',
    );
    const svc = await core.readNamespacedService({ name: 'gpuops', namespace: 'gpuops-system' });
    expect(svc.spec?.clusterIP).toMatch(/^10\.96\.\d+\.\d+$/);
    const again = await kubectl('apply', '-k', 'templates/install');
    expect(again.err).toBe('');
    expect(again.out).not.toMatch(/created|configured/);
    expect(again.out).toMatch(/^deployment\.apps\/gpuops unchanged$/m);
    const t = rows((await kubectl('get', 'deploy,svc', '-n', 'gpuops-system')).out);
    expect(t[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(t[1]![0]).toBe('deployment.apps/gpuops');
    expect(t[1]![1]).toMatch(/^\d\/2$/);
    const svcHeader = t.find((x) => x[0] === 'NAME' && x[1] === 'TYPE')!;
    expect(svcHeader).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    expect(t.find((x) => x[0] === 'service/gpuops')!.slice(1, 5)).toEqual([
      'ClusterIP',
      svc.spec!.clusterIP!,
      '<none>',
      '8080/TCP',
    ]);
  });

  it('apply -f a Secret (stringData) and a ConfigMap, change them, get, delete', async () => {
    const file = path.join(dir, 'settings.yaml');
    const write = (password: string, batch: string) =>
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Secret',
          'metadata: {name: db, namespace: research}',
          `stringData: {password: ${password}}`,
          'data: {user: YWRtaW4=}',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata: {name: settings, namespace: research}',
          `data: {BATCH: "${batch}", MODE: fast}`,
          '',
        ].join('\n'),
      );
    write('hunter2', '32');
    const created = await kubectl('apply', '-f', file);
    expect(created.out).toBe('secret/db created\nconfigmap/settings created\n');
    const secret = await core.readNamespacedSecret({ name: 'db', namespace: 'research' });
    expect(secret.type).toBe('Opaque');
    expect(secret.data).toEqual({ user: 'YWRtaW4=', password: Buffer.from('hunter2').toString('base64') });
    expect((secret as { stringData?: unknown }).stringData).toBeUndefined();

    const got = await kubectl('get', 'secrets,configmaps', '-n', 'research');
    expect(got.out).not.toMatch(/hunter2|aHVudGVy/);
    const t = rows(got.out);
    expect(t[0]).toEqual(['NAME', 'TYPE', 'DATA', 'AGE']);
    expect(t[1]!.slice(0, 3)).toEqual(['secret/db', 'Opaque', '2']);
    expect(t.find((x) => x[0] === 'configmap/settings')!.slice(1, 2)).toEqual(['2']);

    write('hunter3', '64');
    expect((await kubectl('apply', '-f', file)).out).toBe(
      'secret/db configured\nconfigmap/settings configured\n',
    );
    const cm = await core.readNamespacedConfigMap({ name: 'settings', namespace: 'research' });
    expect(cm.data).toEqual({ BATCH: '64', MODE: 'fast' });
    const changed = await core.readNamespacedSecret({ name: 'db', namespace: 'research' });
    expect(Buffer.from(changed.data!.password!, 'base64').toString()).toBe('hunter3');

    const server = await kubectl('apply', '--server-side', '-f', file);
    expect(server.out).toBe('secret/db serverside-applied\nconfigmap/settings serverside-applied\n');

    expect((await kubectl('delete', '-f', file)).out).toBe(
      'secret "db" deleted\nconfigmap "settings" deleted\n',
    );
    await expect(core.readNamespacedConfigMap({ name: 'settings', namespace: 'research' })).rejects.toThrow(
      /404|not found/i,
    );
  });

  it('re-apply with a container, an env var and a port removed: the patch (merge keys from OpenAPI) removes them', async () => {
    const file = path.join(dir, 'web.yaml');
    const manifest = (containers: string) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: {name: web, namespace: default}',
        'spec:',
        '  replicas: 1',
        '  selector: {matchLabels: {app: web}}',
        '  template:',
        '    metadata: {labels: {app: web}}',
        '    spec:',
        '      containers:',
        containers,
        '',
      ].join('\n');
    const web = (image: string, env: string, ports: string) =>
      `        - {name: web, image: "${image}", env: [${env}], ports: [${ports}]}`;
    writeFileSync(
      file,
      manifest(
        [
          web(
            'nginx:1.25',
            '{name: A, value: "1"}, {name: B, value: "2"}',
            '{containerPort: 80}, {containerPort: 443}',
          ),
          '        - {name: side, image: busybox}',
        ].join('\n'),
      ),
    );
    expect((await kubectl('apply', '-f', file)).out).toBe('deployment.apps/web created\n');
    writeFileSync(file, manifest(web('nginx:1.27', '{name: A, value: "1"}', '{containerPort: 80}')));
    const diff = await kubectl('diff', '-f', file);
    expect(diff.code).toBe(1); // kubectl diff: 1 = differences found
    expect(diff.out).toMatch(/^-\s+name: side$/m);
    expect((await kubectl('apply', '-f', file)).out).toBe('deployment.apps/web configured\n');
    const dep = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    expect(dep.spec!.template.spec!.containers).toEqual([
      { name: 'web', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
    ]);
  });

  it('apply --server-side of a partial Node (what gpuops writes to Git) labels it and keeps the rest', async () => {
    const file = path.join(dir, 'node.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-t4-01\n  labels: {gpuops.dev/pool: short-task}\n',
    );
    const r = await kubectl('apply', '--server-side', '-f', file);
    expect(r.out).toBe('node/gpu-t4-01 serverside-applied\n');
    const node = await core.readNode({ name: 'gpu-t4-01' });
    expect(node.metadata!.labels!['gpuops.dev/pool']).toBe('short-task');
    expect(node.metadata!.labels!['nvidia.com/gpu.product']).toBe('Tesla-T4');
    expect(node.status!.allocatable!['nvidia.com/gpu']).toBe('4');
    const t = rows(
      (await kubectl('get', 'nodes', '-l', 'gpuops.dev/pool=short-task', '-L', 'gpuops.dev/pool')).out,
    );
    expect(t).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'POOL'],
      ['gpu-t4-01', 'Ready', '<none>', expect.stringMatching(/^\d+d$/), 'v1.31.2', 'short-task'],
    ]);
  });

  it('patch --type=json: an escaped key is written; a failed test is refused (422) and changes nothing', async () => {
    const ok = await kubectl(
      'patch',
      'node',
      'gpu-t4-02',
      '--type=json',
      '-p',
      '[{"op":"add","path":"/metadata/labels/gpuops.dev~1probe","value":"a"}]',
    );
    expect(ok).toMatchObject({ code: 0, out: 'node/gpu-t4-02 patched\n' });
    const before = await core.readNode({ name: 'gpu-t4-02' });
    expect(before.metadata!.labels!['gpuops.dev/probe']).toBe('a');
    const failed = await kubectl(
      'patch',
      'node',
      'gpu-t4-02',
      '--type=json',
      '-p',
      '[{"op":"test","path":"/metadata/labels/gpuops.dev~1probe","value":"b"},{"op":"remove","path":"/metadata/labels/gpuops.dev~1probe"}]',
    );
    expect(failed.code).toBe(1);
    // kubectl prints the Status cause (field empty, as the API server's 422 carries none).
    expect(failed.err).toBe(
      'The request is invalid: : testing value /metadata/labels/gpuops.dev~1probe failed\n',
    );
    const after = await core.readNode({ name: 'gpu-t4-02' });
    expect(after.metadata!.labels!['gpuops.dev/probe']).toBe('a');
    expect(after.metadata!.resourceVersion).toBe(before.metadata!.resourceVersion);
  });

  it('an unknown field fails apply (strict validation by the server); --validate=false lets it through', async () => {
    const file = path.join(dir, 'typo.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: typo, namespace: research}\ndta: {a: "1"}\n',
    );
    const strict = await kubectl('apply', '-f', file);
    expect(strict.code).not.toBe(0);
    expect(strict.err).toContain('unknown field "dta"');
    await expect(core.readNamespacedConfigMap({ name: 'typo', namespace: 'research' })).rejects.toThrow();
    const loose = await kubectl('apply', '--validate=false', '-f', file);
    expect(loose.out).toBe('configmap/typo created\n');
  });

  it('get -w streams Table rows as the Deployment scales', async () => {
    await kubectl('apply', '-k', 'templates/install');
    await apps.patchNamespacedDeploymentScale({
      name: 'gpuops',
      namespace: 'gpuops-system',
      body: [{ op: 'replace', path: '/spec/replicas', value: 2 }],
    });
    const child = spawn(
      KUBECTL!,
      ['--kubeconfig', path.join(dir, 'kubeconfig'), '--cache-dir', path.join(dir, 'cache')].concat([
        'get',
        'deploy',
        'gpuops',
        '-n',
        'gpuops-system',
        '-w',
      ]),
      { env: { ...process.env, KUBECONFIG: '' } },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await until('the first row of kubectl get -w', () => rows(out).length >= 2);
      expect(rows(out)[1]![1]).toMatch(/\/2$/);
      const scaled = await kubectl('scale', 'deploy', 'gpuops', '-n', 'gpuops-system', '--replicas=1');
      expect(scaled.out).toBe('deployment.apps/gpuops scaled\n');
      await until('a streamed row with 1 desired replica', () =>
        rows(out)
          .slice(2)
          .some((x) => x[0] === 'gpuops' && x[1]!.endsWith('/1')),
      );
      expect(rows(out)[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    } finally {
      child.kill();
    }
  });
});
