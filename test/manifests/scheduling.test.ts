/** Where gpuops's pods may run: nodeSelector, tolerations, the taint rule, container resources. */
import { describe, expect, it } from 'vitest';
import type { Taint } from '../../src/cluster/types.js';
import {
  formatTaint,
  LEAVING_TAINT_KEYS,
  noNewPodsTaints,
  toleratesTaint,
  type Toleration,
} from '../../src/cluster/taints.js';
import {
  anyVendorTolerations,
  containerEnv,
  containerResources,
  poolScheduling,
} from '../../src/manifests/scheduling.js';
import { policyWith } from '../benchmark/fixtures.js';

const policy = (
  await policyWith((p) => {
    p.pools.labelKey = 'example.com/pool';
    p.pools.taint.effect = 'NoExecute';
  })
).spec;

describe('poolScheduling', () => {
  it('selects the pool label and tolerates the GPU taint and the pool taint with its effect', () => {
    expect(poolScheduling('short-task', policy)).toEqual({
      nodeSelector: { 'example.com/pool': 'short-task' },
      tolerations: [
        { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'example.com/pool', operator: 'Equal', value: 'short-task', effect: 'NoExecute' },
      ],
    });
  });

  it.each([
    { name: 'a GPU product adds the product label', gpuProduct: 'NVIDIA-L4', want: 'NVIDIA-L4' },
    { name: 'null adds nothing', gpuProduct: null, want: undefined },
    { name: 'an empty product adds nothing', gpuProduct: '', want: undefined },
  ])('$name', ({ gpuProduct, want }) => {
    const { nodeSelector } = poolScheduling('test', policy, gpuProduct);
    expect(nodeSelector['nvidia.com/gpu.product']).toBe(want);
    expect(Object.keys(nodeSelector)).toHaveLength(want === undefined ? 1 : 2);
  });
});

const taint = (key: string, effect: Taint['effect'], value?: string): Taint =>
  value === undefined ? { key, effect } : { key, value, effect };

describe('anyVendorTolerations (standby sets, the pre-pull DaemonSet)', () => {
  it('every vendor’s GPU taint, then each pool’s taint with the policy’s key and effect, in the order given', () => {
    expect(anyVendorTolerations(policy, 'long-task', 'unused')).toEqual([
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'amd.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'example.com/pool', operator: 'Equal', value: 'long-task', effect: 'NoExecute' },
      { key: 'example.com/pool', operator: 'Equal', value: 'unused', effect: 'NoExecute' },
    ]);
    // A pool's toleration is the one poolScheduling gives a single vendor's pod there.
    expect(anyVendorTolerations(policy, 'short-task').slice(2)).toEqual(
      poolScheduling('short-task', policy).tolerations.slice(1),
    );
  });
});

describe('toleratesTaint (Kubernetes taint and toleration rule)', () => {
  it.each<{ name: string; t: Toleration; taint: Taint; want: boolean }>([
    {
      name: 'Exists on the key, no effect named: any value, any effect',
      t: { key: 'k', operator: 'Exists' },
      taint: taint('k', 'NoExecute', 'v'),
      want: true,
    },
    {
      name: 'another effect than the named one',
      t: { key: 'k', operator: 'Exists', effect: 'NoSchedule' },
      taint: taint('k', 'NoExecute'),
      want: false,
    },
    {
      name: 'the named effect',
      t: { key: 'k', operator: 'Exists', effect: 'NoExecute' },
      taint: taint('k', 'NoExecute'),
      want: true,
    },
    {
      name: 'no key with Exists: everything',
      t: { key: '', operator: 'Exists' },
      taint: taint('anything', 'NoSchedule', 'x'),
      want: true,
    },
    {
      name: 'no key with Equal: nothing',
      t: { key: '', operator: 'Equal', value: 'anything' },
      taint: taint('anything', 'NoSchedule', 'anything'),
      want: false,
    },
    {
      name: 'an undefined key with Exists: everything',
      t: { key: undefined as unknown as string, operator: 'Exists' },
      taint: taint('anything', 'NoSchedule'),
      want: true,
    },
    {
      name: 'an undefined key with Equal: nothing',
      t: { key: undefined as unknown as string, operator: 'Equal' },
      taint: taint('anything', 'NoSchedule'),
      want: false,
    },
    {
      name: 'another key',
      t: { key: 'k', operator: 'Exists' },
      taint: taint('other', 'NoSchedule'),
      want: false,
    },
    {
      name: 'Equal with the same value',
      t: { key: 'k', operator: 'Equal', value: 'a' },
      taint: taint('k', 'NoSchedule', 'a'),
      want: true,
    },
    {
      name: 'Equal with another value',
      t: { key: 'k', operator: 'Equal', value: 'a' },
      taint: taint('k', 'NoSchedule', 'b'),
      want: false,
    },
    {
      name: 'Equal without a value matches a taint without a value',
      t: { key: 'k', operator: 'Equal' },
      taint: taint('k', 'NoSchedule'),
      want: true,
    },
    {
      name: 'Equal without a value matches an empty taint value',
      t: { key: 'k', operator: 'Equal' },
      taint: taint('k', 'NoSchedule', ''),
      want: true,
    },
    {
      name: 'Equal with an empty value matches a taint without a value',
      t: { key: 'k', operator: 'Equal', value: '' },
      taint: taint('k', 'NoSchedule'),
      want: true,
    },
    {
      name: 'Equal without a value does not match a taint with one',
      t: { key: 'k', operator: 'Equal' },
      taint: taint('k', 'NoSchedule', 'a'),
      want: false,
    },
    {
      name: 'Equal with a value does not match a taint without one',
      t: { key: 'k', operator: 'Equal', value: 'a' },
      taint: taint('k', 'NoSchedule'),
      want: false,
    },
  ])('$name: $want', ({ t, taint: tt, want }) => {
    expect(toleratesTaint(t, tt)).toBe(want);
  });
});

