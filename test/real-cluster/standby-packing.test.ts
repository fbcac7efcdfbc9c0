/**
 * The standby's preferred pod affinity on the real control plane (docs/standby.md, "Pool
 * node-hours on the pod groups"): kube-scheduler's default profile, with NodeResourcesFit's
 * `LeastAllocated` and InterPodAffinity (and its PodTopologySpread system defaults), puts the
 * standby pods gpuops renders on the pool node that already runs an algorithm's replicas, not on
 * the empty pool node beside it; the same Deployment without the affinity goes to the empty node.
 */
import { AppsV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy } from '../../src/definitions/types.js';
import { renderStandbyDeployment, STANDBY_LABEL } from '../../src/manifests/standby.js';
import { STANDBY_SET } from '../support/standby-policy.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const NS = STANDBY_SET.namespace;
let h: RealHarness;
let policy: Policy;

type Pod = KubeObject<{ nodeName?: string }, { phase?: string }>;
/** The nodes the pods of `selector` run on, once `n` run (sorted). */
const runningOn = (selector: string, n: number) =>
  until(`${n} pod(s) of ${selector} run`, async () => {
    const pods = ((await h.pods(NS, selector)) as Pod[]).filter(
      (p) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running',
    );
    return pods.length === n && pods.map((p) => p.spec?.nodeName ?? '').sort();
  });

describeReal(
  "standby pods pack onto the pool's busy node",
  () => {
    beforeAll(async () => {
      h = await startRealHarness({ flux: false, metrics: false });
      policy = await loadDefaultPolicy();
      const pool = { [policy.spec.pools.labelKey]: 'short-task' };
      await h.addNodes([{ name: 'gpu-busy', gpus: 8, labels: pool }]);
      await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      const labels = { 'app.kubernetes.io/name': 'bert', 'gpuops.dev/algorithm': 'bert' };
      await h.apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'bert', namespace: NS },
        spec: {
          replicas: 3,
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              nodeSelector: pool,
              tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
              containers: [
                {
                  name: 'bert',
                  image: 'registry.example.com/ml/bert:1',
                  // cpu too: kube-scheduler's default NodeResourcesFit scores cpu and memory, not
                  // extended resources, so without it the two nodes tie and the control below would
                  // go either way.
                  resources: { requests: { cpu: '16' }, limits: { 'nvidia.com/gpu': '1' } },
                },
              ],
            },
          },
        },
      });
      expect(await runningOn('gpuops.dev/algorithm=bert', 3)).toEqual(['gpu-busy', 'gpu-busy', 'gpu-busy']);
      // The empty pool node comes after bert's replicas are bound.
      await h.addNodes([{ name: 'gpu-empty', gpus: 8, labels: pool }]);
    });
    afterAll(async () => {
      await h?.close();
    });

    it('without the affinity a standby goes to the empty node; with it both standbys go to the busy one', async () => {
      const plainSet = { ...STANDBY_SET, name: 'plain' };
      const plain = renderStandbyDeployment(plainSet, policy.spec, 1) as KubeObject & {
        spec: { template: { spec: Record<string, unknown> } };
      };
      delete plain.spec.template.spec['affinity'];
      await h.apply(plain);
      expect(await runningOn(`${STANDBY_LABEL}=plain`, 1)).toEqual(['gpu-empty']);
      // Gone before the next set comes: its label is one the standby's terms match.
      await h.kc
        .makeApiClient(AppsV1Api)
        .deleteNamespacedDeployment({ name: plain.metadata.name, namespace: NS, gracePeriodSeconds: 0 });
      await until(
        'the plain standby is gone',
        async () => (await h.pods(NS, `${STANDBY_LABEL}=plain`)).length === 0,
      );

      await h.apply(renderStandbyDeployment(STANDBY_SET, policy.spec, 2));
      expect(await runningOn(`${STANDBY_LABEL}=${STANDBY_SET.name}`, 2)).toEqual(['gpu-busy', 'gpu-busy']);
    });
  },
  { flux: false },
);
