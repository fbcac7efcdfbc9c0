import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import type { Policy } from '../../src/definitions/types.js';

let policy: Policy;
beforeAll(async () => {
  policy = await loadDefaultPolicy();
});

/** An Algorithm whose `spec.template` starts on line 8; `template` is indented under it. */
function spec(template: string, extra = ''): string {
  return [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: triton}',
    'spec:',
    '  image: nvcr.io/nvidia/tritonserver:24.05-py3',
    '  resources: {gpus: 1, cpu: "4"}',
    `  env: [{name: BATCH, value: "8"}]${extra}`,
    '  template:',
    ...template.split('\n').map((l) => `    ${l}`),
    '',
  ].join('\n');
}

/** `file:line:column: field: message` of every error of one file. */
function errors(text: string): string[] {
  const parsed = parseAlgorithms([{ path: 'algorithms/triton.yaml', text }], policy);
  return parsed.errors.map(formatSpecError);
}

const GOOD = `spec:
  containers:
    - ports: [{name: http, containerPort: 8000}, {name: grpc, containerPort: 8001}]
      readinessProbe: {httpGet: {path: /v2/health/ready, port: http}}
      volumeMounts: [{name: models, mountPath: /models}, {name: dshm, mountPath: /dev/shm}]
      envFrom: [{secretRef: {name: hf-token}}]
  volumes:
    - {name: models, persistentVolumeClaim: {claimName: triton-models}}
    - {name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}
  tolerations: [{key: dedicated, operator: Equal, value: ml, effect: NoSchedule}]`;

