/**
 * Claimed standby pods count as the algorithm's replicas (docs/standby.md, "Claims and Git"): the
 * decision's `from` is Git's replicas G plus the pods gpuops claimed for it C, its `to` stays
 * within `minReplicas..maxReplicas`, and the scale change set writes only the Deployment's part
 * (`G + deployment`), so Git's replicas plus the claimed pods are `to`. Each boundary beside its
 * neighbour: claims at the max, at the min, no standby, a pod that only looks claimed, a pause.
 * The whole step runs (`planScaling` → `scaleChanges`) on a snapshot and a DCGM reading.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { PodInfo } from '../../src/cluster/types.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { planScaling, scaleChanges } from '../../src/plan/scaling.js';
import { policyWith } from '../benchmark/fixtures.js';
import { templates } from '../support/cluster-mixed.js';
import { resolvedAlgorithm } from '../support/resolved-algorithm.js';
import { STANDBY_SET as SET } from '../support/standby-policy.js';
import {
  algorithmReplica,
  algorithmRs,
  deploymentYaml,
  gpuUtilSeries,
  managedPod,
  shortTaskNode,
  standbyPod,
  standbyRs,
} from '../support/standby-snapshot.js';

const NOW = new Date('2026-12-06T12:00:00Z');
const PATH = 'clusters/prod/algorithms/bert/deployment.yaml';
const policy = await policyWith((p) => {
  p.standby = [SET];
  p.scaling.utilization = { min: 30, max: 80 };
  p.scaling.scaleUp = { ...p.scaling.scaleUp, cooldownSeconds: 0, stabilizationWindowSeconds: 0 };
  p.scaling.scaleDown = { ...p.scaling.scaleDown, cooldownSeconds: 0, stabilizationWindowSeconds: 0 };
});

/** A pod gpuops claimed for bert: released (no owner), its own uid as the claim mark. */
const claimed = (i: number, o: Partial<PodInfo> = {}) => {
  const name = `gpuops-standby-llm-aaa111-c${i}`;
  return managedPod(
    name,
    { 'gpuops.dev/claimed-from': 'llm', 'gpuops.dev/algorithm': 'bert', 'app.kubernetes.io/name': 'bert' },
    { claimedUid: `uid-${name}`, ...o },
  );
};
/** Pods that carry the claim's labels but are not gpuops's claims. */
const FOREIGN = {
  /** A hand-made pod whose annotation is its own uid, but not named by the standby ReplicaSet. */
  byHand: () => ({ ...claimed(9), name: 'bert-by-hand', uid: 'uid-h', claimedUid: 'uid-h' }),
  /** A copy of a claimed pod (`kubectl get -o yaml` then apply): the annotation is another pod's uid. */
  copied: () => ({ ...claimed(8), uid: 'uid-copy' }),
};

const alg = (minReplicas: number, maxReplicas: number) =>
  resolvedAlgorithm('bert', {
    scaling: { minReplicas, maxReplicas, utilization: { min: 30, max: 80 } },
    placement: 'short-task',
  });

/** A case: Git's replicas, claimed pods, Ready standbys, utilisation (%), and the rest. */
const at = (git: number, claimed: number, ready: number, util: number, more: Partial<Case> = {}): Case => ({
  git,
  claimed,
  ready,
  util,
  ...more,
});
/** A row of the table: the case, its decision `from→to`, Git's replicas after, the pod changes (none: `[]`). */
const row = (
  name: string,
  c: Case,
  decision: string,
  gitReplicas: number,
  actions: readonly string[] = [],
): [string, Case, string, number, readonly string[]] => [name, c, decision, gitReplicas, actions];

interface Case {
  /** Git's replicas G, claimed pods C, Ready standbys R, the Deployment's pods' and claimed pods' utilisation (%). */
  git: number;
  claimed: number;
  ready: number;
  util: number;
  min?: number;
  max?: number;
  extra?: readonly PodInfo[];
}

