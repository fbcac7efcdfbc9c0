/**
 * Pod Security gaps and accelerators past gpuops's accounting: SELinux type overrides, node-mounted
 * volume types (gitRepo, nfs, iscsi, cephfs, flexVolume, …), unsafe sysctls, procMount, root,
 * extended resources (MIG, AMD, shared GPUs), resource claims, system priority classes and
 * NVIDIA_VISIBLE_DEVICES passed validation. Each row: the refused field (located), the policy
 * allowance that lets it through, and the neighbour that passes without one
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { parseAlgorithms } from '../../src/definitions/rules/algorithms.js';
import type { Policy, PodSecurityPolicy } from '../../src/definitions/types.js';

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

/** An Algorithm whose `spec.template.spec` is `pod` (flow YAML) and `spec.env` is `env`. */
const spec = (pod: string, env = '[]') =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Algorithm',
    'metadata: {name: triton}',
    'spec:',
    '  image: nvcr.io/nvidia/tritonserver:24.05-py3',
    '  resources: {gpus: 1}',
    `  env: ${env}`,
    '  template:',
    `    spec: ${pod}`,
    '',
  ].join('\n');

const fieldsOf = (pod: string, allow: Partial<PodSecurityPolicy> = {}, env?: string) => {
  const p = structuredClone(defaults);
  Object.assign(p.spec.podSecurity, allow);
  return parseAlgorithms([{ path: 'algorithms/t.yaml', text: spec(pod, env) }], p).errors.map(
    (e) => `${e.line}:${e.column} ${e.field}`,
  );
};

const C = (sc: string) => `{containers: [{securityContext: ${sc}}]}`;
const R = (resources: string) => `{containers: [{resources: ${resources}}]}`;
const T = 'spec.template.spec';

/** [what, pod, the field refused, the allowance that lets it through, the neighbour that passes]. */
const ROWS: [string, string, string, Partial<PodSecurityPolicy>, string][] = [
  ...[
    'gitRepo: {repository: "https://x"}',
    'nfs: {server: nfs.example.com, path: /}',
    'iscsi: {targetPortal: t, iqn: i, lun: 0}',
    'cephfs: {monitors: [m]}',
    'flexVolume: {driver: d}',
    'glusterfs: {endpoints: e, path: p}',
    'rbd: {monitors: [m], image: i}',
  ].map((src): [string, string, string, Partial<PodSecurityPolicy>, string] => {
    const type = src.split(':')[0]!;
    return [
      `a ${type} volume`,
      `{volumes: [{name: v, ${src}}]}`,
      `${T}.volumes[0].${type}`,
      { volumeTypes: [type] },
      '{volumes: [{name: v, persistentVolumeClaim: {claimName: c}}]}',
    ];
  }),
  [
    'an SELinux type override on the pod',
    '{securityContext: {seLinuxOptions: {type: spc_t}}}',
    `${T}.securityContext.seLinuxOptions.type`,
    { seLinux: true },
    '{securityContext: {seLinuxOptions: {type: container_t}}}',
  ],
  [
    'an SELinux type override on a container',
    C('{seLinuxOptions: {type: unconfined_t}}'),
    `${T}.containers[0].securityContext.seLinuxOptions.type`,
    { seLinux: true },
    C('{seLinuxOptions: {level: "s0:c123,c456"}}'),
  ],
  [
    'an SELinux user',
    C('{seLinuxOptions: {user: system_u}}'),
    `${T}.containers[0].securityContext.seLinuxOptions.user`,
    { seLinux: true },
    C('{seLinuxOptions: {type: container_init_t}}'),
  ],
  [
    'an unsafe sysctl',
    '{securityContext: {sysctls: [{name: kernel.msgmax, value: "65536"}]}}',
    `${T}.securityContext.sysctls[0].name`,
    { sysctls: ['kernel.msgmax'] },
    '{securityContext: {sysctls: [{name: net.ipv4.ip_local_port_range, value: "1024 65535"}]}}',
  ],
  [
    'procMount Unmasked',
    C('{procMount: Unmasked}'),
    `${T}.containers[0].securityContext.procMount`,
    { privileged: true },
    C('{procMount: Default}'),
  ],
  [
    'runAsUser 0',
    C('{runAsUser: 0}'),
    `${T}.containers[0].securityContext.runAsUser`,
    { runAsRoot: true },
    C('{runAsUser: 1000}'),
  ],
  [
    'runAsNonRoot false on the pod',
    '{securityContext: {runAsNonRoot: false}}',
    `${T}.securityContext.runAsNonRoot`,
    { runAsRoot: true },
    '{securityContext: {runAsNonRoot: true}}',
  ],
  [
    'a MIG slice',
    R('{limits: {nvidia.com/mig-1g.10gb: 1}}'),
    `${T}.containers[0].resources.limits.nvidia.com/mig-1g.10gb`,
    { extendedResources: ['nvidia.com/mig-*'] },
    R('{limits: {memory: 1Gi, hugepages-2Mi: 1Gi}}'),
  ],
  [
    'a shared GPU',
    R('{requests: {nvidia.com/gpu.shared: 1}}'),
    `${T}.containers[0].resources.requests.nvidia.com/gpu.shared`,
    { extendedResources: ['nvidia.com/gpu.shared'] },
    R('{requests: {ephemeral-storage: 1Gi}}'),
  ],
  [
    // amd.com/gpu is gpuops's own like nvidia.com/gpu (pod-security.test.ts): no allowance lets it in.
    'an Intel GPU in an init container',
    '{initContainers: [{name: i, image: "x:1", resources: {limits: {gpu.intel.com/i915: 1}}}]}',
    `${T}.initContainers[0].resources.limits.gpu.intel.com/i915`,
    { extendedResources: ['gpu.intel.com/i915'] },
    '{initContainers: [{name: i, image: "x:1", resources: {limits: {cpu: "1"}}}]}',
  ],
  [
    'a resource claim (DRA)',
    '{resourceClaims: [{name: gpu, resourceClaimTemplateName: g}]}',
    `${T}.resourceClaims`,
    { resourceClaims: true },
    '{}',
  ],
  [
    'system-node-critical',
    '{priorityClassName: system-node-critical}',
    `${T}.priorityClassName`,
    { priorityClassNames: ['system-node-critical'] },
    '{preemptionPolicy: Never}',
  ],
  [
    'system-cluster-critical',
    '{priorityClassName: system-cluster-critical}',
    `${T}.priorityClassName`,
    { priorityClassNames: ['system-cluster-critical'] },
    '{}',
  ],
];

