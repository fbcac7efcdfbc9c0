import { beforeEach, describe, expect, it } from 'vitest';
import { renderPrBody } from '../../src/change-sets/pr-body.js';
import { renderWorkloadFiles } from '../../src/manifests/workloads.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { placementChanges, planPlacements } from '../../src/plan/placement.js';
import { rolloutNote, type RolloutInput } from '../../src/plan/rollout.js';
import type { Policy, PolicySpec, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { node } from '../scaling/support.js';
import { templates } from '../manifests/helpers.js';

let policy: Policy;
let v1: ResolvedAlgorithm;
let v2: ResolvedAlgorithm;
beforeEach(async () => {
  policy = await policyWith();
  v1 = algorithmsFromYaml(
    algorithmYaml({ name: 'serve', image: 'registry.example.com/serve:1' }),
    policy,
  )[0]!;
  v2 = algorithmsFromYaml(
    algorithmYaml({ name: 'serve', image: 'registry.example.com/serve:2' }),
    policy,
  )[0]!;
});

const deploymentOf = (alg: ResolvedAlgorithm, replicas = 1, spec: PolicySpec = policy.spec) =>
  renderWorkloadFiles({
    algorithm: alg,
    pool: 'short-task',
    policy: spec,
    cluster: 'prod',
    templates: templates(),
    replicas,
  })[0]!.content!;

const REQUEST = { gpus: 1, cpuMillis: 2000, memoryBytes: 8 * 2 ** 30 };
const judge = (o: Partial<RolloutInput>) =>
  rolloutNote({
    algorithm: 'serve',
    pool: 'short-task',
    current: deploymentOf(v1),
    desired: deploymentOf(v2),
    rollout: policy.spec.rollout,
    capacity: [node('st-1', 'short-task', 1)],
    request: REQUEST,
    ...o,
  });

describe('rolloutNote', () => {
  it.each<[string, () => Partial<RolloutInput>, string | null, string[]]>([
    ['FirstStartIsNoRollout', () => ({ current: undefined }), null, []],
    ['ReplicaChangeIsNoRollout', () => ({ desired: deploymentOf(v1, 3) }), null, []],
    ['ImageChangeWithAFreeGpuSurges', () => ({}), 'RolloutSurge', ['room for 1 surge pod(s) of 1 GPU(s)']],
    [
      'NoFreeGpuInThePoolWaits',
      () => ({ capacity: [node('st-1', 'short-task', 0), node('lt-1', 'long-task', 8)] }),
      'RolloutWaitsForGpu',
      ['no room for a surge pod of 1 GPU(s)', 'the rollout will wait for one', 'old pods keep serving'],
    ],
    [
      'AFreeGpuWithoutTheCpuIsNoRoom',
      () => ({
        capacity: [node('st-1', 'short-task', 1, 'NVIDIA-A100-SXM4-80GB', { free: { cpuMillis: 1000 } })],
      }),
      'RolloutWaitsForGpu',
      [],
    ],
    [
      // A free GPU of another vendor is no room: an amd.com/gpu pod never fits an NVIDIA node.
      'AnAmdPodWithOnlyAnNvidiaGpuFreeWaits',
      () => ({ request: { ...REQUEST, gpuResource: 'amd.com/gpu' } }),
      'RolloutWaitsForGpu',
      ['no room for a surge pod'],
    ],
    [
      'AnAmdPodWithAnAmdGpuFreeSurges',
      () => ({
        request: { ...REQUEST, gpuResource: 'amd.com/gpu' },
        capacity: [
          node('st-1', 'short-task', 0),
          { ...node('st-2', 'short-task', 1, null), gpuResource: 'amd.com/gpu' },
        ],
      }),
      'RolloutSurge',
      ['room for 1 surge pod(s)'],
    ],
    [
      'NoRoomButMaxUnavailableStopsOldPods',
      () => ({ capacity: [], rollout: { strategy: 'RollingUpdate', maxSurge: 1, maxUnavailable: 1 } }),
      'RolloutStopsOldPods',
      ['up to 1 old pod(s) stop first'],
    ],
    [
      'Recreate',
      () => ({ rollout: { strategy: 'Recreate', maxSurge: 1, maxUnavailable: 0 } }),
      'RolloutRecreate',
      ['serves nothing meanwhile'],
    ],
  ])('%s', (_name, o, reason, message) => {
    const note = judge(o());
    expect(note?.reason ?? null).toBe(reason);
    for (const m of message) expect(note!.message).toContain(m);
  });

  it("counts only nodes of the pod's GPU product when the Deployment pins one", () => {
    const pinned = (text: string) =>
      text.replace(
        '      nodeSelector:\n',
        '      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n',
      );
    const capacity = [node('st-a100', 'short-task', 4, 'NVIDIA-A100-SXM4-80GB')];
    const input = { current: pinned(deploymentOf(v1)), desired: pinned(deploymentOf(v2)) };
    expect(judge({ ...input, capacity })?.reason).toBe('RolloutWaitsForGpu');
    const h100 = node('st-h100', 'short-task', 1, 'NVIDIA-H100-80GB-HBM3');
    expect(judge({ ...input, capacity: [...capacity, h100] })?.reason).toBe('RolloutSurge');
  });
});

describe('the placement pull request says the rollout will wait', () => {
  it('a new image with a full pool: the body names RolloutWaitsForGpu', () => {
    const base = new Map([['clusters/prod/algorithms/serve/deployment.yaml', deploymentOf(v1)]]);
    const git = readGitModel('prod', base, 'gpuops.dev/pool');
    const placements = planPlacements(
      [v2],
      new Map([['serve', { status: 'Succeeded', medianSeconds: 5, message: 'measured' }]]),
      policy,
    );
    const [input] = placementChanges({
      algorithms: [v2],
      placements,
      git,
      policy,
      templates: templates(),
      capacity: [node('st-1', 'short-task', 0)],
    });
    const evidence = input!.placements![0]!;
    expect(evidence.rollout?.reason).toBe('RolloutWaitsForGpu');
    const body = renderPrBody({
      cluster: 'prod',
      kind: 'placement',
      subject: 'serve',
      files: [],
      desiredHash: 'ab'.repeat(32),
      placements: [evidence],
    });
    expect(body).toContain('**Rollout** (`RolloutWaitsForGpu`)');
    expect(body).toContain('the rollout will wait for one');
  });
});
