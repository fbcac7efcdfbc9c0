/**
 * Issue 29 item 1: whatever pod fields a spec gains (`spec.template`), a spec author cannot choose
 * a privileged pod, host paths, the host's network, another ServiceAccount, an API token or a
 * Secret of another namespace unless the policy's `podSecurity` allows it. Each refused field has
 * a row, its allowed neighbour a row, and the policy allowance that lets it through a row.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import { formatSpecError } from '../../src/definitions/rules/format.js';
import { podSecurityProblems } from '../../src/definitions/rules/pod-security.js';
import type { Policy, PodSecurityPolicy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** An Algorithm whose `spec.template.spec` holds `pod` (flow YAML) on line 8. */
const spec = (pod: string) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: triton}',
    'spec:',
    '  image: nvcr.io/nvidia/tritonserver:24.05-py3',
    '  resources: {gpus: 1}',
    '  template:',
    `    spec: ${pod}`,
    '',
  ].join('\n');

const errorsOf = (pod: string, allow: Partial<PodSecurityPolicy> = {}) => {
  const p = structuredClone(defaults);
  Object.assign(p.spec.podSecurity, allow);
  return parseAlgorithms([{ path: 'algorithms/t.yaml', text: spec(pod) }], p).errors.map(formatSpecError);
};

const C = (sc: string) => `{containers: [{securityContext: ${sc}}]}`;

/** [what, pod, the field refused, the allowance that lets it through, the neighbour that passes]. */
const ROWS: [string, string, string, Partial<PodSecurityPolicy>, string][] = [
  [
    'a privileged container',
    C('{privileged: true}'),
    'spec.template.spec.containers[0].securityContext.privileged',
    { privileged: true },
    C('{privileged: false}'),
  ],
  [
    'a privileged init container',
    '{initContainers: [{name: init, image: "busybox:1", securityContext: {privileged: true}}]}',
    'spec.template.spec.initContainers[0].securityContext.privileged',
    { privileged: true },
    '{initContainers: [{name: init, image: "busybox:1"}]}',
  ],
  [
    'allowPrivilegeEscalation',
    C('{allowPrivilegeEscalation: true}'),
    'spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation',
    { allowPrivilegeEscalation: true },
    C('{allowPrivilegeEscalation: false}'),
  ],
  [
    'an added capability',
    C('{capabilities: {add: [SYS_ADMIN]}}'),
    'spec.template.spec.containers[0].securityContext.capabilities.add[0]',
    { capabilities: ['CAP_SYS_ADMIN'] },
    C('{capabilities: {drop: [ALL]}}'),
  ],
  [
    'a hostPath volume',
    '{volumes: [{name: root, hostPath: {path: /}}]}',
    'spec.template.spec.volumes[0].hostPath',
    { hostPath: true },
    '{volumes: [{name: scratch, emptyDir: {}}]}',
  ],
  [
    'hostNetwork',
    '{hostNetwork: true}',
    'spec.template.spec.hostNetwork',
    { hostNetwork: true },
    '{hostNetwork: false}',
  ],
  ['hostPID', '{hostPID: true}', 'spec.template.spec.hostPID', { hostPID: true }, '{hostPID: false}'],
  ['hostIPC', '{hostIPC: true}', 'spec.template.spec.hostIPC', { hostIPC: true }, '{hostIPC: false}'],
  [
    'a host port',
    '{containers: [{ports: [{containerPort: 8000, hostPort: 8000}]}]}',
    'spec.template.spec.containers[0].ports[0].hostPort',
    { hostPorts: true },
    '{containers: [{ports: [{containerPort: 8000}]}]}',
  ],
  [
    'another ServiceAccount',
    '{serviceAccountName: gpuops}',
    'spec.template.spec.serviceAccountName',
    { serviceAccountNames: ['gpuops'] },
    '{serviceAccountName: default}',
  ],
  [
    'another ServiceAccount, deprecated field',
    '{serviceAccount: admin}',
    'spec.template.spec.serviceAccount',
    { serviceAccountNames: ['admin'] },
    '{serviceAccount: default}',
  ],
  [
    'a mounted token',
    '{automountServiceAccountToken: true}',
    'spec.template.spec.automountServiceAccountToken',
    { automountServiceAccountToken: true },
    '{automountServiceAccountToken: false}',
  ],
  [
    'a projected token',
    '{volumes: [{name: t, projected: {sources: [{serviceAccountToken: {path: token}}]}}]}',
    'spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken',
    { automountServiceAccountToken: true },
    '{volumes: [{name: t, projected: {sources: [{secret: {name: hf-token}}]}}]}',
  ],
  [
    'a Windows HostProcess pod',
    '{securityContext: {windowsOptions: {hostProcess: true}}, hostNetwork: true}',
    'spec.template.spec.securityContext.windowsOptions.hostProcess',
    { privileged: true, hostNetwork: true },
    '{securityContext: {windowsOptions: {hostProcess: false}}}',
  ],
  [
    'an Unconfined seccomp profile',
    C('{seccompProfile: {type: Unconfined}}'),
    'spec.template.spec.containers[0].securityContext.seccompProfile.type',
    { privileged: true },
    C('{seccompProfile: {type: RuntimeDefault}}'),
  ],
  [
    'an Unconfined AppArmor profile',
    '{securityContext: {appArmorProfile: {type: Unconfined}}}',
    'spec.template.spec.securityContext.appArmorProfile.type',
    { privileged: true },
    '{securityContext: {appArmorProfile: {type: RuntimeDefault}}}',
  ],
];

