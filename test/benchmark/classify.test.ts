import { describe, expect, it } from 'vitest';
import { classifyRun, type RunObservation } from '../../src/benchmark/classify.js';
import { podDisruption, startError } from '../../src/benchmark/disruption.js';
import type { ContainerView, JobView, PodView } from '../../src/cluster/jobs.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);
const LIMITS = { timeoutSeconds: 600, unschedulableTimeoutSeconds: 120, startTimeoutSeconds: 90 };

function job(o: Partial<JobView> = {}): JobView {
  return {
    namespace: 'ns',
    name: 'a-bench-1',
    conditions: [],
    active: 1,
    succeeded: 0,
    failed: 0,
    createdAt: at(0),
    ...o,
  };
}
function container(o: Partial<ContainerView> = {}): ContainerView {
  return {
    name: 'benchmark',
    state: 'running',
    reason: null,
    startedAt: at(10),
    finishedAt: null,
    exitCode: null,
    message: null,
    image: 'registry.example.com/ml/a:1.0.0',
    ...o,
  };
}
function pod(o: Partial<PodView> = {}): PodView {
  return {
    name: 'a-bench-1-x1',
    phase: 'Running',
    nodeName: 'gpu-t4-01',
    unschedulable: null,
    unschedulableSince: null,
    createdAt: at(0),
    startedAt: at(5),
    reason: null,
    message: null,
    conditions: [],
    containers: [container()],
    ...o,
  };
}
const failedCond = (reason: string) => [{ type: 'Failed', status: 'True', reason, message: null }];
const killed = (reason: string, exitCode = 137) =>
  pod({
    phase: 'Failed',
    containers: [container({ state: 'terminated', reason, exitCode, finishedAt: at(50) })],
  });
const unschedulablePod = pod({
  nodeName: null,
  phase: 'Pending',
  unschedulable: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
  unschedulableSince: at(0),
  startedAt: null,
  containers: [],
});
const pullingPod = (reason: string) =>
  pod({
    phase: 'Pending',
    containers: [container({ state: 'waiting', reason, startedAt: null, message: 'm' })],
  });

