/**
 * The standby Deployment and the pre-pull DaemonSet run on a pool's nodes, whichever vendor's GPUs
 * they hold: each tolerates every vendor's GPU taint (`nvidia.com/gpu`, `amd.com/gpu`, any value)
 * beside the pool taint, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { toleratesTaint, type Toleration } from '../../src/cluster/taints.js';
import type { Taint } from '../../src/cluster/types.js';
import type { ResolvedAlgorithm, StandbySet } from '../../src/definitions/types.js';
import { renderPrePull } from '../../src/manifests/prepull.js';
import { renderStandbyDeployment } from '../../src/manifests/standby.js';
import { policyWith } from '../benchmark/fixtures.js';

const policy = (await policyWith((p) => (p.pools.labelKey = 'example.com/pool'))).spec;

const SET: StandbySet = {
  name: 'llm',
  pool: 'short-task',
  namespace: 'algorithms',
  image: 'registry.example.com/ml/multi-model:2.1',
  algorithms: ['llama'],
  gpus: 1,
  port: 8000,
  readinessPath: '/ready',
  wakePath: '/wake',
  claimSeconds: 5,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyObj = any;

const tolerationsOf = {
  standby: () => (renderStandbyDeployment(SET, policy, 1) as AnyObj).spec.template.spec.tolerations,
  prepull: () =>
    (
      renderPrePull(
        'short-task',
        [
          {
            namespace: 'algorithms',
            spec: { image: 'registry.example.com/ml/llm:1' },
          } as Pick<ResolvedAlgorithm, 'spec' | 'namespace'>,
        ],
        policy,
      ) as AnyObj
    ).spec.template.spec.tolerations,
};

const taint = (key: string, value?: string): Taint =>
  ({ key, ...(value === undefined ? {} : { value }), effect: 'NoSchedule' }) as Taint;

describe.each(Object.entries(tolerationsOf))('%s tolerations', (_name, render) => {
  it.each<[string, Taint, boolean]>([
    ['NVIDIA GPU taint, no value', taint('nvidia.com/gpu'), true],
    ['NVIDIA GPU taint, a value', taint('nvidia.com/gpu', 'present'), true],
    ['AMD GPU taint, no value', taint('amd.com/gpu'), true],
    ['AMD GPU taint, a value', taint('amd.com/gpu', 'present'), true],
    ['the pool taint', taint('example.com/pool', 'short-task'), true],
    ['a neighbour of the AMD key', taint('amd.com/gpu-unhealthy'), false],
    ['another pool', taint('example.com/pool', 'long-task'), false],
    ['a maintenance taint', taint('example.com/maintenance'), false],
  ])('%s', (_what, t, expected) => {
    const tolerations = render() as Toleration[];
    expect(tolerations.some((x) => toleratesTaint(x, t))).toBe(expected);
  });
});
