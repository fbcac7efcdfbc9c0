/**
 * The simulated cluster's behaviour over HTTP, driven through @kubernetes/client-node: the core's
 * API server (`startSimCluster`) with `defaultControllers()` and the dcgm-exporter route, on the
 * cluster-mixed fixture.
 */
import { readFileSync } from 'node:fs';
import * as k8s from '@kubernetes/client-node';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { dcgmRoute } from '../../src/sim/dcgm/route.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import { LoadModel } from '../../src/sim/load-model.js';
import { until } from '../support/wait.js';

const fixture = (f: string): unknown =>
  JSON.parse(readFileSync(new URL(`../fixtures/cluster-mixed/${f}`, import.meta.url), 'utf8'));

let sim: SimCluster | undefined;
let core: k8s.CoreV1Api;
let batch: k8s.BatchV1Api;
let apps: k8s.AppsV1Api;
const load = new LoadModel({ foreignUtilizationPercent: 70 });

/** Polls `check` (every 20 ms) until it returns an object; the test support's `until`. */
const waitFor = <T extends object>(
  what: string,
  check: () => Promise<T | undefined>,
  ms = 5000,
): Promise<T> => until(what, check, ms, 20);

beforeAll(async () => {
  sim = await startSimCluster({
    nodes: fixture('nodes.json'),
    pods: fixture('pods.json'),
    controllers: defaultControllers({ loadModel: load }),
    routes: [dcgmRoute(() => sim, load)],
    tickMs: 50,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  batch = kc.makeApiClient(k8s.BatchV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: 'algorithms' } } });
});

afterAll(async () => {
  await sim?.close();
});

