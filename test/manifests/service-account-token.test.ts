/**
 * Issue 29 item 1: rendered pods (the Deployment's and the benchmark Job's) mount no ServiceAccount
 * token unless the spec asks for one (`spec.template.spec.automountServiceAccountToken: true`) AND
 * the policy allows it (`podSecurity.automountServiceAccountToken`). Before, a Deployment ran with
 * its namespace's `default` ServiceAccount and that account's token mounted.
 */
import { describe, expect, it } from 'vitest';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import { renderDeployment } from '../../src/manifests/workloads.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

type Pod = { spec: { template: { spec: { automountServiceAccountToken?: boolean } } } };

/** The `automountServiceAccountToken` of the Deployment's and the Job's pods. */
function tokens(policy: Policy, alg: ResolvedAlgorithm): [unknown, unknown] {
  const deployment = renderDeployment({
    algorithm: alg,
    pool: 'short-task',
    policy: policy.spec,
    cluster: 'prod',
    templates: templates(),
  }) as unknown as Pod;
  const job = renderBenchmarkJob({
    algorithm: alg,
    policy: policy.spec,
    specHash: 'a'.repeat(64),
    sequence: 1,
    template: templates().benchmarkJob,
  }) as unknown as Pod;
  return [
    deployment.spec.template.spec.automountServiceAccountToken,
    job.spec.template.spec.automountServiceAccountToken,
  ];
}

const ASKS = '  template:\n    spec: {automountServiceAccountToken: true}';

describe('rendered pods mount a ServiceAccount token only when the spec asks and the policy allows', () => {
  it('a spec that says nothing: false in both pods', async () => {
    const policy = await policyWith();
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'serve' }), policy);
    expect(tokens(policy, alg!)).toEqual([false, false]);
  });

  it('the spec asks and the policy allows: true in both pods', async () => {
    const policy = await policyWith((p) => (p.podSecurity.automountServiceAccountToken = true));
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'serve', extra: ASKS }), policy);
    expect(tokens(policy, alg!)).toEqual([true, true]);
  });

  it('the policy allows but the spec does not ask: false', async () => {
    const policy = await policyWith((p) => (p.podSecurity.automountServiceAccountToken = true));
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'serve' }), policy);
    expect(tokens(policy, alg!)).toEqual([false, false]);
  });

  it('the spec asks and the policy refuses: validate says so, and a renderer handed it anyway writes false', async () => {
    const allowing = await policyWith((p) => (p.podSecurity.automountServiceAccountToken = true));
    const [alg] = algorithmsFromYaml(algorithmYaml({ name: 'serve', extra: ASKS }), allowing);
    const refusing = await policyWith();
    expect(() => algorithmsFromYaml(algorithmYaml({ name: 'serve', extra: ASKS }), refusing)).toThrow(
      /spec\.template\.spec\.automountServiceAccountToken mounts a ServiceAccount token/,
    );
    expect(tokens(refusing, alg!)).toEqual([false, false]);
  });
});