/** The step on one case: the decision, Git's replicas after the change set, the pod changes, the samples. */
function run(c: Case) {
  const pods = [
    ...Array.from({ length: c.git }, (_, i) => algorithmReplica('bert', i)),
    ...Array.from({ length: c.claimed }, (_, i) => claimed(i)),
    ...Array.from({ length: c.ready }, (_, i) => standbyPod(i)),
    ...(c.extra ?? []),
  ];
  const series = gpuUtilSeries(
    pods.filter((p) => p.algorithm === 'bert'),
    c.util,
    NOW.getTime(),
  );
  const node = shortTaskNode(pods.length);
  const snapshot = {
    takenAt: NOW.toISOString(),
    nodes: [node],
    pods,
    replicaSets: [algorithmRs('bert', 1), standbyRs(2)],
  };
  const git = readGitModel('prod', new Map([[PATH, deploymentYaml('bert', c.git)]]), 'gpuops.dev/pool');
  const step = planScaling({
    algorithms: [alg(c.min ?? 1, c.max ?? 6)],
    placements: [],
    git,
    snapshot,
    reading: { ok: true, series, errors: [], evaluatedAt: NOW.getTime() },
    recent: [],
    policy,
    now: NOW,
  });
  const changes = scaleChanges({ step, git, pools: [], nodes: [node], policy, templates, now: NOW });
  const file = changes[0]?.files.find((f) => f.path === PATH);
  const d = step.decisions[0]!;
  return {
    decision: `${d.action} ${d.replicas.from}→${d.replicas.to}`,
    gitReplicas: file ? (parse(file.content!) as { spec: { replicas: number } }).spec.replicas : c.git,
    actions: (step.standby ?? []).map((a) => `${a.kind} ${a.pod.replace(/^gpuops-standby-llm-\w+-/, '')}`),
    sampled: step.pass.samples.map((s) => s.pod).sort(),
    d,
  };
}

describe("claimed standby pods are the algorithm's replicas", () => {
  it.each([
    row('a scale-up one Ready standby covers: a claim, Git unchanged', at(1, 0, 2, 100), 'scale-up 1→2', 1, [
      'claim s0',
    ]),
    row('no standby Ready: the Deployment takes it (1 → 2 in Git)', at(1, 0, 0, 100), 'scale-up 1→2', 2),
    row('a claimed pod counts: 2 → 3 with no standby, Git 1 → 2', at(1, 1, 0, 100), 'scale-up 2→3', 2),
    row('claims at the max: Git 2 + 1 claimed = max 3, no more', at(2, 1, 2, 100, { max: 3 }), 'hold 3→3', 2),
    row(
      'one below the max: one claim, Git 2 + 2 claimed = 4',
      at(2, 1, 2, 100, { max: 4 }),
      'scale-up 3→4',
      2,
      ['claim s0'],
    ),
    row(
      'claims past the max (max lowered): the claimed pod goes back, Git stays',
      at(3, 1, 0, 50, { max: 3 }),
      'scale-down 4→3',
      3,
      ['give-back c0'],
    ),
    row(
      'at the min with a claimed pod: Git 1 + 1 claimed = min 2, a hold',
      at(1, 1, 0, 10, { min: 2 }),
      'hold 2→2',
      1,
    ),
    row(
      'one above the min: the claimed pod goes back first, Git stays at the min',
      at(2, 1, 0, 10, { min: 2 }),
      'scale-down 3→2',
      2,
      ['give-back c0'],
    ),
    row('a scale-down with no claimed pod left lowers Git', at(3, 0, 1, 10, { min: 2 }), 'scale-down 3→2', 2),
    row(
      'a pod by hand with the claim labels and its own uid: not counted',
      at(1, 0, 0, 100, { extra: [FOREIGN.byHand()] }),
      'scale-up 1→2',
      2,
    ),
    row(
      'a copy of a claimed pod (another pod uid): not counted',
      at(1, 0, 0, 100, { extra: [FOREIGN.copied()] }),
      'scale-up 1→2',
      2,
    ),
    row('replicas 0 in Git is a pause: a claimed pod does not resume it', at(0, 1, 1, 100), 'hold 0→0', 0),
  ])('%s', (_, c, decision, gitReplicas, actions) => {
    const out = run(c);
    expect(out.decision).toBe(decision);
    expect(out.gitReplicas).toBe(gitReplicas);
    expect(out.actions).toEqual(actions);
    const to = out.d.replicas.to;
    const kept =
      c.claimed +
      actions.filter((a) => a.startsWith('claim')).length -
      actions.filter((a) => a.startsWith('give-back')).length;
    // Git's replicas plus the claimed pods are the decision's `to` (but for a pause, which Git alone says).
    if (c.git > 0) expect(gitReplicas + kept).toBe(to);
  });

  it("a claimed pod's GPU is a sample of its algorithm; a look-alike's is not", () => {
    expect(run({ git: 1, claimed: 1, ready: 0, util: 50 }).sampled).toEqual([
      'bert-abc-0',
      'gpuops-standby-llm-aaa111-c0',
    ]);
    expect(
      run({ git: 1, claimed: 0, ready: 0, util: 50, extra: [FOREIGN.byHand(), FOREIGN.copied()] }).sampled,
    ).toEqual(['bert-abc-0']);
  });

  it('the decision says what standby pods carry (the pull request shows it)', () => {
    expect(run({ git: 1, claimed: 1, ready: 1, util: 100 }).d.standby).toEqual({
      set: 'llm',
      claimed: 1,
      claim: 1,
      giveBack: 0,
      deployment: 0,
    });
  });
});