describe('simulated cluster over HTTP', () => {
  it('runs a benchmark Job: its pod Succeeds after the clock advances, with container timestamps and the termination message', async () => {
    await batch.createNamespacedJob({
      namespace: 'algorithms',
      body: {
        metadata: { name: 'bench-resnet', labels: { 'gpuops.dev/algorithm': 'resnet' } },
        spec: {
          backoffLimit: 0,
          activeDeadlineSeconds: 1800,
          template: {
            metadata: { labels: { 'gpuops.dev/algorithm': 'resnet' } },
            spec: {
              restartPolicy: 'Never',
              nodeSelector: { 'kubernetes.io/hostname': 'gpu-h100-01' },
              tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
              containers: [
                {
                  name: 'bench',
                  image: 'registry.example.com/ml/resnet50:1.4.2',
                  args: ['--bench', '--sim-duration=420', '--sim-termination-message'],
                  resources: { limits: { 'nvidia.com/gpu': '1' } },
                },
              ],
            },
          },
        },
      },
    });
    const running = await waitFor('the benchmark pod to run', async () => {
      const pods = await core.listNamespacedPod({
        namespace: 'algorithms',
        labelSelector: 'job-name=bench-resnet',
      });
      const p = pods.items[0];
      return p?.status?.phase === 'Running' ? p : undefined;
    });
    expect(running.spec?.nodeName).toBe('gpu-h100-01');
    const startedAt = running.status?.containerStatuses?.[0]?.state?.running?.startedAt;
    expect(startedAt).toBeInstanceOf(Date);

    sim!.clock.advance(420);
    const done = await waitFor('the benchmark pod to succeed', async () => {
      const p = await core.readNamespacedPod({ namespace: 'algorithms', name: running.metadata!.name! });
      return p.status?.phase === 'Succeeded' ? p : undefined;
    });
    const term = done.status!.containerStatuses![0]!.state!.terminated!;
    expect(term.exitCode).toBe(0);
    expect(term.startedAt!.getTime()).toBe((startedAt as Date).getTime());
    expect(term.finishedAt!.getTime() - term.startedAt!.getTime()).toBe(420_000);
    expect(JSON.parse(term.message!)).toEqual({ durationSeconds: 420 });

    const job = await waitFor('the Job to complete', async () => {
      const j = await batch.readNamespacedJob({ namespace: 'algorithms', name: 'bench-resnet' });
      return j.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? j : undefined;
    });
    expect(job.status?.succeeded).toBe(1);
    expect(job.status?.completionTime?.getTime()).toBe(term.finishedAt!.getTime());
  });

  it('runs a Deployment whose utilisation on the dcgm page follows the load model', async () => {
    load.setLoad('embed', 120);
    await apps.createNamespacedDeployment({
      namespace: 'algorithms',
      body: {
        metadata: { name: 'embed', labels: { 'gpuops.dev/algorithm': 'embed' } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { 'gpuops.dev/algorithm': 'embed' } },
          template: {
            metadata: {
              labels: { 'gpuops.dev/algorithm': 'embed', 'app.kubernetes.io/managed-by': 'gpuops' },
            },
            spec: {
              nodeSelector: { 'kubernetes.io/hostname': 'gpu-t4-01' },
              tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
              containers: [
                {
                  name: 'serve',
                  image: 'registry.example.com/ml/embed:2',
                  resources: { limits: { 'nvidia.com/gpu': '1' } },
                },
              ],
            },
          },
        },
      },
    });
    await waitFor('the Deployment to be ready', async () => {
      const d = await apps.readNamespacedDeployment({ namespace: 'algorithms', name: 'embed' });
      return d.status?.readyReplicas === 2 ? d : undefined;
    });
    const res = await fetch(`${sim!.url}/dcgm/gpu-t4-01/metrics`);
    expect(res.status).toBe(200);
    const util = parsePrometheusTextFormat(await res.text()).find((f) => f.name === 'DCGM_FI_DEV_GPU_UTIL')!;
    const embed = util.metrics.filter((m) => m.labels?.pod?.startsWith('embed-'));
    expect(embed.map((m) => m.value)).toEqual(['60', '60']);
    expect(
      embed.every(
        (m) => m.labels?.namespace === 'algorithms' && m.labels?.Hostname === 'nvidia-dcgm-exporter-t401',
      ),
    ).toBe(true);
    expect(util.metrics.filter((m) => m.labels?.pod === '')).toHaveLength(2);

    load.setLoad('embed', 30); // a new load shows on the next scrape, within the same simulated second
    const again = parsePrometheusTextFormat(await (await fetch(`${sim!.url}/dcgm/gpu-t4-01/metrics`)).text());
    const ratio = again
      .find((f) => f.name === 'DCGM_FI_PROF_GR_ENGINE_ACTIVE')!
      .metrics.filter((m) => m.labels?.pod?.startsWith('embed-'));
    expect(ratio.map((m) => m.value)).toEqual(['0.150000', '0.150000']);

    const targets = (await (await fetch(`${sim!.url}/dcgm/targets`)).json()) as {
      labels: Record<string, string>;
    }[];
    expect(targets.map((t) => t.labels.node)).toContain('gpu-t4-01');
    expect(targets.map((t) => t.labels.node)).not.toContain('ip-10-0-1-11.ec2.internal');
    expect((await fetch(`${sim!.url}/dcgm/no-such-node/metrics`)).status).toBe(404);
  });

  it('leaves a pod that fits nowhere Pending with the scheduler message, and keeps dump pods with unknown owners', async () => {
    await core.createNamespacedPod({
      namespace: 'algorithms',
      body: {
        metadata: { name: 'too-big' },
        spec: {
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'main', image: 'x', resources: { limits: { 'nvidia.com/gpu': '9' } } }],
        },
      },
    });
    const cond = await waitFor('the Unschedulable condition', async () => {
      const p = await core.readNamespacedPod({ namespace: 'algorithms', name: 'too-big' });
      return p.status?.conditions?.find((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable');
    });
    // 13 nodes: 1 cordoned, 1 NotReady (unreachable), 9 GPU nodes with at most 8 GPUs and 2 CPU nodes
    expect(cond.message).toBe(
      '0/13 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 1 node(s) were unschedulable, 11 Insufficient nvidia.com/gpu. preemption: 0/13 nodes are available: 11 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
    );
    const video = await core.listNamespacedPod({ namespace: 'media' });
    expect(video.items.map((p) => p.metadata?.name)).toContain('video-decode-5c9d7-2xq8w');
  });
});
