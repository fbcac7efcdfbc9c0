import { describe, expect, it } from 'vitest';
import { Harness, gpuNode, GPU_TOLERATION } from '../../../test/sim-behaviour/harness.js';
import type { KubeObject } from '../types.js';
import { defaultControllers } from './index.js';
import type { SimBehaviourConfig } from './config.js';

const T0 = '2026-12-01T10:00:00Z';
const at = (s: number): string => new Date(Date.parse(T0) + s * 1000).toISOString().replace('.000Z', 'Z');

function job(
  name: string,
  args: string[],
  spec: Record<string, unknown> = {},
  image = 'registry.example.com/ml/bench:1',
): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'algorithms', labels: { 'gpuops.dev/algorithm': name } },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { labels: { 'gpuops.dev/algorithm': name } },
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { 'gpuops.dev/pool': 'test' },
          tolerations: [GPU_TOLERATION],
          containers: [{ name: 'bench', image, args, resources: { limits: { 'nvidia.com/gpu': '1' } } }],
        },
      },
      ...spec,
    },
  };
}

function setup(config: SimBehaviourConfig = {}): Harness {
  const h = new Harness(defaultControllers({ garbageCollection: true, ...config }), T0);
  h.apply('nodes', gpuNode('gpu-test-1', 2, { 'gpuops.dev/pool': 'test' }), gpuNode('gpu-other', 8));
  return h;
}

function podsOf(h: Harness, jobName: string): KubeObject[] {
  return h.store.list('pods', 'algorithms').filter((p) => p.metadata.labels?.['job-name'] === jobName);
}

function condition(obj: KubeObject | undefined, type: string): Record<string, string> | undefined {
  return obj?.status?.conditions?.find((c: { type: string }) => c.type === type);
}

