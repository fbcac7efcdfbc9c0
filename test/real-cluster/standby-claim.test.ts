/**
 * A standby claim on the real control plane (docs/standby.md): the standby Deployment gpuops
 * renders runs on a KWOK GPU node; gpuops, as its ServiceAccount with the shipped `gpuops-claim`
 * ClusterRole bound by the namespace file it renders, merge-patches one standby pod's labels.
 * kube-controller-manager's ReplicaSet controller releases the pod and backfills a new standby, its
 * EndpointSlice controller lists the pod as a Ready endpoint of the algorithm's Service; the
 * give-back patch makes the ReplicaSet adopt the pod again and delete its surplus.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import { DEFAULT_SERVICE_ACCOUNT, renderNamespaceFile } from '../../src/manifests/namespaces.js';
import {
  claimPatch,
  giveBackPatch,
  POD_TEMPLATE_HASH,
  renderStandbyDeployment,
  STANDBY_LABEL,
} from '../../src/manifests/standby.js';
import { buildSnapshot } from '../../src/cluster/snapshot.js';
import { claimedPods, readyStandbys } from '../../src/scaling/rules/claim-actions.js';
import { STANDBY_SET } from '../support/standby-policy.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const SET = STANDBY_SET;
const NS = SET.namespace;

type Pod = KubeObject<unknown, { conditions?: { type: string; status: string }[] }>;
interface Slice {
  endpoints?: { targetRef?: { name: string }; conditions?: { ready?: boolean } }[];
}

let h: RealHarness;
const isReady = (p: Pod) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const live = (p: Pod) => !p.metadata.deletionTimestamp;
const standbys = async () => ((await h.pods(NS, `${STANDBY_LABEL}=${SET.name}`)) as Pod[]).filter(live);
const readyEndpoints = async () => {
  const list = await h.get<{ items: Slice[] }>(
    `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dbert`,
  );
  return list.items
    .flatMap((s) => s.endpoints ?? [])
    .filter((e) => e.conditions?.ready)
    .map((e) => e.targetRef?.name);
};
/** The standby and claimed pods (of bert) gpuops's rule finds in the cluster's pods and ReplicaSets. */
const found = async () => {
  const rs = await h.get<{ items: never[] }>(`/apis/apps/v1/namespaces/${NS}/replicasets`);
  const snap = buildSnapshot([], (await h.pods(NS)) as never[], new Date(), {}, rs.items);
  return {
    standbys: readyStandbys(SET, snap).map((p) => p.name),
    claimed: claimedPods(SET, 'bert', snap).map((p) => p.name),
  };
};
/** A JSON merge patch of a pod, as gpuops (its ServiceAccount's token). */
const patchAsGpuops = (name: string, body: unknown) =>
  h.gpuopsKc
    .makeApiClient(CoreV1Api)
    .patchNamespacedPod(
      { name, namespace: NS, body, fieldManager: 'gpuops' },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );

describeReal(
  'a standby claim on the real control plane',
  () => {
    beforeAll(async () => {
      h = await startRealHarness({ flux: false, metrics: false });
      const policy = await loadDefaultPolicy();
      await h.addNodes([{ name: 'gpu-a', gpus: 4, labels: { [policy.spec.pools.labelKey]: 'short-task' } }]);
      const nsFile = renderNamespaceFile('prod', NS, DEFAULT_SERVICE_ACCOUNT, {
        scale: false,
        claimNamespaces: new Set([NS]),
      });
      for (const doc of parseAllDocuments(nsFile.content)) await h.apply(doc.toJS() as KubeObject);
      await h.apply(renderStandbyDeployment(SET, policy.spec, 2));
      await h.apply({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'bert', namespace: NS },
        spec: {
          selector: { 'app.kubernetes.io/name': 'bert', 'gpuops.dev/algorithm': 'bert' },
          ports: [{ name: 'http', port: 8000, targetPort: 8000, protocol: 'TCP' }],
        },
      });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('a claim: a Ready endpoint of the Service within seconds, the pod released, a standby backfilled; a give-back: adopted, the surplus deleted', async () => {
      const before = await until('two standby pods are Ready', async () => {
        const pods = await standbys();
        return pods.length === 2 && pods.every(isReady) && pods;
      });
      expect(await readyEndpoints()).toEqual([]);
      const claimed = before[0]!.metadata.name;
      const hash = before[0]!.metadata.labels![POD_TEMPLATE_HASH]!;
      // kube-controller-manager writes the owner chain the rule trusts (controller: true at each step).
      expect(await found()).toEqual({ standbys: before.map((p) => p.metadata.name).sort(), claimed: [] });

      const t0 = Date.now();
      await patchAsGpuops(claimed, claimPatch(SET, 'bert', before[0]!.metadata.uid!));
      await until(
        'the claimed pod is a Ready endpoint of bert',
        async () => (await readyEndpoints()).includes(claimed),
        30_000,
      );
      const seconds = (Date.now() - t0) / 1000;
      process.stderr.write(`standby claim → Ready endpoint: ${seconds.toFixed(1)} s\n`);

      const backfill = await until('the standby ReplicaSet released the pod and backfilled', async () => {
        const pod = (await h.pods(NS)).find((p) => p.metadata.name === claimed);
        const fresh = (await standbys()).filter((p) => p.metadata.name !== before[1]!.metadata.name);
        return (pod?.metadata.ownerReferences ?? []).length === 0 && fresh.length === 1 && fresh[0]!;
      });
      expect(backfill.metadata.name).not.toBe(claimed);
      await until('the backfill turns Ready', async () => (await standbys()).filter(isReady).length === 2);
      // Released (no owner left), the pod is still known as gpuops's claim; the backfill is a standby.
      expect(await found()).toEqual({
        standbys: [before[1]!.metadata.name, backfill.metadata.name].sort(),
        claimed: [claimed],
      });

      await patchAsGpuops(claimed, giveBackPatch(SET, hash));
      await until(
        'the ReplicaSet adopted the pod and deleted its surplus',
        async () => {
          const names = (await standbys()).map((p) => p.metadata.name).sort();
          const pod = (await h.pods(NS)).find((p) => p.metadata.name === claimed);
          return (
            names.length === 2 &&
            names.includes(claimed) &&
            pod?.metadata.ownerReferences?.[0]?.kind === 'ReplicaSet'
          );
        },
        60_000,
      );
      await until('no endpoint of bert is left', async () => (await readyEndpoints()).length === 0);
    });

    it('the claim grant stops at the set namespace: gpuops cannot relabel a pod in another one', async () => {
      const err = await patchAsGpuops('any', claimPatch(SET, 'bert', 'uid-1')).catch((e: unknown) => e);
      expect(err).toBeDefined(); // 404: allowed here, the pod does not exist
      const other = await h.gpuopsKc
        .makeApiClient(CoreV1Api)
        .patchNamespacedPod(
          { name: 'any', namespace: 'default', body: claimPatch(SET, 'bert', 'uid-1') },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )
        .catch((e: unknown) => e as { code?: number });
      expect((other as { code?: number }).code).toBe(403);
      expect((err as { code?: number }).code).toBe(404);
    });
  },
  { flux: false },
);
