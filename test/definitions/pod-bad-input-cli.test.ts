/**
 * Issue 24's bad input through `gpuops validate` itself (the CLI a user runs): a probe without a
 * handler, a volume mount naming no volume, an `envFrom` naming a Secret in another namespace and a
 * port clash, each in a file of its own beside one good service. Every one is a located error
 * (file, line, column, field) and none stops the good spec.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function gpuops(...args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('node', ['bin/gpuops.js', ...args], { cwd: root }, (err, stdout) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout });
    });
  });
}

/** An Algorithm `name` whose `spec.template.spec` body (indented under it) starts on line 9. */
const spec = (name: string, pod: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    `metadata: {name: ${name}}`,
    'spec:',
    '  image: nvcr.io/nvidia/tritonserver:24.05-py3',
    '  resources: {gpus: 1, cpu: "4", memory: 16Gi}',
    '  template:',
    '    spec:',
    ...pod.split('\n').map((l) => `      ${l}`),
    '',
  ].join('\n');

const FILES: Record<string, string> = {
  'algorithms/good.yaml': spec(
    'good',
    [
      'containers:',
      '  - ports: [{name: http, containerPort: 8000}]',
      '    readinessProbe: {httpGet: {path: /v2/health/ready, port: http}}',
      '    volumeMounts: [{name: dshm, mountPath: /dev/shm}]',
      '    envFrom: [{secretRef: {name: hf-token}}]',
      'volumes: [{name: dshm, emptyDir: {medium: Memory}}]',
    ].join('\n'),
  ),
  'algorithms/probe.yaml': spec('probe', 'containers:\n  - readinessProbe:\n      periodSeconds: 5'),
  'algorithms/mount.yaml': spec(
    'mount',
    'containers:\n  - volumeMounts:\n      - {name: modles, mountPath: /models}\nvolumes: [{name: models, emptyDir: {}}]',
  ),
  'algorithms/secret.yaml': spec(
    'secret',
    'containers:\n  - envFrom:\n      - secretRef: {name: hf-token, namespace: kube-system}',
  ),
  'algorithms/ports.yaml': spec(
    'ports',
    'containers:\n  - ports:\n      - {name: http, containerPort: 8000}\n      - {name: metrics, containerPort: 8000}',
  ),
};

let repo: string;
beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'gpuops-bad-pods-'));
  await mkdir(path.join(repo, 'algorithms'));
  for (const [rel, text] of Object.entries(FILES)) await writeFile(path.join(repo, rel), text);
});
afterAll(async () => {
  await rm(repo, { recursive: true, force: true });
});

describe('gpuops validate: bad pod input, located', { timeout: 90_000 }, () => {
  it('reports each bad file with file, line, column and field, keeps the good one, exits 1', async () => {
    const r = await gpuops('validate', repo, '--output', 'json');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { files: number; errors: Record<string, unknown>[] };
    expect(out.files).toBe(5);
    expect(out.errors.map((e) => [e['file'], e['line'], e['column'], e['field']])).toEqual([
      ['algorithms/mount.yaml', 11, 22, 'spec.template.spec.containers[0].volumeMounts[0].name'],
      ['algorithms/ports.yaml', 12, 46, 'spec.template.spec.containers[0].ports[1].containerPort'],
      ['algorithms/probe.yaml', 11, 13, 'spec.template.spec.containers[0].readinessProbe'],
      ['algorithms/secret.yaml', 11, 43, 'spec.template.spec.containers[0].envFrom[0].secretRef.namespace'],
    ]);
    const message = (file: string) => String(out.errors.find((e) => e['file'] === file)!['message']);
    expect(message('algorithms/mount.yaml')).toBe('no volume "modles"; did you mean "models"?');
    expect(message('algorithms/ports.yaml')).toBe('port 8000/TCP clashes with containers[0].ports[0]');
    expect(message('algorithms/probe.yaml')).toContain('a probe needs a handler');
    expect(message('algorithms/secret.yaml')).toContain('own namespace only ("algorithms")');
  });

  it('prints file:line:column: field: message, and counts the good algorithm as valid', async () => {
    const r = await gpuops('validate', repo);
    expect(r.code).toBe(1);
    const lines = r.stdout.replaceAll(`${repo}/`, '').trimEnd().split('\n');
    expect(lines[0]).toBe(
      'algorithms/mount.yaml:11:22: spec.template.spec.containers[0].volumeMounts[0].name: no volume "modles"; did you mean "models"?',
    );
    expect(lines.at(-1)).toBe('4 errors in 4 of 5 files; 1 valid algorithm');
  });
});