describe('noNewPodsTaints', () => {
  const labelKey = 'example.com/pool';

  it.each<{ name: string; taint: Taint; blocks: boolean }>([
    { name: 'a cordon', taint: taint('node.kubernetes.io/unschedulable', 'NoSchedule'), blocks: true },
    { name: "a team's NoExecute", taint: taint('dedicated', 'NoExecute', 'x'), blocks: true },
    {
      name: 'a PreferNoSchedule of someone else',
      taint: taint('dedicated', 'PreferNoSchedule'),
      blocks: false,
    },
    { name: 'the GPU taint', taint: taint('nvidia.com/gpu', 'NoSchedule', 'present'), blocks: false },
    { name: 'the GPU key as NoExecute', taint: taint('nvidia.com/gpu', 'NoExecute'), blocks: true },
    { name: 'the pool taint', taint: taint(labelKey, 'NoExecute', 'unused'), blocks: false },
    ...LEAVING_TAINT_KEYS.map((key) => ({
      name: `${key} even as PreferNoSchedule`,
      taint: taint(key, 'PreferNoSchedule'),
      blocks: true,
    })),
  ])('$name blocks: $blocks', ({ taint: tt, blocks }) => {
    expect(noNewPodsTaints([tt], labelKey)).toEqual(blocks ? [tt] : []);
  });

  it('names the five leaving keys of the Cluster Autoscaler, Karpenter and out-of-service', () => {
    expect([...LEAVING_TAINT_KEYS].sort()).toEqual([
      'DeletionCandidateOfClusterAutoscaler',
      'ToBeDeletedByClusterAutoscaler',
      'karpenter.sh/disrupted',
      'karpenter.sh/disruption',
      'node.kubernetes.io/out-of-service',
    ]);
  });

  it('keeps the blocking taints in the node order', () => {
    const a = taint('z-team', 'NoSchedule');
    const b = taint('nvidia.com/gpu', 'NoSchedule');
    const c = taint('a-team', 'NoExecute');
    expect(noNewPodsTaints([a, b, c], labelKey)).toEqual([a, c]);
  });
});

describe('formatTaint', () => {
  it.each([
    { taint: taint('k', 'NoSchedule', 'v'), want: 'k=v:NoSchedule' },
    { taint: taint('k', 'NoExecute'), want: 'k:NoExecute' },
    { taint: taint('k', 'PreferNoSchedule', ''), want: 'k:PreferNoSchedule' },
  ])('$want', ({ taint: tt, want }) => {
    expect(formatTaint(tt)).toBe(want);
  });
});

describe('containerResources', () => {
  it('GPUs, cpu and memory as equal requests and limits (Guaranteed QoS)', () => {
    const r = containerResources({ gpus: 3, cpu: '4', memory: '16Gi' });
    expect(r.requests).toEqual({ 'nvidia.com/gpu': '3', cpu: '4', memory: '16Gi' });
    expect(r.limits).toEqual(r.requests);
    expect(r.limits).not.toBe(r.requests);
  });

  it.each([
    { name: 'cpu and memory', resources: { gpus: 1 }, keys: ['nvidia.com/gpu'] },
    { name: 'memory', resources: { gpus: 1, cpu: '2' }, keys: ['nvidia.com/gpu', 'cpu'] },
    { name: 'cpu', resources: { gpus: 1, memory: '1Gi' }, keys: ['nvidia.com/gpu', 'memory'] },
  ])('leaves out $name when the spec does not give it (no key at all)', ({ resources, keys }) => {
    const r = containerResources(resources);
    expect(Object.keys(r.requests)).toEqual(keys);
    expect(Object.keys(r.limits)).toEqual(keys);
  });
});

describe('containerEnv', () => {
  it.each([
    { name: 'no env', env: undefined, want: undefined },
    { name: 'an empty env', env: [], want: undefined },
    {
      name: 'name and value only',
      env: [{ name: 'A', value: '1', extra: 'x' }],
      want: [{ name: 'A', value: '1' }],
    },
  ])('$name', ({ env, want }) => {
    expect(containerEnv(env as Parameters<typeof containerEnv>[0])).toEqual(want);
  });
});
