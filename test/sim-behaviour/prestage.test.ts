/**
 * Pre-staging end to end on the simulated cluster, through Git: the real pass with
 * `pools.prePull.enabled` writes the short-task pool's pre-pull DaemonSet into the pools pull
 * request, a person merges it, the GitOps applier applies it, and the simulated DaemonSet
 * controller and kubelet pull `bert`'s image onto the pool's node and onto the unused node. When
 * `bert` runs hot, gpuops moves the unused node into the pool and scales up onto it: its new
 * replica is Ready after the start-up alone (30 s). The same story with pre-staging off waits for
 * the image pull too (30 s + 40 s).
 */
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PREPULL_PAUSE_IMAGE, PREPULL_TOOLS_IMAGE } from '../../src/manifests/prepull.js';
import { DcgmScrapeSource } from '../../src/metrics/dcgm-scrape.js';
import type { Taint } from '../../src/cluster/types.js';
import type { KubeObject } from '../../src/sim/index.js';
import { algorithmFile, gpuNode, startHarness, type Harness } from '../support/reconcile-harness.js';

const POOL = 'gpuops.dev/pool';
const IMAGE = 'registry.example.com/ml/bert:1.0.0';
const STARTUP_SECONDS = 30;
const PULL_SECONDS = 40;
const DS_FILE = 'clusters/prod/prepull/short-task.yaml';

const policy = (prePull: boolean) =>
  [
    'apiVersion: gpuops.dev/v1alpha1',
    'kind: Policy',
    'metadata: {name: test}',
    'spec:',
    '  pools:',
    `    prePull: {enabled: ${prePull}}`,
    '  scaling:',
    '    scaleUp: {cooldownSeconds: 0, stabilizationWindowSeconds: 0}',
    '',
  ].join('\n');

/** A GPU node as GKE and EKS GPU node groups make it: tainted `nvidia.com/gpu=present:NoSchedule`. */
const tainted = (n: KubeObject): KubeObject => ({
  ...n,
  spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
});

const isReady = (p: KubeObject) =>
  (p.status?.conditions as { type: string; status: string }[] | undefined)?.some(
    (c) => c.type === 'Ready' && c.status === 'True',
  ) ?? false;

/** bert's serving pods (not the DaemonSet's), by node. */
const bertPods = (h: Harness) =>
  h.sim.store
    .list('pods', 'algorithms')
    .filter((p) => p.metadata.labels?.['gpuops.dev/algorithm'] === 'bert');

const imagesOn = (h: Harness, node: string) =>
  ((h.sim.store.get('nodes', undefined, node)?.status?.images as { names: string[] }[] | undefined) ?? [])
    .flatMap((i) => i.names)
    .sort();

/** Seconds from now until `pod` is Ready, stepping the simulated clock one second at a time (≤ 300). */
async function secondsUntilReady(h: Harness, name: string): Promise<number> {
  for (let s = 0; s <= 300; s++) {
    const pod = h.sim.store.get('pods', 'algorithms', name);
    if (pod && isReady(pod)) return s;
    h.sim.clock.advance(1);
    await h.settle();
  }
  return Infinity;
}

interface Story {
  h: Harness;
  /** The pools pull request's pre-pull file on `main` after the second pass, as parsed. */
  daemonSet: KubeObject | null;
  /** The unused node's taints while it is staged (`key=value:effect`). */
  unusedTaints: string[];
  /** The DaemonSet's status and the nodes of its Ready pods, once it had time to pull. */
  dsStatus: Record<string, unknown> | null;
  daemonPods: string[];
  /** Images on each node once the DaemonSet (if any) had time to pull. */
  staged: Record<string, string[]>;
  /** Seconds from the scale-up's sync until the replica on the moved node is Ready. */
  seconds: number;
  movedNode: string | undefined;
}

/** The whole story with pre-staging on or off (module comment). */
async function story(prePull: boolean): Promise<Story> {
  const h = await startHarness({
    nodes: [
      gpuNode('gpu-t', 1, 'test'),
      gpuNode('gpu-s1', 1, 'short-task'),
      gpuNode('gpu-u1', 1, 'unused'),
    ].map(tainted),
    files: {
      'README.md': '# gitops\n',
      'algorithms/bert.yaml': algorithmFile('bert', { pool: 'short-task' }),
      'policies/test.yaml': policy(prePull),
    },
    behaviour: { startupSeconds: STARTUP_SECONDS, imagePullSeconds: PULL_SECONDS },
    speed: 1e-9,
  });
  await h.pass();
  h.merge('gpuops/prod/pools');
  h.merge('gpuops/prod/placement/bert');
  await h.sync();
  h.sim.clock.advance(STARTUP_SECONDS + PULL_SECONDS);
  await h.settle();
  // Now that Git places bert on short-task, the pools pull request carries its pre-pull DaemonSet.
  await h.pass();
  if (h.branches().includes('gpuops/prod/pools')) h.merge('gpuops/prod/pools');
  const sync = await h.sync();
  expect(sync.errors).toEqual([]);
  // A DaemonSet pod pulls its three images one after another, then starts like any pod.
  h.sim.clock.advance(STARTUP_SECONDS + 3 * PULL_SECONDS);
  await h.settle();
  const dsText = h.file('main', DS_FILE);
  const staged = Object.fromEntries(['gpu-t', 'gpu-s1', 'gpu-u1'].map((n) => [n, imagesOn(h, n)]));
  const daemonPods = h.sim.store
    .list('pods', 'algorithms')
    .filter((p) => p.metadata.name.startsWith('gpuops-prepull-') && isReady(p))
    .map((p) => p.spec.nodeName as string)
    .sort();
  const unusedTaints = (
    (h.sim.store.get('nodes', undefined, 'gpu-u1')?.spec.taints as Taint[] | undefined) ?? []
  )
    .map((t) => `${t.key}=${t.value}:${t.effect}`)
    .sort();
  const dsStatus = h.sim.store.get('daemonsets', 'algorithms', 'gpuops-prepull-short-task')?.status ?? null;

  h.setMetrics(
    new DcgmScrapeSource({
      targets: ['gpu-s1', 'gpu-u1'].map((n) => ({ url: `${h.sim.url}/dcgm/${n}/metrics`, node: n })),
      now: () => h.sim.clock.now(),
    }),
  );
  h.load.setLoad('bert', 100);
  const before = new Set(bertPods(h).map((p) => p.metadata.name));
  // Hot: the pass moves gpu-u1 into short-task and scales up (each by pull request, merged, synced).
  let fresh: KubeObject | undefined;
  for (let i = 0; i < 3 && !fresh; i++) {
    await h.pass();
    if (h.branches().includes('gpuops/prod/scale/bert')) h.merge('gpuops/prod/scale/bert');
    await h.sync();
    fresh = bertPods(h).find((p) => !before.has(p.metadata.name));
  }
  const seconds = fresh ? await secondsUntilReady(h, fresh.metadata.name) : NaN;
  const movedNode = fresh
    ? h.sim.store.get('pods', 'algorithms', fresh.metadata.name)?.spec.nodeName
    : undefined;
  const daemonSet = dsText === null ? null : (parse(dsText) as KubeObject);
  return { h, daemonSet, unusedTaints, dsStatus, daemonPods, staged, seconds, movedNode };
}