describe('classifyRun', () => {
  it.each<{ name: string; obs: RunObservation; now: number; want: Record<string, unknown> }>([
    { name: 'no Job: absent (create it)', obs: { job: null, pods: [] }, now: 0, want: { kind: 'absent' } },
    {
      name: 'running: active, how long on which node',
      obs: { job: job(), pods: [pod()] },
      now: 412,
      want: {
        kind: 'active',
        phase: 'running',
        node: 'gpu-t4-01',
        message: 'running on gpu-t4-01 for 402 s',
      },
    },
    {
      name: 'Complete: measured on the container',
      obs: {
        job: job({
          conditions: [{ type: 'Complete', status: 'True', reason: null, message: null }],
          succeeded: 1,
        }),
        pods: [
          pod({
            phase: 'Succeeded',
            containers: [container({ state: 'terminated', exitCode: 0, finishedAt: at(52) })],
          }),
        ],
      },
      now: 60,
      want: {
        kind: 'ended',
        deleteJob: false,
        end: expect.objectContaining({ status: 'Succeeded', durationSeconds: 42 }),
      },
    },
    {
      name: 'Failed by the deadline: TimedOut',
      obs: { job: job({ conditions: failedCond('DeadlineExceeded') }), pods: [] },
      now: 700,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'TimedOut' }) },
    },
    {
      name: 'Failed, its only failed pod killed (137, Error): Disrupted',
      obs: { job: job({ conditions: failedCond('BackoffLimitExceeded') }), pods: [killed('Error')] },
      now: 60,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'Disrupted' }) },
    },
    {
      name: 'Failed, OOMKilled (137): Failed',
      obs: { job: job({ conditions: failedCond('BackoffLimitExceeded') }), pods: [killed('OOMKilled')] },
      now: 60,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'Failed' }) },
    },
    {
      name: 'Failed, one disrupted and one real failure: Failed',
      obs: {
        job: job({ conditions: failedCond('BackoffLimitExceeded') }),
        pods: [killed('Error'), killed('Error', 1)],
      },
      now: 60,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'Failed' }) },
    },
    {
      name: 'Unschedulable 119 s (limit 120): waits',
      obs: { job: job(), pods: [unschedulablePod] },
      now: 119,
      want: { kind: 'active', phase: 'scheduling' },
    },
    {
      name: 'Unschedulable exactly 120 s (at the limit): still waits',
      obs: { job: job(), pods: [unschedulablePod] },
      now: 120,
      want: { kind: 'active', phase: 'scheduling' },
    },
    {
      name: 'Unschedulable 121 s (past the limit): ended, Job deleted',
      obs: { job: job(), pods: [unschedulablePod] },
      now: 121,
      want: { kind: 'ended', deleteJob: true, end: expect.objectContaining({ status: 'Unschedulable' }) },
    },
    {
      name: 'ImagePullBackOff 89 s after the pod started (limit 90): waits',
      obs: { job: job(), pods: [pullingPod('ImagePullBackOff')] },
      now: 94,
      want: { kind: 'active', phase: 'scheduling' },
    },
    {
      name: 'ImagePullBackOff exactly 90 s: still waits',
      obs: { job: job(), pods: [pullingPod('ImagePullBackOff')] },
      now: 95,
      want: { kind: 'active', phase: 'scheduling' },
    },
    {
      name: 'ImagePullBackOff 91 s: StartFailed, Job deleted so the GPU is free',
      obs: { job: job(), pods: [pullingPod('ImagePullBackOff')] },
      now: 96,
      want: {
        kind: 'ended',
        deleteJob: true,
        end: expect.objectContaining({ status: 'StartFailed', node: 'gpu-t4-01' }),
      },
    },
    {
      name: 'ErrImagePull 91 s: StartFailed',
      obs: { job: job(), pods: [pullingPod('ErrImagePull')] },
      now: 96,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'StartFailed' }) },
    },
    {
      name: 'CreateContainerConfigError 91 s: StartFailed',
      obs: { job: job(), pods: [pullingPod('CreateContainerConfigError')] },
      now: 96,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'StartFailed' }) },
    },
    {
      name: 'InvalidImageName 91 s: Failed (final)',
      obs: { job: job(), pods: [pullingPod('InvalidImageName')] },
      now: 96,
      want: { kind: 'ended', end: expect.objectContaining({ status: 'Failed' }) },
    },
    {
      name: 'ContainerCreating long after the start limit: normal progress, waits',
      obs: { job: job(), pods: [pullingPod('ContainerCreating')] },
      now: 500,
      want: { kind: 'active', phase: 'scheduling' },
    },
    {
      name: 'no end 600 + 120 + 90 + 60 s after creation (exactly the guard): waits',
      obs: { job: job(), pods: [pod()] },
      now: 870,
      want: { kind: 'active' },
    },
    {
      name: 'no end one second past the guard: TimedOut, Job deleted',
      obs: { job: job(), pods: [pod()] },
      now: 871,
      want: { kind: 'ended', deleteJob: true, end: expect.objectContaining({ status: 'TimedOut' }) },
    },
  ])('$name', ({ obs, now, want }) => {
    expect(classifyRun(obs, LIMITS, at(now))).toMatchObject(want);
  });

  it('the start error record names the cause, the image and the wait', () => {
    const r = classifyRun({ job: job(), pods: [pullingPod('ErrImagePull')] }, LIMITS, at(96));
    expect(r).toMatchObject({
      end: {
        message:
          'could not start: container ErrImagePull (image registry.example.com/ml/a:1.0.0): m; pod a-bench-1-x1 on gpu-t4-01 waited 91 s (limit 90 s)',
      },
    });
  });
});

describe('podDisruption', () => {
  it.each([
    {
      name: 'DisruptionTarget (Eviction API)',
      pod: pod({
        phase: 'Failed',
        conditions: [
          {
            type: 'DisruptionTarget',
            status: 'True',
            reason: 'EvictionByEvictionAPI',
            message: 'Eviction API: evicting',
          },
        ],
      }),
      want: 'DisruptionTarget EvictionByEvictionAPI: Eviction API: evicting',
    },
    {
      name: 'DisruptionTarget False is no disruption',
      pod: pod({
        phase: 'Failed',
        conditions: [{ type: 'DisruptionTarget', status: 'False', reason: null, message: null }],
        containers: [],
      }),
      want: null,
    },
    {
      name: 'kubelet eviction (reason Evicted)',
      pod: pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' }),
      want: 'Evicted: The node was low on resource: memory.',
    },
    {
      name: 'exit 137, Error (SIGKILL from outside)',
      pod: killed('Error'),
      want: 'killed (exit code 137, Error; not OOMKilled)',
    },
    { name: 'exit 137, OOMKilled: the benchmark itself failed', pod: killed('OOMKilled'), want: null },
    { name: 'exit 1: a real failure', pod: killed('Error', 1), want: null },
  ])('$name', ({ pod: p, want }) => expect(podDisruption(p)).toBe(want));
});

describe('startError', () => {
  it.each([
    { reason: 'ImagePullBackOff', final: false },
    { reason: 'ErrImagePull', final: false },
    { reason: 'RegistryUnavailable', final: false },
    { reason: 'CreateContainerConfigError', final: false },
    { reason: 'InvalidImageName', final: true },
  ])('$reason is a start error, final: $final', ({ reason, final }) =>
    expect(startError(pullingPod(reason))).toMatchObject({
      reason,
      final,
      image: 'registry.example.com/ml/a:1.0.0',
    }),
  );
  it.each(['ContainerCreating', 'PodInitializing'])('%s is normal progress', (reason) =>
    expect(startError(pullingPod(reason))).toBeNull(),
  );
});
