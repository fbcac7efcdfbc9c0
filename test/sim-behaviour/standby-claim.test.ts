/**
 * A claim of a warm standby pod on the simulated cluster (docs/standby.md): the standby Deployment
 * gpuops renders keeps its pods Ready; a claim (the label patch gpuops sends) moves one into an
 * algorithm's Service, whose EndpointSlice lists it Ready at once (no start-up: the pod was bound,
 * pulled and Ready), while the standby ReplicaSet releases it, as kube-controller-manager's
 * controller ref manager does, and backfills a new standby that takes the cold start. A give-back
 * makes the ReplicaSet adopt the pod again and delete its surplus, the newest standby.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import type { Policy } from '../../src/definitions/types.js';
import {
  claimPatch,
  giveBackPatch,
  POD_TEMPLATE_HASH,
  renderStandbyDeployment,
  STANDBY_LABEL,
} from '../../src/manifests/standby.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { mergePatch } from '../../src/sim/patch.js';
import type { KubeObject } from '../../src/sim/types.js';
import { claimedPods, readyStandbys } from '../../src/scaling/rules/claim-actions.js';
import { BERT_SERVICE, isReady, STANDBY_SET } from '../support/standby-policy.js';
import { gpuNode, Harness } from './harness.js';

const SET = STANDBY_SET;

let policy: Policy;
beforeAll(async () => {
  policy = await loadDefaultPolicy();
});

const standbys = (h: Harness) =>
  h.store.list('pods', 'algorithms').filter((p) => p.metadata.labels?.[STANDBY_LABEL] === SET.name);
const endpoints = (h: Harness) =>
  (h.store.list('endpointslices', 'algorithms')[0]?.endpoints ?? []) as {
    targetRef: { name: string };
    conditions: { ready: boolean };
  }[];

/** A cluster with one short-task node of 4 GPUs, the standby Deployment at 2 (Ready) and bert's Service. */
function cluster(): Harness {
  const h = new Harness(defaultControllers({ startupSeconds: 60, garbageCollection: true }));
  h.apply('nodes', gpuNode('gpu-1', 4, { [policy.spec.pools.labelKey]: 'short-task' }));
  h.apply('deployments', renderStandbyDeployment(SET, policy.spec, 2) as never);
  h.apply('services', BERT_SERVICE);
  h.advance(60);
  return h;
}

/** Patches a pod's labels as gpuops's claim or give-back does (JSON merge patch). */
function relabel(h: Harness, name: string, patch: unknown): void {
  const pod = h.pod('algorithms', name);
  h.store.update('pods', mergePatch(pod, patch) as KubeObject);
  h.settle();
}

/** gpuops's claim patch of pod `name` for `algorithm` (it carries the pod's uid). */
const claim = (h: Harness, name: string, algorithm = 'bert') =>
  relabel(h, name, claimPatch(SET, algorithm, h.pod('algorithms', name).metadata.uid!));

/** The standby and claimed pods gpuops's rule finds, on the snapshot reduced from the store. */
function found(h: Harness): { standbys: string[]; claimed: string[] } {
  const snap = buildSnapshot(
    h.store.list('nodes') as never,
    h.store.list('pods') as never,
    new Date(0),
    {},
    h.store.list('replicasets') as never,
  );
  return {
    standbys: readyStandbys(SET, snap).map((p) => p.name),
    claimed: claimedPods(SET, 'bert', snap).map((p) => p.name),
  };
}

describe('a standby claim on the simulated cluster', () => {
  it('the claimed pod is a Ready endpoint of the Service at once; the ReplicaSet releases it and backfills cold', () => {
    const h = cluster();
    const before = standbys(h);
    expect(before.map(isReady)).toEqual([true, true]);
    expect(endpoints(h)).toEqual([]);
    const claimed = before[0]!.metadata.name;
    // The controllers write the owner chain the rule asks for: Pod → ReplicaSet → Deployment, controller: true.
    expect(found(h)).toEqual({ standbys: before.map((p) => p.metadata.name).sort(), claimed: [] });
    claim(h, claimed);
    // Within the same second: the Service's EndpointSlice lists it, Ready.
    expect(endpoints(h).map((e) => [e.targetRef.name, e.conditions.ready])).toEqual([[claimed, true]]);
    // Released: no controller owns it; the standby ReplicaSet made a new pod, still starting.
    expect(h.pod('algorithms', claimed).metadata.ownerReferences ?? []).toEqual([]);
    const now = standbys(h);
    expect(now).toHaveLength(2);
    const backfill = now.find((p) => p.metadata.name !== before[1]!.metadata.name)!;
    expect(isReady(backfill)).toBe(false);
    h.advance(59);
    expect(isReady(h.pod('algorithms', backfill.metadata.name))).toBe(false);
    h.advance(1);
    expect(isReady(h.pod('algorithms', backfill.metadata.name))).toBe(true);
    expect(endpoints(h)).toHaveLength(1);
    // Released, the claimed pod is still known as gpuops's claim (its name and the claim's mark).
    expect(found(h)).toEqual({ standbys: now.map((p) => p.metadata.name).sort(), claimed: [claimed] });
  });

  it('a give-back: the ReplicaSet adopts the pod and deletes its newest standby; the endpoint goes', () => {
    const h = cluster();
    const [first, second] = standbys(h);
    claim(h, first!.metadata.name);
    h.advance(60);
    const backfill = standbys(h).find((p) => p.metadata.name !== second!.metadata.name)!;
    expect(backfill.metadata.name).not.toBe(first!.metadata.name);
    expect(endpoints(h)).toHaveLength(1);
    const hash = second!.metadata.labels![POD_TEMPLATE_HASH]!;
    relabel(h, first!.metadata.name, giveBackPatch(SET, hash));
    const after = standbys(h)
      .map((p) => p.metadata.name)
      .sort();
    expect(after).toEqual([first!.metadata.name, second!.metadata.name].sort());
    expect(h.store.get('pods', 'algorithms', backfill.metadata.name)).toBeUndefined();
    expect(h.pod('algorithms', first!.metadata.name).metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    expect(endpoints(h)).toEqual([]);
  });

  it('an orphan that matches no ReplicaSet stays an orphan; a claim for an algorithm outside the set is refused', () => {
    const h = cluster();
    const [first] = standbys(h);
    claim(h, first!.metadata.name);
    h.advance(60);
    // Back with a stale template hash: no ReplicaSet adopts it (gpuops deletes such a pod instead).
    relabel(h, first!.metadata.name, giveBackPatch(SET, 'stale0000'));
    expect(h.pod('algorithms', first!.metadata.name).metadata.ownerReferences ?? []).toEqual([]);
    expect(standbys(h)).toHaveLength(3);
    expect(() => claimPatch(SET, 'resnet', 'uid-1')).toThrow(
      /cannot become resnet \(it serves bert, llama\)/,
    );
  });
});