let on: Story;
let off: Story;
beforeAll(async () => {
  on = await story(true);
  off = await story(false);
}, 300_000);
afterAll(async () => {
  await on?.h.close();
  await off?.h.close();
});

describe('pre-staging end to end: Git → applier → DaemonSet → a faster replica', () => {
  it('on: the pools pull request put the DaemonSet into Git, and the applier ran it on the pool and unused nodes only', () => {
    expect(on.daemonSet).toMatchObject({
      kind: 'DaemonSet',
      metadata: { name: 'gpuops-prepull-short-task' },
    });
    expect(on.dsStatus).toMatchObject({ desiredNumberScheduled: 2, numberReady: 2 });
    expect(on.daemonPods).toEqual(['gpu-s1', 'gpu-u1']);
    // Through the GPU taint of the node group (the pool taint is off: with server-side apply it
    // would replace the Node's whole atomic taint list, GPU taint included; nodes.ts says so).
    expect(on.unusedTaints).toEqual(['nvidia.com/gpu=present:NoSchedule']);
  });

  it('on: the DaemonSet in Git asks for no privilege, no host path, no GPU, and tolerates the GPU and pool taints', () => {
    const pod = (on.daemonSet!.spec as { template: { spec: Record<string, unknown> } }).template.spec;
    type Container = {
      command?: string[];
      resources: { requests: Record<string, string>; limits: Record<string, string> };
      securityContext: Record<string, unknown>;
    };
    const containers = [...(pod.initContainers as Container[]), ...(pod.containers as Container[])];
    expect(pod.volumes).toEqual([{ name: 'tools', emptyDir: { sizeLimit: '8Mi' } }]);
    expect([pod.hostNetwork, pod.hostPID, pod.hostIPC, pod.serviceAccountName]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(pod.automountServiceAccountToken).toBe(false);
    for (const c of containers) {
      expect(c.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.securityContext.privileged).toBeUndefined();
      expect(c.resources).toEqual({
        requests: { cpu: '10m', memory: '16Mi' },
        limits: { cpu: '100m', memory: '64Mi' },
      });
    }
    // The pull containers run `true` and exit; the pod is held by pause, with no command of its own.
    expect(containers.map((c) => c.command?.join(' ') ?? '(image entrypoint)')).toEqual([
      'cp /bin/busybox /gpuops-prepull/true',
      '/gpuops-prepull/true',
      '(image entrypoint)',
    ]);
    expect(pod.tolerations).toEqual(
      expect.arrayContaining([
        { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
        { key: POOL, operator: 'Equal', value: 'short-task', effect: 'NoSchedule' },
        { key: POOL, operator: 'Equal', value: 'unused', effect: 'NoSchedule' },
      ]),
    );
  });

  it("on: bert's image is on the unused node before any replica needs it; the test node holds nothing", () => {
    expect(on.staged).toEqual({
      'gpu-t': [],
      'gpu-s1': [PREPULL_PAUSE_IMAGE, PREPULL_TOOLS_IMAGE, IMAGE].sort(),
      'gpu-u1': [PREPULL_PAUSE_IMAGE, PREPULL_TOOLS_IMAGE, IMAGE].sort(),
    });
  });

  it('off: no DaemonSet in Git or in the cluster; the unused node holds no image', () => {
    expect(off.daemonSet).toBeNull();
    expect([off.dsStatus, off.daemonPods]).toEqual([null, []]);
    expect(off.staged['gpu-u1']).toEqual([]);
  });

  it(`the replica on the moved node: Ready after ${STARTUP_SECONDS} s pre-staged, ${STARTUP_SECONDS + PULL_SECONDS} s cold`, () => {
    expect([on.movedNode, off.movedNode]).toEqual(['gpu-u1', 'gpu-u1']);
    expect(on.h.sim.store.get('nodes', undefined, 'gpu-u1')?.metadata.labels?.[POOL]).toBe('short-task');
    expect({ on: on.seconds, off: off.seconds }).toEqual({
      on: STARTUP_SECONDS,
      off: STARTUP_SECONDS + PULL_SECONDS,
    });
  });
});
