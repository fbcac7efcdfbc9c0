import { describe, expect, it } from 'vitest';
import { podSecurityProblems } from '../definitions/rules/pod-security.js';
import { policyWith } from '../../test/benchmark/fixtures.js';
import { PREPULL_PAUSE_IMAGE, PREPULL_TOOLS_IMAGE, renderPrePull } from './prepull.js';

const alg = (image: string) => ({ spec: { image, resources: { gpus: 1 } } });

describe('renderPrePull: one DaemonSet per pool, on its nodes and the unused ones', () => {
  it('pulls each image once, sorted, after the tools, and holds the pod with pause', async () => {
    const policy = (await policyWith()).spec;
    const ds = renderPrePull('short-task', [alg('r/b:1'), alg('r/a:2'), alg('r/b:1')], policy)!;
    const pod = (ds.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    const inits = pod.initContainers as { name: string; image: string; command: string[] }[];
    expect(inits.map((c) => `${c.name}=${c.image}`)).toEqual([
      `tools=${PREPULL_TOOLS_IMAGE}`,
      'pull-0=r/a:2',
      'pull-1=r/b:1',
    ]);
    expect(inits[1]!.command).toEqual(['/gpuops-prepull/true']);
    expect((pod.containers as { image: string }[]).map((c) => c.image)).toEqual([PREPULL_PAUSE_IMAGE]);
    expect([ds.kind, ds.metadata.name, ds.metadata.namespace]).toEqual([
      'DaemonSet',
      'gpuops-prepull-short-task',
      policy.namespace,
    ]);
    const terms = (
      pod.affinity as {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: unknown[] } };
      }
    ).nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    expect(terms).toEqual([
      {
        matchExpressions: [{ key: policy.pools.labelKey, operator: 'In', values: ['short-task', 'unused'] }],
      },
    ]);
    // Every vendor's GPU taint (Exists), then the pool taints of the pool and of unused.
    expect(
      (pod.tolerations as { key: string; value?: string }[]).map((t) => `${t.key}=${t.value ?? '*'}`),
    ).toEqual([
      'nvidia.com/gpu=*',
      'amd.com/gpu=*',
      `${policy.pools.labelKey}=short-task`,
      `${policy.pools.labelKey}=unused`,
    ]);
  });

  it('asks for no GPU and nothing the default policy refuses', async () => {
    const policy = (await policyWith()).spec;
    const ds = renderPrePull('long-task', [alg('r/a:1')], policy)!;
    const pod = (ds.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(JSON.stringify(pod)).not.toContain('nvidia.com/gpu":');
    expect(podSecurityProblems(pod, [], policy.podSecurity)).toEqual([]);
    for (const c of [...(pod.initContainers as object[]), ...(pod.containers as object[])])
      expect(c).toMatchObject({
        securityContext: {
          allowPrivilegeEscalation: false,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
        },
      });
  });

  it('no algorithm on the pool: no DaemonSet', async () => {
    expect(renderPrePull('short-task', [], (await policyWith()).spec)).toBeNull();
  });
});
