/**
 * Allowing the applier `batch/Job` (for a model cache's fill) must not let any Job through: the
 * shipped ValidatingAdmissionPolicy `gpuops-model-cache` admits the fill Job as
 * `renderModelCacheFill` renders it and refuses each neighbour that widens it (no fill labels, a
 * GPU, privilege, a token, a host path, no claim), while Jobs gpuops's own ServiceAccount creates
 * (its benchmarks) are not judged. Checked against the Kubernetes schema, and its CEL evaluated by
 * a conforming CEL evaluator (`cel-admit.ts`) on gpuops's real render and on that render with one
 * field changed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { renderModelCacheFill } from '../../src/manifests/model-cache.js';
import { DEFAULT_SERVICE_ACCOUNT, renderNamespaceFiles } from '../../src/manifests/namespaces.js';
import { algorithmsFromYaml, policyWith } from '../benchmark/fixtures.js';
import { admit } from './cel-admit.js';

const FILE = path.resolve(import.meta.dirname, '../../templates/install/admission-model-cache.yaml');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
const [vap, binding] = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as AnyObj);
/**
 * gpuops's ServiceAccount as templates/install/serviceaccount.yaml creates it, and the user name
 * the API server gives it. The policy's exemption is plain text in a CEL expression (kustomize's
 * `namespace:` does not rewrite it), so it must name this account by hand.
 */
const SA = parseAllDocuments(
  readFileSync(path.resolve(import.meta.dirname, '../../templates/install/serviceaccount.yaml'), 'utf8'),
)[0]!.toJS() as AnyObj;
const SA_USER = `system:serviceaccount:${SA.metadata.namespace}:${SA.metadata.name}`;

const LABELS = (name: string) =>
  `Job algorithms/${name}: only gpuops model cache fill Jobs may run here (labels app.kubernetes.io/managed-by: gpuops, gpuops.dev/algorithm, and gpuops.dev/model-cache-fill naming the Job, on the Job and its pod)`;
const POD =
  "a model cache fill Job's pod restarts Never and uses no host namespace, ServiceAccount, token, init or ephemeral container, or resource claim";
const SECURITY =
  'a model cache fill Job runs as non-root with the RuntimeDefault seccomp profile; its container unprivileged, without privilege escalation, every capability dropped and none added';
const GPU = 'a model cache fill Job asks for CPU, memory and ephemeral storage only (no GPU)';
const CLAIM =
  'a model cache fill Job has one container and one volume, the model cache claim (persistentVolumeClaim model-cache), mounted in it';

/** gpuops's render of bert's fill Job (pod user and fsGroup, a pull secret, as a spec may give). */
let render: AnyObj;
beforeAll(async () => {
  const policy = await policyWith();
  const [alg] = algorithmsFromYaml(
    [
      'apiVersion: gpuops.dev/v1alpha1',
      'kind: Algorithm',
      'metadata: {name: bert, namespace: algorithms}',
      'spec:',
      '  image: registry.example.com/ml/bert:1',
      '  resources: {gpus: 1}',
      '  template: {spec: {securityContext: {runAsUser: 1000, fsGroup: 1000}, imagePullSecrets: [{name: reg}]}}',
      '  modelCache: {claimName: bert-models, mountPath: /models, fill: {image: registry.example.com/ml/fetch:1, args: [bert-base]}}',
      '',
    ].join('\n'),
    policy,
  ) as ResolvedAlgorithm[];
  render = JSON.parse(JSON.stringify(renderModelCacheFill(alg!)));
});

/** `render` with `change` applied to a copy of it (as the API server gets it: no shared objects). */
function changed(change: (job: AnyObj, pod: AnyObj, c: AnyObj) => void): AnyObj {
  const job = JSON.parse(JSON.stringify(render)) as AnyObj;
  change(job, job.spec.template.spec, job.spec.template.spec.containers[0]);
  return job;
}

