/**
 * The claim's windows through the pass's scaling step (`planScaling`, as `gpuops run` calls it,
 * with the loop's delays): while a Ready standby of its set waits for the algorithm, the flap hold
 * and scale-up cooldown follow a claim's start-up and the scale-down windows are the policy's own
 * (`claimPolicy`, docs/standby.md), as the replay's standby fleet decides; an algorithm whose set
 * has no Ready standby, or that is in no set, keeps the loop's windows of its cold start-up. Each
 * window pinned on both sides of its boundary, as `test/scaling/claim-windows.test.ts` does for
 * `decideOne`.
 *
 * The loop: a 5 s signal and 5 s reaction; the algorithm's replicas took 60 s created → Ready, so
 * D = 70 s (scale-down window 2.5·D = 175 s, cooldown D + 5 = 75 s, flap hold 175 s); the set's
 * claim takes 5 s, so the claim's D = 15 s (flap hold 2.5·15 = 38 s), its scale-down window and
 * cooldown the policy's 300 s.
 */
import { describe, expect, it } from 'vitest';
import type { PodInfo, ReplicaSetInfo } from '../../src/cluster/types.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { planScaling } from '../../src/plan/scaling.js';
import type { DecisionRecord } from '../../src/scaling/types.js';
import { policyWith } from '../benchmark/fixtures.js';
import { nodeInfo } from '../support/node-info.js';
import { STANDBY_SET as SET } from '../support/standby-policy.js';

const NOW = new Date('2026-12-07T12:00:00Z');
const LOOP = { sampleSeconds: 5, reactionSeconds: 5 };
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();

/** The shipped policy (300 s windows) with the set `llm` (bert and llama, a claim in 5 s). */
const stepPolicy = await policyWith((p) => {
  p.standby = [SET];
});
const headroomPolicy = await policyWith((p) => {
  p.standby = [SET];
  p.scaling.sizing = 'headroom';
});

/** Whether the set holds a Ready standby, one still starting (not Ready), or none at all. */
type Standby = 'ready' | 'starting' | 'none';

const standbyRs: ReplicaSetInfo = {
  namespace: 'algorithms',
  name: 'gpuops-standby-llm-bbb222',
  uid: 'rs-bbb222',
  owner: { kind: 'Deployment', name: 'gpuops-standby-llm', controller: true, uid: 'd-sb' },
  revision: 1,
  replicas: 1,
};
const rsOf = (name: string): ReplicaSetInfo => ({
  namespace: 'algorithms',
  name: `${name}-abc`,
  uid: `rs-${name}`,
  owner: { kind: 'Deployment', name, controller: true, uid: `d-${name}` },
  revision: 1,
  replicas: 3,
});

const basePod = (name: string, o: Partial<PodInfo>): PodInfo => ({
  namespace: 'algorithms',
  name,
  uid: `uid-${name}`,
  labels: { 'app.kubernetes.io/managed-by': 'gpuops' },
  nodeName: 'gpu-s1',
  phase: 'Running',
  ready: true,
  terminating: false,
  gpuRequest: 1,
  requests: { cpuMillis: 1000, memoryBytes: 2 ** 30 },
  managed: true,
  algorithm: null,
  owner: null,
  unschedulable: false,
  createdAt: ago(3600),
  startedAt: ago(3600),
  ...o,
});
/** A replica of `alg`'s Deployment, created an hour ago and Ready 60 s later (its start-up). */
const replica = (alg: string, i: number) =>
  basePod(`${alg}-abc-${i}`, {
    labels: { 'gpuops.dev/algorithm': alg, 'app.kubernetes.io/name': alg, 'pod-template-hash': 'abc' },
    algorithm: alg,
    owner: { kind: 'ReplicaSet', name: `${alg}-abc`, controller: true, uid: `rs-${alg}` },
    readyAt: ago(3540),
  });
/** The set's standby pod: Ready, or still starting (Pending, not Ready). */
const standbyPod = (ready: boolean) =>
  basePod('gpuops-standby-llm-bbb222-s0', {
    labels: {
      'app.kubernetes.io/managed-by': 'gpuops',
      'gpuops.dev/standby': 'llm',
      'pod-template-hash': 'bbb222',
    },
    owner: { kind: 'ReplicaSet', name: 'gpuops-standby-llm-bbb222', controller: true, uid: 'rs-bbb222' },
    ...(ready ? {} : { phase: 'Pending' as const, ready: false, nodeName: null }),
  });

