import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { canonicalJson, specHash, specHashLabel } from '../../src/benchmark/spec-hash.js';
import type { Algorithm } from '../../src/definitions/types.js';

const BASE = `
apiVersion: gpuops.dev/v1alpha1
kind: Algorithm
metadata:
  name: resnet50-infer
spec:
  image: registry.example.com/ml/resnet50:1.4.2
  command: ["python", "serve.py"]
  args: ["--port=8080"]
  env: [{name: BATCH, value: "32"}]
  resources: {gpus: 1, cpu: "4", memory: 16Gi}
  benchmark:
    args: ["--bench", "--iterations=500"]
    runs: 3
    timeoutSeconds: 1800
  scaling:
    minReplicas: 1
    maxReplicas: 8
  placement: {pool: auto}
`;

function hashOf(text: string): string {
  return specHash((parse(text) as Algorithm).spec);
}

describe('specHash', () => {
  const base = hashOf(BASE);

  it('is 64 hex characters; the label form fits a label value', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(specHashLabel(base)).toBe(base.slice(0, 16));
  });

  it.each([
    { name: 'comments added', text: BASE.replace('spec:', '# the spec\nspec:  # trailing') },
    {
      name: 'keys reordered and flow style changed to block style',
      text:
        BASE.replace(
          '  resources: {gpus: 1, cpu: "4", memory: 16Gi}',
          '  resources:\n    memory: 16Gi\n    cpu: "4"\n    gpus: 1',
        ).replace('  image: registry.example.com/ml/resnet50:1.4.2\n', '') +
        '  image: registry.example.com/ml/resnet50:1.4.2\n',
    },
    {
      name: 'scaling changed (does not change run time)',
      text: BASE.replace('maxReplicas: 8', 'maxReplicas: 4'),
    },
    { name: 'placement changed', text: BASE.replace('{pool: auto}', '{pool: long-task}') },
    { name: 'quoting style changed', text: BASE.replace('memory: 16Gi', "memory: '16Gi'") },
  ])('unchanged when $name', ({ text }) => {
    expect(hashOf(text)).toBe(base);
  });

  it.each([
    { name: 'image tag', text: BASE.replace('resnet50:1.4.2', 'resnet50:1.4.3') },
    { name: 'command', text: BASE.replace('"serve.py"', '"serve2.py"') },
    { name: 'args', text: BASE.replace('--port=8080', '--port=9090') },
    { name: 'env value', text: BASE.replace('"32"', '"64"') },
    { name: 'GPUs', text: BASE.replace('gpus: 1', 'gpus: 2') },
    { name: 'memory', text: BASE.replace('16Gi', '32Gi') },
    { name: 'benchmark args', text: BASE.replace('--iterations=500', '--iterations=1000') },
    { name: 'benchmark runs', text: BASE.replace('runs: 3', 'runs: 5') },
    {
      name: 'args order',
      text: BASE.replace('["--bench", "--iterations=500"]', '["--iterations=500", "--bench"]'),
    },
  ])('changes when $name changes', ({ text }) => {
    expect(hashOf(text)).not.toBe(base);
  });
});

describe("specHash with the Algorithm's annotations (they go onto the benchmark pods)", () => {
  const spec = (parse(BASE) as Algorithm).spec;
  const bare = specHash(spec);

  it.each([
    { name: 'absent', annotations: undefined },
    { name: 'empty', annotations: {} },
  ])('annotations $name: the hash a spec had before annotations counted', ({ annotations }) => {
    expect(specHash(spec, annotations)).toBe(bare);
  });

  const runSeconds = { 'sim.gpuops.dev/run-seconds': '120' };
  it.each<{ name: string; a: Record<string, string>; b: Record<string, string> }>([
    { name: 'one annotation added', a: {}, b: runSeconds },
    { name: 'a value changed', a: runSeconds, b: { 'sim.gpuops.dev/run-seconds': '121' } },
    {
      name: 'a second annotation added',
      a: runSeconds,
      b: { ...runSeconds, 'sidecar.istio.io/inject': 'false' },
    },
    { name: 'the key renamed, same value', a: runSeconds, b: { 'sim.gpuops.dev/run-second': '120' } },
  ])('changes when $name', ({ a, b }) => {
    expect(specHash(spec, b)).not.toBe(specHash(spec, a));
  });

  it('does not depend on the order the annotations were written in', () => {
    const ab = { 'a.example.com/x': '1', 'b.example.com/y': '2' };
    const ba = { 'b.example.com/y': '2', 'a.example.com/x': '1' };
    expect(specHash(spec, ba)).toBe(specHash(spec, ab));
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}',
    );
  });
});

describe("specHash with the pod's shape (spec.template, issue 24: what is measured is what runs)", () => {
  const POD = `${BASE}  template:
    spec:
      containers:
        - volumeMounts: [{name: dshm, mountPath: /dev/shm}]
          readinessProbe: {httpGet: {path: /v2/health/ready, port: 8000}}
      volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 1Gi}}]
`;
  const pod = hashOf(POD);

  it.each([
    { name: 'a /dev/shm size', text: POD.replace('sizeLimit: 1Gi', 'sizeLimit: 8Gi') },
    {
      name: 'an init container added',
      text: `${POD}      initContainers: [{name: warm, image: r.example.com/w:1}]\n`,
    },
    { name: 'the template removed', text: BASE },
  ])('changes with $name', ({ text }) => {
    expect(hashOf(text)).not.toBe(pod);
  });

  it.each([
    { name: 'the readiness probe changed', text: POD.replace('/v2/health/ready', '/v2/health/live') },
    { name: 'the readiness probe removed', text: POD.replace(/^ {10}readinessProbe.*\n/m, '') },
    {
      name: 'a liveness and a startup probe added',
      text: POD.replace(
        '          readinessProbe',
        '          livenessProbe: {tcpSocket: {port: 8000}}\n          startupProbe: {tcpSocket: {port: 8000}}\n          readinessProbe',
      ),
    },
  ])('unchanged when $name (the benchmark pod has no probes)', ({ text }) => {
    expect(text).not.toBe(POD);
    expect(hashOf(text)).toBe(pod);
  });

  it('a template of probes only is the hash of no template', () => {
    const probesOnly = `${BASE}  template:\n    spec:\n      containers: [{readinessProbe: {tcpSocket: {port: 8000}}}]\n`;
    expect(hashOf(probesOnly)).toBe(hashOf(BASE));
  });
});
