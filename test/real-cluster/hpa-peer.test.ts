/**
 * The HPA peer: the replay's HPA model (src/replay/model-hpa.ts) against the real
 * HorizontalPodAutoscaler of kube-controller-manager on the same utilisation steps. The real HPA
 * reads `DCGM_FI_DEV_GPU_UTIL` per pod through the custom metrics API (prometheus-adapter over the
 * Prometheus that scrapes the dcgm-exporter pages, registered as an APIService), syncing every
 * second; a Deployment `serve` of 1-GPU pods on a KWOK node carries the load model's offered load
 * (GPU-percent, spread over the Ready replicas, each GPU at most 100 %). After each step, once the
 * HPA has read the new utilisation and its replicas are Ready and unchanged for 5 s, its replica
 * count is compared with the model's after the same step (the model's 15 s ticks, at most 8: the
 * last step, a drop, is held by both by the default 300 s scale-down stabilisation).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { modelHpa } from '../../src/replay/model-hpa.js';
import { ADAPTER_BINARY } from '../../src/local-cluster/metrics-adapter.js';
import { describeReal, startRealHarness, until, type RealHarness } from './harness.js';

const NS = 'hpa-peer';
const TARGET = 60;
const MAX = 6;
/** Offered load of each step (GPU-percent): hold at 1, up to 3, up to 5, a drop held at 5. */
const STEPS = [50, 150, 300, 100];
const LABELS = { 'gpuops.dev/algorithm': 'serve' };

/** Utilisation of each Ready replica's GPU under `load` (the load model's rule). */
const utilisation = (load: number, ready: number) => Math.min(100, load / ready);

/** The model after each step: ticks of 15 s until its replicas hold for a tick (at most 8). */
function modelSteps(steps: number[]): number[] {
  const hpa = modelHpa(TARGET, MAX);
  let replicas = 1;
  let t = 0;
  return steps.map((load) => {
    for (let tick = 0; tick < 8; tick++, t += 15) {
      const next = hpa(t, replicas, replicas, utilisation(load, replicas));
      if (next === replicas) break;
      replicas = next;
    }
    return replicas;
  });
}

const quantity = (q: string) => (q.endsWith('m') ? Number(q.slice(0, -1)) / 1000 : Number(q));

interface HpaStatus {
  currentReplicas?: number;
  desiredReplicas?: number;
  currentMetrics?: { pods?: { current?: { averageValue?: string } } }[];
}

let h: RealHarness;

describeReal(
  'the HPA peer: the replay model against the real HorizontalPodAutoscaler',
  () => {
    beforeAll(async () => {
      h = await startRealHarness({ flux: false, customMetrics: true, hpaSyncSeconds: 1 });
      await h.addNodes([{ name: 'gpu-h', gpus: 8 }]);
      await h.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await h.apply({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'serve', namespace: NS },
        spec: {
          replicas: 1,
          selector: { matchLabels: LABELS },
          template: {
            metadata: { labels: LABELS },
            spec: {
              containers: [
                {
                  name: 'serve',
                  image: 'registry.example.com/ml/serve:1.0.0',
                  resources: { limits: { 'nvidia.com/gpu': '1' } },
                },
              ],
            },
          },
        },
      });
      await h.apply({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'serve', namespace: NS },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'serve' },
          minReplicas: 1,
          maxReplicas: MAX,
          metrics: [
            {
              type: 'Pods',
              pods: {
                metric: { name: 'DCGM_FI_DEV_GPU_UTIL' },
                target: { type: 'AverageValue', averageValue: String(TARGET) },
              },
            },
          ],
        },
      });
    });
    afterAll(async () => {
      await h?.close();
    });

    it('gives the same replicas as the model after each utilisation step', async () => {
      const real: number[] = [];
      const seen: number[] = [];
      for (const load of STEPS) {
        h.local.load.setLoad('serve', load);
        let stable = { replicas: -1, since: 0 };
        let last = '';
        const replicas = await until(
          `the HPA settles at load ${load}`,
          async () => {
            const hpa = await h.get<{ status?: HpaStatus }>(
              `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers/serve`,
            );
            const dep = await h.get<{ spec: { replicas: number }; status?: { readyReplicas?: number } }>(
              `/apis/apps/v1/namespaces/${NS}/deployments/serve`,
            );
            const s = hpa.status ?? {};
            const avg = s.currentMetrics?.[0]?.pods?.current?.averageValue;
            const ready = dep.status?.readyReplicas ?? 0;
            last = `desired ${s.desiredReplicas}, current ${s.currentReplicas}, ready ${ready}, average ${avg}`;
            if (seen.at(-1) !== dep.spec.replicas) seen.push(dep.spec.replicas);
            const settled =
              avg !== undefined &&
              Math.abs(quantity(avg) - utilisation(load, ready)) <= 1 &&
              s.desiredReplicas === s.currentReplicas &&
              s.currentReplicas === ready &&
              dep.spec.replicas === ready;
            if (!settled) stable = { replicas: -1, since: 0 };
            else if (stable.replicas !== ready) stable = { replicas: ready, since: Date.now() };
            return settled && Date.now() - stable.since >= 5000 && ready;
          },
          90_000,
        ).catch((err: unknown) => {
          throw new Error(`${(err as Error).message}; last: ${last}`);
        });
        real.push(replicas);
      }
      console.log(
        `HPA peer: loads ${STEPS.join(', ')}; real ${real.join(', ')}; replicas seen ${seen.join(' → ')}`,
      );
      expect(modelSteps(STEPS)).toEqual([1, 3, 5, 5]);
      expect(real).toEqual(modelSteps(STEPS));
    });
  },
  { flux: false, also: [ADAPTER_BINARY] },
);