describe('Job controller with scheduler and kubelet', () => {
  it('runs a pod for its simulated duration and finishes it with exact timestamps and the termination message', () => {
    const h = setup();
    h.apply('jobs', job('short', ['--bench', '--sim-duration=120', '--sim-termination-message']));
    const [pod] = podsOf(h, 'short');
    expect(pod!.metadata.name).toMatch(/^short-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod!.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Job', name: 'short', controller: true }),
    ]);
    expect(pod!.metadata.labels).toMatchObject({ 'job-name': 'short', 'gpuops.dev/algorithm': 'short' });
    expect(pod!.spec.nodeName).toBe('gpu-test-1');
    expect(pod!.status.phase).toBe('Running');
    expect(pod!.status.startTime).toBe(T0);
    expect(pod!.status.podIP).toMatch(/^10\./);
    expect(pod!.status.containerStatuses[0].state.running.startedAt).toBe(T0);
    expect(condition(pod, 'Ready')?.status).toBe('True');

    h.advance(119);
    expect(h.pod('algorithms', pod!.metadata.name).status.phase).toBe('Running');
    h.advance(1);
    const done = h.pod('algorithms', pod!.metadata.name);
    expect(done.status.phase).toBe('Succeeded');
    expect(done.status.containerStatuses[0].state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      startedAt: T0,
      finishedAt: at(120),
      message: '{"durationSeconds":120}',
    });
    const j = h.store.get('jobs', 'algorithms', 'short')!;
    expect(j.status).toMatchObject({ startTime: T0, completionTime: at(120), succeeded: 1 });
    expect(j.status.active).toBeUndefined();
    expect(condition(j, 'Complete')).toMatchObject({ status: 'True', reason: 'CompletionsReached' });
  });

  it('keeps exact timestamps when the clock jumps far past the end', () => {
    const h = setup();
    h.apply('jobs', job('jump', ['--sim-duration=42.5']));
    h.advance(3600);
    const [pod] = podsOf(h, 'jump');
    const term = pod!.status.containerStatuses[0].state.terminated;
    expect([term.startedAt, term.finishedAt]).toEqual([T0, at(42)]);
    expect(term.message).toBeUndefined();
    expect(h.store.get('jobs', 'algorithms', 'jump')!.status.completionTime).toBe(at(42));
  });

  it('takes the duration from the exact image, the image prefix, the default, and reports a chosen figure', () => {
    const h = new Harness(
      defaultControllers({
        durations: { 'registry.example.com/ml/': 300, 'registry.example.com/ml/fast:2': 5 },
        defaultDurationSeconds: 30,
      }),
      T0,
    );
    h.apply('nodes', gpuNode('gpu-test-1', 4, { 'gpuops.dev/pool': 'test' }));
    h.apply(
      'jobs',
      job('prefix', []),
      job('exact', [], {}, 'registry.example.com/ml/fast:2'),
      job('dflt', [], {}, 'docker.io/other:1'),
      job('reported', ['--sim-duration=10', '--sim-termination-message=77.5'], {}, 'docker.io/other:1'),
    );
    h.advance(1000);
    const ended = (name: string) => podsOf(h, name)[0]!.status.containerStatuses[0].state.terminated;
    expect(ended('prefix').finishedAt).toBe(at(300));
    expect(ended('exact').finishedAt).toBe(at(5));
    expect(ended('dflt').finishedAt).toBe(at(30));
    expect(ended('reported')).toMatchObject({ finishedAt: at(10), message: '{"durationSeconds":77.5}' });
  });

  it('a pod waiting for a GPU starts at the pass that finds one free', () => {
    const h = setup();
    h.apply(
      'jobs',
      job('a', ['--sim-duration=10']),
      job('b', ['--sim-duration=10']),
      job('c', ['--sim-duration=10']),
    );
    expect(podsOf(h, 'c')[0]!.status.phase).toBe('Pending');
    h.advance(10);
    expect(podsOf(h, 'c')[0]!.status.containerStatuses[0].state.running.startedAt).toBe(at(10));
  });

  it('fails with DeadlineExceeded when activeDeadlineSeconds passes first, and deletes the pod', () => {
    const h = setup();
    h.apply('jobs', job('slow', ['--sim-duration=600'], { activeDeadlineSeconds: 30 }));
    h.advance(29);
    expect(condition(h.store.get('jobs', 'algorithms', 'slow'), 'Failed')).toBeUndefined();
    h.advance(500); // one jump past the deadline and past the pod's end
    const j = h.store.get('jobs', 'algorithms', 'slow')!;
    expect(condition(j, 'Failed')).toMatchObject({
      status: 'True',
      reason: 'DeadlineExceeded',
      lastTransitionTime: at(30),
    });
    expect(j.status).toMatchObject({ failed: 1 });
    expect(j.status.completionTime).toBeUndefined();
    expect(podsOf(h, 'slow')).toEqual([]);
  });

  it('completes when the pod ends before the deadline even if one clock jump passes both', () => {
    const h = setup();
    h.apply('jobs', job('ok', ['--sim-duration=60'], { activeDeadlineSeconds: 100 }));
    h.advance(1000);
    const j = h.store.get('jobs', 'algorithms', 'ok')!;
    expect(condition(j, 'Complete')?.status).toBe('True');
    expect(condition(j, 'Failed')).toBeUndefined();
  });

  it('retries a failed pod up to backoffLimit, then fails with BackoffLimitExceeded', () => {
    const h = setup();
    h.apply('jobs', job('flaky', ['--sim-duration=10', '--sim-fail'], { backoffLimit: 2 }));
    h.advance(10);
    h.advance(10);
    expect(condition(h.store.get('jobs', 'algorithms', 'flaky'), 'Failed')).toBeUndefined();
    h.advance(10);
    const j = h.store.get('jobs', 'algorithms', 'flaky')!;
    expect(condition(j, 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
      lastTransitionTime: at(30),
    });
    const pods = podsOf(h, 'flaky');
    expect(pods).toHaveLength(3);
    expect(new Set(pods.map((p) => p.metadata.name)).size).toBe(3);
    expect(pods.map((p) => p.status.phase)).toEqual(['Failed', 'Failed', 'Failed']);
    expect(pods[0]!.status.containerStatuses[0].state.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
    });
    expect(j.status.failed).toBe(3);
  });

  it('podFailurePolicy: FailJob on a matching exit code fails the Job at once (reason PodFailurePolicy); Count and no match count against backoffLimit', () => {
    const h = setup();
    const rules = [
      { action: 'FailJob', onExitCodes: { containerName: 'bench', operator: 'In', values: [42] } },
      { action: 'Count', onExitCodes: { operator: 'In', values: [1] } },
    ];
    h.apply(
      'jobs',
      job('fatal', ['--sim-duration=10', '--sim-fail=42'], { backoffLimit: 5, podFailurePolicy: { rules } }),
      job('counted', ['--sim-duration=10', '--sim-fail=1'], { backoffLimit: 1, podFailurePolicy: { rules } }),
    );
    h.advance(10);
    expect(condition(h.store.get('jobs', 'algorithms', 'fatal'), 'Failed')).toMatchObject({
      reason: 'PodFailurePolicy',
      message: expect.stringMatching(
        /^Container bench for pod algorithms\/fatal-\w+ failed with exit code 42 matching FailJob rule at index 0$/,
      ),
    });
    expect(podsOf(h, 'fatal')).toHaveLength(1);
    expect(condition(h.store.get('jobs', 'algorithms', 'counted'), 'Failed')).toBeUndefined();
    h.advance(10);
    expect(condition(h.store.get('jobs', 'algorithms', 'counted'), 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
    });
    expect(h.store.get('jobs', 'algorithms', 'counted')!.status.failed).toBe(2);
  });

  it('podFailurePolicy: a failed pod with DisruptionTarget matching Ignore is not counted and is replaced; without the rule it counts', () => {
    const h = setup();
    const ignore = {
      rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }],
    };
    h.apply(
      'jobs',
      job('ignored', ['--sim-duration=100'], { podFailurePolicy: ignore }),
      job('plain', ['--sim-duration=100']),
    );
    h.advance(10);
    for (const name of ['ignored', 'plain']) {
      const pod = podsOf(h, name)[0]!;
      pod.status.phase = 'Failed';
      pod.status.conditions = [
        ...pod.status.conditions,
        { type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' },
      ];
      h.store.update('pods', pod);
    }
    h.settle();
    const ignored = h.store.get('jobs', 'algorithms', 'ignored')!;
    expect(condition(ignored, 'Failed')).toBeUndefined();
    expect(ignored.status.failed).toBeUndefined();
    expect(
      podsOf(h, 'ignored')
        .map((p) => p.status.phase)
        .sort(),
    ).toEqual(['Failed', 'Running']);
    expect(condition(h.store.get('jobs', 'algorithms', 'plain'), 'Failed')).toMatchObject({
      reason: 'BackoffLimitExceeded',
    });
  });

  it('leaves a pod that fits nowhere Pending with the scheduler message, and starts it when a node frees up', () => {
    const h = setup();
    h.apply('jobs', job('big', ['--sim-duration=5'], {}, 'x'));
    const big = h.store.get('jobs', 'algorithms', 'big')!;
    big.spec.template.spec.containers[0].resources.limits['nvidia.com/gpu'] = '4';
    h.store.delete('jobs', 'algorithms', 'big');
    h.settle();
    h.apply('jobs', { ...big, metadata: { name: 'big4', namespace: 'algorithms' } });
    const [pod] = podsOf(h, 'big4');
    expect(pod!.status.phase).toBe('Pending');
    expect(condition(pod, 'PodScheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message:
        "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
    });
    const node = h.store.get('nodes', undefined, 'gpu-test-1')!;
    node.status.allocatable['nvidia.com/gpu'] = '4';
    h.store.update('nodes', node);
    h.advance(1);
    expect(h.pod('algorithms', pod!.metadata.name).status.phase).toBe('Running');
  });

  it('counts image pull time (startupSeconds) outside the container run', () => {
    const h = setup({ startupSeconds: 7 });
    h.apply('jobs', job('pull', ['--sim-duration=20']));
    expect(podsOf(h, 'pull')[0]!.status.containerStatuses[0].state.waiting.reason).toBe('ContainerCreating');
    h.advance(100);
    const term = podsOf(h, 'pull')[0]!.status.containerStatuses[0].state.terminated;
    expect([term.startedAt, term.finishedAt]).toEqual([at(7), at(27)]);
  });

  it('deletes a finished Job after ttlSecondsAfterFinished, and the garbage collector its pods', () => {
    const h = setup();
    h.apply('jobs', job('ttl', ['--sim-duration=10'], { ttlSecondsAfterFinished: 60 }));
    h.advance(69);
    expect(h.store.get('jobs', 'algorithms', 'ttl')).toBeDefined();
    h.advance(1);
    expect(h.store.get('jobs', 'algorithms', 'ttl')).toBeUndefined();
    expect(podsOf(h, 'ttl')).toEqual([]);
  });

  it('a bad --sim- argument fails the container with a message naming it', () => {
    const h = setup();
    h.apply('jobs', job('typo', ['--sim-duraton=5']));
    const term = podsOf(h, 'typo')[0]!.status.containerStatuses[0].state.terminated;
    expect(term).toMatchObject({ exitCode: 2, reason: 'Error' });
    expect(term.message).toContain('"--sim-duraton=5"');
  });

  it('a second settle writes nothing (idempotent)', () => {
    const h = setup();
    h.apply('jobs', job('idem', ['--sim-duration=100']));
    const rv = h.store.resourceVersion();
    for (const c of h.controllers) c.reconcile(h.store, h.now());
    expect(h.store.resourceVersion()).toBe(rv);
  });
});
