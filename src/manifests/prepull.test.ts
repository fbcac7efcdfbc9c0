import { describe, expect, it } from 'vitest';
import { podSecurityProblems } from '../definitions/rules/pod-security.js';
import { policyWith } from '../../test/benchmark/fixtures.js';
import { PREPULL_PAUSE_IMAGE, PREPULL_TOOLS_IMAGE, prePullImages, renderPrePull } from './prepull.js';

const alg = (image: string, namespace = 'algorithms', pullSecrets?: string[]) => ({
  namespace,
  spec: {
    image,
    resources: { gpus: 1 },
    ...(pullSecrets
      ? { template: { spec: { imagePullSecrets: pullSecrets.map((name) => ({ name })) } } }
      : {}),
  },
});

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

  it('copies the names of the pull secrets of the algorithms in its namespace, each once, sorted', async () => {
    const policy = (await policyWith()).spec;
    const secretsOf = (algs: ReturnType<typeof alg>[]) =>
      (renderPrePull('short-task', algs, policy)!.spec as { template: { spec: Record<string, unknown> } })
        .template.spec.imagePullSecrets;
    expect(
      secretsOf([
        alg('r/a:1', policy.namespace, ['reg-b', 'reg-a']),
        alg('r/b:1', policy.namespace, ['reg-b']),
      ]),
    ).toEqual([{ name: 'reg-a' }, { name: 'reg-b' }]);
    // None named: no field at all (the pod pulls as the node's credentials allow).
    expect(secretsOf([alg('r/a:1')])).toBeUndefined();
  });

  it.each<[string, ReturnType<typeof alg>[], { images: string[]; pullSecrets: string[] }]>([
    [
      'another namespace, no pull secret: pulled',
      [alg('r/a:1', 'team-a')],
      { images: ['r/a:1'], pullSecrets: [] },
    ],
    // Its Secret lives in team-a; one named alike in the policy's namespace is not its Secret.
    [
      'another namespace with a pull secret: left out',
      [alg('r/a:1', 'team-a', ['reg'])],
      { images: [], pullSecrets: [] },
    ],
    [
      'the same image also run here with a pull secret: pulled with that one',
      [alg('r/a:1', 'team-a', ['theirs']), alg('r/a:1', 'algorithms', ['ours'])],
      { images: ['r/a:1'], pullSecrets: ['ours'] },
    ],
    ['an empty list is no pull secret', [alg('r/a:1', 'team-a', [])], { images: ['r/a:1'], pullSecrets: [] }],
  ])('prePullImages: %s', (_name, algs, want) => {
    expect(prePullImages(algs, 'algorithms')).toEqual(want);
  });

  it('no algorithm on the pool, or only images it may not pull: no DaemonSet', async () => {
    expect(renderPrePull('short-task', [], (await policyWith()).spec)).toBeNull();
    expect(
      renderPrePull('short-task', [alg('r/a:1', 'team-a', ['reg'])], (await policyWith()).spec),
    ).toBeNull();
  });
});