const algorithm = (name: string): ResolvedAlgorithm => ({
  name,
  namespace: 'algorithms',
  spec: { image: `registry.example.com/ml/${name}:1.0`, resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 8, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 1, timeoutSeconds: 1800 },
  placement: 'short-task',
  source: { file: `algorithms/${name}.yaml`, line: 1 },
});
const deploymentText = (name: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: algorithms\nspec:\n  replicas: 3\n  template:\n    spec:\n      nodeSelector:\n        gpuops.dev/pool: short-task\n`;

/** A recorded decision of `alg` `s` seconds before now. */
const record = (
  alg: string,
  s: number,
  action: string,
  reason: string,
  from: number,
  to: number,
  u: number,
): DecisionRecord => ({
  kind: 'scaling',
  subject: alg,
  action,
  reason,
  message: '',
  replicasFrom: from,
  replicasTo: to,
  utilization: u,
  at: ago(s),
});
const up = (alg: string, s: number) => record(alg, s, 'scale-up', 'AboveMax', 2, 3, 90);
const down = (alg: string, s: number) => record(alg, s, 'scale-down', 'BelowMin', 4, 3, 20);
const held = (alg: string, s: number) => record(alg, s, 'hold', 'WithinRange', 3, 3, 50);

/**
 * The pass's decision (`action reason`) for `alg` (3 replicas in Git, 3 Ready pods at `u` %) with
 * `recent` records, the set's standby as `standby`, under `policy` on the loop.
 */
function decided(
  policy: Policy,
  alg: string,
  standby: Standby,
  u: number,
  recent: (alg: string) => DecisionRecord[],
): string {
  const own = [0, 1, 2].map((i) => replica(alg, i));
  const pods = standby === 'none' ? own : [...own, standbyPod(standby === 'ready')];
  const series = own.map((p) => ({
    metric: 'DCGM_FI_DEV_GPU_UTIL',
    labels: { UUID: `GPU-${p.name}`, node: 'gpu-s1', exported_pod: p.name, exported_namespace: p.namespace },
    value: u,
    timestamp: NOW.getTime(),
  }));
  const node = nodeInfo('gpu-s1', {
    pool: 'short-task',
    labels: { 'gpuops.dev/pool': 'short-task' },
    gpuRequested: pods.filter((p) => p.nodeName !== null).length,
  });
  const path = `clusters/prod/algorithms/${alg}/deployment.yaml`;
  const git = readGitModel('prod', new Map([[path, deploymentText(alg)]]), 'gpuops.dev/pool');
  const step = planScaling({
    algorithms: [algorithm(alg)],
    placements: [],
    git,
    snapshot: { takenAt: NOW.toISOString(), nodes: [node], pods, replicaSets: [rsOf(alg), standbyRs] },
    reading: { ok: true, series, errors: [], evaluatedAt: NOW.getTime() },
    recent: recent(alg),
    policy,
    now: NOW,
    loop: LOOP,
  });
  const d = step.decisions.find((x) => x.algorithm === alg)!;
  return `${d.action} ${d.reason}`;
}

type Row = [string, string, Standby, (alg: string) => DecisionRecord[], string];

describe('the pass’s scale-down windows: the policy’s 300 s with a Ready standby, the loop’s 175 s / 75 s without', () => {
  // Three pods at 10 %: below min 30, a scale-down is due once the windows let it.
  it.each<Row>([
    // The scale-down cooldown (any change): the policy's 300 s while a standby of bert's set is Ready.
    ['Ready standby: cooldown one second short', 'bert', 'ready', (a) => [up(a, 299)], 'hold CooldownActive'],
    ['Ready standby: cooldown over', 'bert', 'ready', (a) => [up(a, 300)], 'scale-down BelowMin'],
    // The stabilisation window: a pass 299 s ago recommended 3, so the window keeps 3.
    [
      'Ready standby: window one second short',
      'bert',
      'ready',
      (a) => [up(a, 1000), held(a, 299)],
      'hold StabilizationWindow',
    ],
    [
      'Ready standby: window passed',
      'bert',
      'ready',
      (a) => [up(a, 1000), held(a, 300)],
      'scale-down BelowMin',
    ],
    // The set's standby still starting: no claim is fast, the loop's windows of the cold start.
    [
      'standby not Ready: cooldown 75 s, one second short',
      'bert',
      'starting',
      (a) => [up(a, 74)],
      'hold CooldownActive',
    ],
    [
      'standby not Ready: cooldown over, window 175 s not',
      'bert',
      'starting',
      (a) => [up(a, 75)],
      'hold StabilizationWindow',
    ],
    [
      'standby not Ready: window one second short',
      'bert',
      'starting',
      (a) => [up(a, 1000), held(a, 174)],
      'hold StabilizationWindow',
    ],
    [
      'standby not Ready: window passed',
      'bert',
      'starting',
      (a) => [up(a, 1000), held(a, 175)],
      'scale-down BelowMin',
    ],
    // No standby pod at all: the loop's.
    [
      'no standby: cooldown over at 75 s',
      'bert',
      'none',
      (a) => [up(a, 1000), held(a, 175)],
      'scale-down BelowMin',
    ],
    // A Ready standby of a set gpt is not in: the loop's (gpt cannot claim it).
    [
      'not in the set: cooldown 75 s, one second short',
      'gpt',
      'ready',
      (a) => [up(a, 74)],
      'hold CooldownActive',
    ],
    [
      'not in the set: window passed at 175 s',
      'gpt',
      'ready',
      (a) => [up(a, 1000), held(a, 175)],
      'scale-down BelowMin',
    ],
  ])('%s', (_name, alg, standby, recent, want) => {
    expect(decided(stepPolicy, alg, standby, 10, recent)).toBe(want);
  });
});

describe('the pass’s flap hold: the claim’s 38 s with a Ready standby, the loop’s 175 s without', () => {
  // Three pods at 95 % (headroom sizing): a scale-up is due once the flap hold since the last scale-down ends.
  it.each<Row>([
    ['Ready standby: one second short', 'bert', 'ready', (a) => [down(a, 37)], 'hold WouldFlap'],
    ['Ready standby: over', 'bert', 'ready', (a) => [down(a, 38)], 'scale-up HeadroomShort'],
    ['standby not Ready: one second short', 'bert', 'starting', (a) => [down(a, 174)], 'hold WouldFlap'],
    ['standby not Ready: over', 'bert', 'starting', (a) => [down(a, 175)], 'scale-up HeadroomShort'],
    ['not in the set: 38 s holds', 'gpt', 'ready', (a) => [down(a, 38)], 'hold WouldFlap'],
    ['not in the set: over at 175 s', 'gpt', 'ready', (a) => [down(a, 175)], 'scale-up HeadroomShort'],
  ])('%s', (_name, alg, standby, recent, want) => {
    expect(decided(headroomPolicy, alg, standby, 95, recent)).toBe(want);
  });
});
