/**
 * A replica the ResourceQuota admission plugin refuses, on the real control plane: Git asks for 3
 * replicas of a 1-GPU algorithm in a namespace whose quota allows 1 GPU. A scale-up commits more
 * replicas; kube-controller-manager's ReplicaSet controller gets `403 exceeded quota` for each new
 * pod and sets the
 * ReplicaSet's `ReplicaFailure` condition (`FailedCreate`); gpuops's next pass reports the
 * refusal in the API server's words (`hold ReplicasRefused`), not a replica "starting", and
 * proposes no further scale-up. The simulator's counterpart: test/scaling/replicas-refused.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PassResult } from '../../src/pass/reconcile.js';
import { algorithmFile } from '../support/reconcile-harness.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';
import { twinFiles } from './sim-twin.js';

type Deployment = { spec: { replicas: number }; status?: { readyReplicas?: number } };
type ReplicaSet = {
  metadata: { ownerReferences?: { name: string }[] };
  status?: { conditions?: { type: string; reason?: string; message?: string }[] };
};

let h: RealHarness;
const scaling = (r: PassResult) => r.plan.scaling.find((s) => s.algorithm === 'serve');

describeReal('a replica the ResourceQuota refuses', () => {
  beforeAll(async () => {
    h = await startRealHarness({
      files: twinFiles(algorithmFile('serve', { pool: 'short-task', maxReplicas: 3 })),
    });
    await h.addNodes([{ name: 'gpu-s', gpus: 4, labels: { 'gpuops.dev/pool': 'short-task' } }]);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is reported as refused, in the API server’s words, and no scale-up follows', async () => {
    await h.pass();
    h.merge('gpuops/prod/pools');
    await h.sync();
    await h.apply(
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'gpu-quota', namespace: 'algorithms' },
        spec: { hard: { 'requests.nvidia.com/gpu': '1' } },
      },
      'team-quota',
    );
    await until('serve is placed', async () =>
      (await h.pass()).writeBack.some((w) => /placement\/serve/.test(w.branch)),
    );
    h.merge('gpuops/prod/placement/serve');
    await h.sync();
    await until('one replica runs', async () => {
      const d = await h.get<Deployment>('/apis/apps/v1/namespaces/algorithms/deployments/serve');
      return d.status?.readyReplicas === 1;
    });

    // One replica 250 % busy against a max of 80 %: more replicas than the quota's one GPU allows.
    h.local.load.setLoad('serve', 250);
    const up = await until('a scale-up is decided', async () => {
      const pass = await h.pass();
      return scaling(pass)?.action === 'scale-up' && pass;
    });
    const to = scaling(up)!.replicas.to;
    expect(to).toBeGreaterThan(1);
    h.merge('gpuops/prod/scale/serve');
    await h.sync();
    const failure = await until('the ReplicaSet reports the refusal', async () => {
      const rs = await h.get<{ items: ReplicaSet[] }>('/apis/apps/v1/namespaces/algorithms/replicasets');
      const owned = rs.items.filter((x) => x.metadata.ownerReferences?.some((o) => o.name === 'serve'));
      return owned
        .flatMap((x) => x.status?.conditions ?? [])
        .find((c) => c.type === 'ReplicaFailure' && c.reason === 'FailedCreate');
    });
    expect(failure.message).toMatch(/exceeded quota: gpu-quota/);
    expect(await h.pods('algorithms', 'gpuops.dev/algorithm=serve')).toHaveLength(1);

    const held = await until('gpuops holds on the refusal', async () => {
      const pass = await h.pass();
      return scaling(pass)?.reason === 'ReplicasRefused' && pass;
    });
    expect(scaling(held)).toMatchObject({ action: 'hold', replicas: { from: to, to } });
    expect(scaling(held)?.message).toMatch(
      new RegExp(
        `^serve: ${to - 1} of ${to} replica\\(s\\) not created, the API server refuses them \\(.*exceeded quota: gpu-quota.*\\); replicas stay at ${to}`,
      ),
    );
    expect(held.writeBack.filter((w) => w.action !== 'unchanged' && w.action !== 'in-base')).toEqual([]);
  });
});