describe('Pod Security restricted and accelerators: refused unless the policy allows', () => {
  it.each(ROWS)('%s is refused at its field', (_, pod, field) => {
    expect(fieldsOf(pod)).toEqual([
      expect.stringMatching(new RegExp(` ${field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)),
    ]);
  });

  it.each(ROWS)('%s passes with its allowance', (_, pod, __, allow) => {
    expect(fieldsOf(pod, allow)).toEqual([]);
  });

  it.each(ROWS)('%s: its neighbour passes without one', (_, ___, __, ___2, neighbour) => {
    expect(fieldsOf(neighbour)).toEqual([]);
  });

  it('the error says what the field does and names the allowance', () => {
    const p = structuredClone(defaults);
    const errors = parseAlgorithms(
      [
        {
          path: 'algorithms/t.yaml',
          text: spec('{volumes: [{name: v, gitRepo: {repository: "https://x"}}]}'),
        },
      ],
      p,
    ).errors;
    expect(errors.map((e) => e.message)).toEqual([
      "a volume of type gitRepo is mounted by the node; the policy's podSecurity.volumeTypes does not allow it (Pod Security restricted; ask the platform team)",
    ]);
  });

  it('priority is never set directly, and NVIDIA_VISIBLE_DEVICES never chooses GPUs (spec.env or a container)', () => {
    expect(fieldsOf('{priority: 1000000}')).toEqual([`9:12 ${T}.priority`]);
    expect(fieldsOf('{}', {}, '[{name: NVIDIA_VISIBLE_DEVICES, value: all}]')).toEqual([
      '7:16 spec.env[0].name',
    ]);
    expect(
      fieldsOf(
        '{initContainers: [{name: i, image: "x:1", env: [{name: NVIDIA_VISIBLE_DEVICES, value: all}]}]}',
      ),
    ).toEqual([`9:66 ${T}.initContainers[0].env[0].name`]);
    expect(fieldsOf('{}', {}, '[{name: NVIDIA_DRIVER_CAPABILITIES_X, value: a}]')).toEqual([]);
  });
});