describe('gpuops-model-cache: only the fill Job gpuops renders is admitted', () => {
  it('is a valid ValidatingAdmissionPolicy and binding (Kubernetes schema), denying, on Jobs in gpuops namespaces', () => {
    expect(() => new ValidatingAdmissionPolicy(vap).validate()).not.toThrow();
    expect(() => new ValidatingAdmissionPolicyBinding(binding).validate()).not.toThrow();
    expect([binding.spec.policyName, binding.spec.validationActions]).toEqual([vap.metadata.name, ['Deny']]);
    expect(vap.spec.matchConstraints.resourceRules).toEqual([
      { apiGroups: ['batch'], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: ['jobs'] },
    ]);
    const [file] = renderNamespaceFiles('prod', ['algorithms']);
    const ns = parseAllDocuments(file!.content!)[0]!.toJS() as AnyObj;
    expect(ns.metadata.labels).toMatchObject(vap.spec.matchConstraints.namespaceSelector.matchLabels);
  });

  it("gpuops's render passes; a person's cpu and memory, and the default ServiceAccount named, too", () => {
    expect(admit(vap, render)).toBe('allowed');
    expect(
      admit(
        vap,
        changed((_j, p, c) => {
          c.resources = { requests: { cpu: '1', memory: '2Gi' }, limits: { memory: '2Gi' } };
          p.serviceAccountName = 'default';
        }),
      ),
    ).toBe('allowed');
  });

  it("Jobs gpuops's own ServiceAccount creates (benchmarks, with GPUs) are not judged; the applier's are", () => {
    const bench = changed((j, _p, c) => {
      delete j.metadata.labels['gpuops.dev/model-cache-fill'];
      c.resources = { limits: { 'nvidia.com/gpu': '1' } };
    });
    expect(admit(vap, bench, SA_USER)).toBe('not judged');
    expect(admit(vap, bench)).toBe(LABELS(render.metadata.name));
    expect(admit(vap, bench, 'kubernetes-admin')).toBe(LABELS(render.metadata.name));
  });

  it('exempts exactly the shipped ServiceAccount, the one gpuops binds in each algorithm namespace', () => {
    expect(DEFAULT_SERVICE_ACCOUNT).toEqual({ namespace: SA.metadata.namespace, name: SA.metadata.name });
    const bench = changed((j) => {
      delete j.metadata.labels['gpuops.dev/model-cache-fill'];
    });
    expect(admit(vap, bench, SA_USER)).toBe('not judged');
    // Its neighbours: the same name in another namespace, another account in its namespace.
    for (const user of [
      `system:serviceaccount:${SA.metadata.namespace}-x:${SA.metadata.name}`,
      `system:serviceaccount:${SA.metadata.namespace}:${SA.metadata.name}-x`,
      `system:serviceaccount:algorithms:${SA.metadata.name}`,
    ])
      expect(admit(vap, bench, user)).toBe(LABELS(render.metadata.name));
  });

  it.each<[string, () => AnyObj, string]>([
    [
      'no fill label',
      () => changed((j) => delete j.metadata.labels['gpuops.dev/model-cache-fill']),
      LABELS('bert-model-cache-NAME'),
    ],
    [
      'a fill label naming another Job',
      () => changed((j) => (j.metadata.labels['gpuops.dev/model-cache-fill'] = 'other')),
      LABELS('bert-model-cache-NAME'),
    ],
    [
      "the pod without gpuops's labels",
      () => changed((j) => delete j.spec.template.metadata),
      LABELS('bert-model-cache-NAME'),
    ],
    [
      'managed by someone else',
      () => changed((j) => (j.metadata.labels['app.kubernetes.io/managed-by'] = 'helm')),
      LABELS('bert-model-cache-NAME'),
    ],
    ['restartPolicy OnFailure', () => changed((_j, p) => (p.restartPolicy = 'OnFailure')), POD],
    ['host network', () => changed((_j, p) => (p.hostNetwork = true)), POD],
    ['a ServiceAccount', () => changed((_j, p) => (p.serviceAccountName = 'admin')), POD],
    ['the token mounted', () => changed((_j, p) => delete p.automountServiceAccountToken), POD],
    ['an init container', () => changed((_j, p, c) => (p.initContainers = [structuredClone(c)])), POD],
    ['root', () => changed((_j, p) => (p.securityContext.runAsUser = 0)), SECURITY],
    ['no seccomp profile', () => changed((_j, p) => delete p.securityContext.seccompProfile), SECURITY],
    ['privileged', () => changed((_j, _p, c) => (c.securityContext.privileged = true)), SECURITY],
    [
      'privilege escalation',
      () => changed((_j, _p, c) => (c.securityContext.allowPrivilegeEscalation = true)),
      SECURITY,
    ],
    [
      'a capability added',
      () => changed((_j, _p, c) => (c.securityContext.capabilities.add = ['NET_RAW'])),
      SECURITY,
    ],
    ['capabilities kept', () => changed((_j, _p, c) => (c.securityContext.capabilities.drop = [])), SECURITY],
    [
      'an NVIDIA GPU',
      () => changed((_j, _p, c) => (c.resources = { limits: { 'nvidia.com/gpu': '1' } })),
      GPU,
    ],
    [
      'an AMD GPU request',
      () => changed((_j, _p, c) => (c.resources = { requests: { 'amd.com/gpu': '1' } })),
      GPU,
    ],
    [
      'a hostPath volume beside the claim',
      () => changed((_j, p) => p.volumes.push({ name: 'h', hostPath: { path: '/' } })),
      CLAIM,
    ],
    [
      'the claim as a hostPath',
      () => changed((_j, p) => (p.volumes = [{ name: 'model-cache', hostPath: { path: '/' } }])),
      CLAIM,
    ],
    ['the claim not mounted', () => changed((_j, _p, c) => delete c.volumeMounts), CLAIM],
    [
      'a second container',
      () => changed((_j, p, c) => p.containers.push({ ...structuredClone(c), name: 'b' })),
      CLAIM,
    ],
  ])('refused: %s', (_name, job, message) => {
    expect(admit(vap, job())).toBe(message.replace('bert-model-cache-NAME', render.metadata.name));
  });
});