describe('spec.template: a partial pod template checked against Kubernetes', () => {
  it('a realistic Triton template validates', () => {
    expect(errors(spec(GOOD))).toEqual([]);
  });

  it.each([
    [
      'a misspelt container field (did you mean)',
      'spec:\n  containers:\n    - readinesProbe: {httpGet: {port: 8000}}',
      'algorithms/triton.yaml:11:11: spec.template.spec.containers[0].readinesProbe: unknown field "readinesProbe" of a Kubernetes Container; did you mean "readinessProbe"?',
    ],
    [
      'an unknown pod field',
      'spec:\n  gpuCount: 2',
      'algorithms/triton.yaml:10:7: spec.template.spec.gpuCount: unknown field "gpuCount" of a Kubernetes PodSpec; known fields: activeDeadlineSeconds, affinity, automountServiceAccountToken, containers,',
    ],
    [
      'a probe without a handler',
      'spec:\n  containers:\n    - readinessProbe: {periodSeconds: 5}',
      'algorithms/triton.yaml:11:27: spec.template.spec.containers[0].readinessProbe: a probe needs a handler: one of exec, httpGet, tcpSocket, grpc',
    ],
    [
      'a probe with two handlers',
      'spec:\n  containers:\n    - livenessProbe: {exec: {command: [x]}, tcpSocket: {port: 8000}}',
      'algorithms/triton.yaml:11:49: spec.template.spec.containers[0].livenessProbe.tcpSocket: a probe has one handler; this one has exec and tcpSocket',
    ],
    [
      'a volume mount naming no volume',
      'spec:\n  containers:\n    - volumeMounts: [{name: model, mountPath: /models}]\n  volumes: [{name: models, emptyDir: {}}]',
      'algorithms/triton.yaml:11:33: spec.template.spec.containers[0].volumeMounts[0].name: no volume "model"; did you mean "models"?',
    ],
    [
      'a volume mount and no volumes at all',
      'spec:\n  containers:\n    - volumeMounts: [{name: cache, mountPath: /cache}]',
      'algorithms/triton.yaml:11:33: spec.template.spec.containers[0].volumeMounts[0].name: no volume "cache"; spec.template.spec.volumes is empty',
    ],
    [
      'envFrom naming a Secret in another namespace',
      'spec:\n  containers:\n    - envFrom: [{secretRef: {name: hf-token, namespace: kube-system}}]',
      'algorithms/triton.yaml:11:50: spec.template.spec.containers[0].envFrom[0].secretRef.namespace: unknown field "namespace": a pod reads Secrets and ConfigMaps of its own namespace only ("algorithms"); put the Secret there',
    ],
    [
      'a port clash (same port and protocol)',
      'spec:\n  containers:\n    - ports: [{containerPort: 8000}, {containerPort: 8000, protocol: TCP}]',
      'algorithms/triton.yaml:11:58: spec.template.spec.containers[0].ports[1].containerPort: port 8000/TCP clashes with containers[0].ports[0]',
    ],
    [
      'a port name clash',
      'spec:\n  containers:\n    - ports: [{name: http, containerPort: 8000}, {name: http, containerPort: 8001}]',
      'algorithms/triton.yaml:11:61: spec.template.spec.containers[0].ports[1].name: port name "http" clashes with containers[0].ports[0]',
    ],
    [
      'a port clash across containers (a sidecar and the algorithm)',
      'spec:\n  initContainers: [{name: proxy, image: envoy:1, restartPolicy: Always, ports: [{containerPort: 8000}]}]\n  containers:\n    - ports: [{containerPort: 8000}]',
      'algorithms/triton.yaml:12:35: spec.template.spec.containers[0].ports[0].containerPort: port 8000/TCP clashes with initContainers[0].ports[0]',
    ],
    [
      'the same port number on another protocol is no clash, the same name is',
      'spec:\n  containers:\n    - ports: [{name: dns, containerPort: 53}, {name: dns, containerPort: 53, protocol: UDP}]',
      'algorithms/triton.yaml:11:58: spec.template.spec.containers[0].ports[1].name: port name "dns" clashes with containers[0].ports[0]',
    ],
    [
      'a Secret key reference in another namespace',
      'spec:\n  containers:\n    - env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: hf, key: t, namespace: ml}}}]',
      'spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.namespace: unknown field "namespace": a pod reads Secrets and ConfigMaps of its own namespace only ("algorithms")',
    ],
    [
      'a probe on a port name the container lacks',
      'spec:\n  containers:\n    - ports: [{name: http, containerPort: 8000}]\n      readinessProbe: {httpGet: {port: metrics}}',
      'algorithms/triton.yaml:12:44: spec.template.spec.containers[0].readinessProbe.httpGet.port: port "metrics" is not a port of this container (ports[].name)',
    ],
    [
      'a wrong type (Kubernetes schema)',
      'spec:\n  containers:\n    - ports: [{containerPort: http}]',
      'algorithms/triton.yaml:11:35: spec.template.spec.containers[0].ports[0].containerPort: must be a whole number, got the string "http"',
    ],
    [
      'a bad quantity (Kubernetes schema)',
      'spec:\n  volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8 GB}}]',
      'algorithms/triton.yaml:10:68: spec.template.spec.volumes[0].emptyDir.sizeLimit: "8 GB" is not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei), e.g. 500m, 4, 16Gi; did you mean 8Gi or 8G?',
    ],
    [
      'a missing required field (Kubernetes schema)',
      'spec:\n  volumes: [{emptyDir: {}}]',
      'algorithms/triton.yaml:10:17: spec.template.spec.volumes[0].name: required field "name" is missing',
    ],
  ])('%s', (_name, template, expected) => {
    const got = errors(spec(template));
    expect(got).toHaveLength(1);
    expect(got[0]).toContain(expected);
  });

  it.each([
    [
      'nodeSelector',
      'spec:\n  nodeSelector: {pool: fast}',
      'spec.template.spec.nodeSelector',
      'pins the pod to its pool',
    ],
    [
      'node affinity',
      'spec:\n  affinity: {nodeAffinity: {}}',
      'spec.template.spec.affinity.nodeAffinity',
      'pins the pod',
    ],
    ['restartPolicy', 'spec:\n  restartPolicy: Never', 'spec.template.spec.restartPolicy', 'restart Always'],
    [
      'the container image',
      'spec:\n  containers: [{image: other:1}]',
      'spec.template.spec.containers[0].image',
      'set spec.image',
    ],
    [
      'a GPU limit',
      'spec:\n  containers: [{resources: {limits: {nvidia.com/gpu: 2}}}]',
      'spec.template.spec.containers[0].resources.limits.nvidia.com/gpu',
      'spec.resources.gpus',
    ],
    [
      'an AMD GPU limit: every vendor GPU resource is gpuops own',
      'spec:\n  containers: [{resources: {limits: {amd.com/gpu: 1}}}]',
      'spec.template.spec.containers[0].resources.limits.amd.com/gpu',
      'spec.resources.gpus',
    ],
    [
      'an AMD GPU request in an init container',
      'spec:\n  initContainers: [{name: warm, image: busybox:1, resources: {requests: {amd.com/gpu: 1}}}]',
      'spec.template.spec.initContainers[0].resources.requests.amd.com/gpu',
      'spec.resources.gpus',
    ],
    [
      'cpu set twice',
      'spec:\n  containers: [{resources: {requests: {cpu: "2"}}}]',
      'spec.template.spec.containers[0].resources.requests.cpu',
      'set by spec.resources.cpu',
    ],
    [
      'a second container',
      'spec:\n  containers: [{}, {name: proxy, image: envoy:1}]',
      'spec.template.spec.containers[1]',
      'one container',
    ],
    [
      'a selector label',
      'metadata:\n  labels: {app.kubernetes.io/name: other}',
      'spec.template.metadata.labels.app.kubernetes.io/name',
      'selects',
    ],
    [
      'the pool label',
      'metadata:\n  labels: {gpuops.dev/pool: test}',
      'spec.template.metadata.labels.gpuops.dev/pool',
      'selects',
    ],
    [
      'an env name spec.env sets',
      'spec:\n  containers: [{env: [{name: BATCH, value: "16"}]}]',
      'spec.template.spec.containers[0].env[0].name',
      'already set by spec.env',
    ],
  ])('a field gpuops owns is an error naming it: %s', (_name, template, field, message) => {
    const got = errors(spec(template));
    expect(got).toHaveLength(1);
    expect(got[0]).toContain(`: ${field}: `);
    expect(got[0]).toContain(message);
  });

  it('neighbours of the owned fields pass: memory when spec.resources leaves it out, ephemeral storage, an own label', () => {
    const ok =
      'metadata:\n  labels: {team: vision}\nspec:\n  containers: [{resources: {limits: {memory: 16Gi, ephemeral-storage: 20Gi}, requests: {memory: 16Gi}}}]';
    expect(errors(spec(ok))).toEqual([]);
  });

  it('one bad spec never stops the others', () => {
    const bad = spec('spec:\n  nodeName: gpu-1');
    const good = spec(GOOD).replace('name: triton', 'name: vllm');
    const parsed = parseAlgorithms([{ path: 'algorithms/a.yaml', text: `${bad}---\n${good}` }], policy);
    expect(parsed.algorithms.map((a) => a.name)).toEqual(['vllm']);
    expect(parsed.errors.map((e) => e.field)).toEqual(['spec.template.spec.nodeName']);
  });
});
