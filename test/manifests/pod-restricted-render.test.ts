/**
 * Rendered pods (the Deployment's and the benchmark Job's) follow Pod Security "restricted"
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted) unless the
 * spec asked for an allowance the policy grants. Before, they set no `allowPrivilegeEscalation`,
 * dropped no capability and had no seccomp profile, so a "restricted" namespace refused them.
 * Each row is a spec's template and what both rendered pods carry.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { renderDeployment } from '../../src/manifests/workloads.js';
import type { Policy, PodSecurityPolicy } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

type Obj = Record<string, unknown>;
type PodSpec = Obj & { containers: Obj[]; initContainers?: Obj[]; securityContext?: Obj };

let shipped: Policy;
beforeAll(async () => {
  shipped = await policyWith();
});

/** The Deployment's and the Job's pod specs for a spec with `template` (YAML under `spec:`). */
function pods(template: string, allow: Partial<PodSecurityPolicy> = {}): PodSpec[] {
  const policy = structuredClone(shipped);
  Object.assign(policy.spec.podSecurity, allow);
  const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'serve', extra: template }), policy);
  const deployment = renderDeployment({
    algorithm: alg!,
    pool: 'short-task',
    policy: policy.spec,
    cluster: 'prod',
    templates: templates(),
  });
  const job = renderBenchmarkJob({
    algorithm: alg!,
    policy: policy.spec,
    specHash: 'a'.repeat(64),
    sequence: 1,
    template: templates().benchmarkJob,
  });
  // Both stay valid objects for the API server's schema.
  expect(() => new Deployment(deployment as never).validate()).not.toThrow();
  expect(() => new Job(job as never).validate()).not.toThrow();
  return [deployment, job].map((o) => (o as { spec: { template: { spec: PodSpec } } }).spec.template.spec);
}

const RESTRICTED_CONTAINER = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
const RESTRICTED_POD = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

describe('rendered pods follow Pod Security restricted by default', () => {
  it('a spec that says nothing: the pod and its container get every restricted field', () => {
    for (const pod of pods('')) {
      expect(pod.securityContext).toEqual(RESTRICTED_POD);
      expect(pod.containers.map((c) => c['securityContext'])).toEqual([RESTRICTED_CONTAINER]);
    }
  });

  it("init containers too; the spec's own values stay and ALL joins its drops", () => {
    const template = [
      '  template:',
      '    spec:',
      '      securityContext: {runAsUser: 1000, seccompProfile: {type: Localhost, localhostProfile: p.json}}',
      '      initContainers: [{name: init, image: "busybox:1", securityContext: {capabilities: {drop: [NET_RAW]}}}]',
      '      containers: [{securityContext: {readOnlyRootFilesystem: true, capabilities: {add: [NET_BIND_SERVICE]}}}]',
    ].join('\n');
    for (const pod of pods(template, { capabilities: ['NET_BIND_SERVICE'] })) {
      expect(pod.securityContext).toEqual({
        runAsUser: 1000,
        runAsNonRoot: true,
        seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' },
      });
      expect(pod.containers[0]!['securityContext']).toEqual({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] },
      });
      expect(pod.initContainers![0]!['securityContext']).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['NET_RAW', 'ALL'] },
      });
    }
  });

  it('an allowed root container: no runAsNonRoot on the pod (it would refuse to start)', () => {
    const template = '  template:\n    spec: {containers: [{securityContext: {runAsUser: 0}}]}';
    for (const pod of pods(template, { runAsRoot: true })) {
      expect(pod.securityContext).toEqual({ seccompProfile: { type: 'RuntimeDefault' } });
    }
  });

  it('an allowed privileged container or SYS_ADMIN: no allowPrivilegeEscalation false (the API server refuses both together)', () => {
    const template =
      '  template:\n    spec:\n      containers: [{securityContext: {privileged: true}}]\n      initContainers: [{name: i, image: "x:1", securityContext: {capabilities: {add: [SYS_ADMIN]}}}]';
    for (const pod of pods(template, { privileged: true, capabilities: ['SYS_ADMIN'] })) {
      expect(pod.containers[0]!['securityContext']).toEqual({
        privileged: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.initContainers![0]!['securityContext']).toEqual({
        capabilities: { add: ['SYS_ADMIN'], drop: ['ALL'] },
      });
    }
  });

  it('an explicit allowPrivilegeEscalation: true (allowed) is kept', () => {
    const template =
      '  template:\n    spec: {containers: [{securityContext: {allowPrivilegeEscalation: true}}]}';
    for (const pod of pods(template, { allowPrivilegeEscalation: true }))
      expect(pod.containers[0]!['securityContext']).toMatchObject({ allowPrivilegeEscalation: true });
  });

  it('a Windows pod is left as it is (these are Linux fields, refused on Windows)', () => {
    for (const pod of pods('  template:\n    spec: {os: {name: windows}}')) {
      expect(pod.securityContext).toBeUndefined();
      expect(pod.containers[0]!['securityContext']).toBeUndefined();
    }
  });
});
