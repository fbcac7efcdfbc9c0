/**
 * Rollouts without downtime (issue 24): the Deployment gpuops renders, applied to the simulated
 * cluster over HTTP and read back through @kubernetes/client-node. Changing the image of a
 * one-replica algorithm never leaves it without a Ready pod: the Ready count is sampled all
 * through the rollout. The old default (maxSurge 0, maxUnavailable 1) is the contrast that shows
 * the sampling can see a gap.
 */
import * as k8s from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderDeployment } from '../../src/manifests/workloads.js';
import { defaultControllers } from '../../src/sim/controllers/index.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';
import type { Policy, PolicySpec, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { gpuNode } from '../sim-behaviour/harness.js';
import { templates } from '../manifests/helpers.js';

/** Simulated seconds between a pod's binding and its start (then Ready): the new pod's warm-up. */
const STARTUP_SECONDS = 10;
const SPEED = 20;

let sim: SimCluster;
let core: k8s.CoreV1Api;
let apps: k8s.AppsV1Api;
let policy: Policy;

function node(name: string, gpus: number): object {
  const n = gpuNode(name, gpus, { 'gpuops.dev/pool': 'short-task' }) as {
    status: { allocatable: object; capacity: object };
  };
  const room = { cpu: '16', memory: '64Gi', pods: '110', 'nvidia.com/gpu': String(gpus) };
  n.status.allocatable = room;
  n.status.capacity = room;
  return n;
}

async function start(gpus: number): Promise<void> {
  sim = await startSimCluster({
    nodes: [node('gpu-1', gpus)],
    controllers: defaultControllers({ startupSeconds: STARTUP_SECONDS }),
    speed: SPEED,
    tickMs: 20,
  });
  const kc = new k8s.KubeConfig();
  kc.loadFromString(sim.kubeconfig());
  core = kc.makeApiClient(k8s.CoreV1Api);
  apps = kc.makeApiClient(k8s.AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: 'algorithms' } } });
}

beforeEach(async () => {
  policy = await policyWith();
});
afterEach(async () => {
  await sim?.close();
});

function algorithm(image: string): ResolvedAlgorithm {
  return algorithmsFromYaml(
    algorithmYaml({ name: 'serve', image, extra: '  scaling: {minReplicas: 1}' }),
    policy,
  )[0]!;
}

/** The Deployment gpuops renders for `image` with one replica, as client-node takes it. */
function deployment(image: string, spec: PolicySpec = policy.spec): k8s.V1Deployment {
  return renderDeployment({
    algorithm: algorithm(image),
    pool: 'short-task',
    policy: spec,
    cluster: 'prod',
    templates: templates(),
    replicas: 1,
  }) as unknown as k8s.V1Deployment;
}

interface PodView {
  name: string;
  image: string;
  ready: boolean;
  phase: string;
}

async function pods(): Promise<PodView[]> {
  const list = await core.listNamespacedPod({
    namespace: 'algorithms',
    labelSelector: 'app.kubernetes.io/name=serve,gpuops.dev/algorithm=serve',
  });
  return list.items
    .filter((p) => !p.metadata?.deletionTimestamp)
    .map((p) => ({
      name: p.metadata!.name!,
      image: p.spec!.containers[0]!.image!,
      ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
      phase: p.status?.phase ?? '',
    }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `pods()` until `done` holds (or `timeoutMs`), returning every sample taken. */
async function sampleUntil(done: (p: PodView[]) => boolean, timeoutMs = 8000): Promise<PodView[][]> {
  const samples: PodView[][] = [];
  const until = Date.now() + timeoutMs;
  for (;;) {
    const p = await pods();
    samples.push(p);
    if (done(p) || Date.now() > until) return samples;
    await sleep(10);
  }
}

const settled = (image: string) => (p: PodView[]) => p.length === 1 && p[0]!.image === image && p[0]!.ready;
const readyCounts = (samples: PodView[][]) => samples.map((s) => s.filter((p) => p.ready).length);

/** Applies v1, waits until it serves, then changes the image to v2 and samples the rollout. */
async function rollout(spec: PolicySpec = policy.spec, timeoutMs?: number): Promise<PodView[][]> {
  await apps.createNamespacedDeployment({
    namespace: 'algorithms',
    body: deployment('registry.example.com/serve:1', spec),
  });
  const up = await sampleUntil(settled('registry.example.com/serve:1'));
  expect(settled('registry.example.com/serve:1')(up.at(-1)!)).toBe(true);
  await apps.replaceNamespacedDeployment({
    name: 'serve',
    namespace: 'algorithms',
    body: deployment('registry.example.com/serve:2', spec),
  });
  return sampleUntil(settled('registry.example.com/serve:2'), timeoutMs);
}

describe('a rollout of a one-replica algorithm (policy rollout: maxSurge 1, maxUnavailable 0)', () => {
  it('never leaves it with zero Ready pods: the new pod starts beside the old one', async () => {
    await start(2);
    const samples = await rollout();
    expect(settled('registry.example.com/serve:2')(samples.at(-1)!)).toBe(true);
    const counts = readyCounts(samples);
    expect(Math.min(...counts)).toBe(1);
    // The surge was seen: two pods at once, the new one not Ready yet beside the Ready old one.
    expect(samples.some((s) => s.length === 2 && s.some((p) => p.image.endsWith(':2') && !p.ready))).toBe(
      true,
    );
    expect(samples.length).toBeGreaterThan(5); // sampled through the warm-up, not once
  });

  it('with no free GPU for the surge pod, waits: the old pod keeps serving and the new one stays Pending', async () => {
    await start(1);
    const samples = await rollout(policy.spec, 1500);
    const last = samples.at(-1)!;
    expect(Math.min(...readyCounts(samples))).toBe(1);
    expect(last.map((p) => [p.image, p.ready, p.phase]).sort()).toEqual([
      ['registry.example.com/serve:1', true, 'Running'],
      ['registry.example.com/serve:2', false, 'Pending'],
    ]);
  });

  it('the contrast: the old default (maxSurge 0, maxUnavailable 1) goes through zero Ready pods', async () => {
    await start(2);
    const spec = structuredClone(policy.spec);
    spec.rollout = { strategy: 'RollingUpdate', maxSurge: 0, maxUnavailable: 1 };
    const samples = await rollout(spec);
    expect(settled('registry.example.com/serve:2')(samples.at(-1)!)).toBe(true);
    expect(Math.min(...readyCounts(samples))).toBe(0);
  });
});