describe('spec.template: what widens a pod’s reach needs the policy’s podSecurity', () => {
  it.each(ROWS)('%s is refused at the field by default', (_what, pod, field) => {
    const errors = errorsOf(pod).filter((e) => !e.includes('hostNetwork:') || field.endsWith('hostNetwork'));
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^algorithms/t\\.yaml:8:\\d+: ${field.replace(/[.[\]]/g, '\\$&')}: .*the policy's podSecurity\\.`,
        ),
      ),
    ]);
  });

  it.each(ROWS)('%s passes when the policy allows it', (_what, pod, _field, allow) => {
    expect(errorsOf(pod, allow)).toEqual([]);
  });

  it.each(ROWS)('%s: the neighbour passes by default', (_what, _pod, _field, _allow, neighbour) => {
    expect(errorsOf(neighbour)).toEqual([]);
  });

  it('an allowed capability is that one only: NET_ADMIN stays refused beside an allowed SYS_PTRACE', () => {
    const errors = errorsOf(C('{capabilities: {add: [sys_ptrace, NET_ADMIN]}}'), {
      capabilities: ['SYS_PTRACE'],
    });
    expect(errors).toEqual([expect.stringContaining('capabilities.add[1]: adds the capability NET_ADMIN')]);
  });

  it('every vendor’s GPU resource stays gpuops’s own, whatever extendedResources allows; its neighbour passes', () => {
    for (const gpu of ['nvidia.com/gpu', 'amd.com/gpu']) {
      const pod = `{containers: [{resources: {limits: {${gpu}: 1, nvidia.com/mig-1g.10gb: 1}}}]}`;
      expect(errorsOf(pod, { extendedResources: ['nvidia.com/*', 'amd.com/*'] })).toEqual([
        expect.stringContaining(
          `containers[0].resources.limits.${gpu}: gpuops sets this field: GPUs are spec.resources.gpus`,
        ),
      ]);
    }
  });

  it('a ServiceAccount the policy lists is that one only', () => {
    expect(errorsOf('{serviceAccountName: reader}', { serviceAccountNames: ['gpuops'] })).toHaveLength(1);
  });

  it.each([
    ['envFrom secretRef', '{containers: [{envFrom: [{secretRef: {name: s, namespace: kube-system}}]}]}'],
    [
      'env secretKeyRef',
      '{containers: [{env: [{name: T, valueFrom: {secretKeyRef: {name: s, key: k, namespace: kube-system}}}]}]}',
    ],
    ['a secret volume', '{volumes: [{name: s, secret: {secretName: s, namespace: kube-system}}]}'],
    [
      'a projected secret',
      '{volumes: [{name: s, projected: {sources: [{secret: {name: s, namespace: kube-system}}]}}]}',
    ],
    ['a configMap volume', '{volumes: [{name: c, configMap: {name: c, namespace: kube-system}}]}'],
  ])('a Secret or ConfigMap of another namespace (%s) is refused at its namespace', (_what, pod) => {
    expect(errorsOf(pod)).toEqual([
      expect.stringMatching(
        /\.namespace: unknown field "namespace": a pod reads Secrets and ConfigMaps of its own namespace only \("algorithms"\)/,
      ),
    ]);
  });

  it('the neighbour: the same references without a namespace (the pod’s own) pass', () => {
    expect(
      errorsOf(
        '{containers: [{envFrom: [{secretRef: {name: s}}], env: [{name: T, valueFrom: {secretKeyRef: {name: s, key: k}}}]}], volumes: [{name: s, secret: {secretName: s}}]}',
      ),
    ).toEqual([]);
  });
});

describe('podSecurityProblems', () => {
  it('hostPort 0 means no host port; a missing securityContext is nothing', () => {
    const pod = { containers: [{ ports: [{ containerPort: 80, hostPort: 0 }] }, { securityContext: null }] };
    expect(podSecurityProblems(pod, ['p'], defaults.spec.podSecurity)).toEqual([]);
  });
});
