/**
 * kubectl's columns for the kinds gpuops writes and reads, cell by cell, from crafted objects
 * (rows named for the case), at a fixed `now`: the values kube-apiserver's table printers give.
 */
import { describe, expect, it } from 'vitest';
import { toTable } from '../../src/sim/table.js';
import type { KubeObject, Resource } from '../../src/sim/types.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();
const cells = (resource: Resource, o: Partial<KubeObject>) => {
  const obj = {
    apiVersion: 'v1',
    kind: 'X',
    ...o,
    metadata: { name: 'x', creationTimestamp: at(600), ...o.metadata },
  };
  const t = toTable(resource, [obj as KubeObject], {}, NOW) as {
    columnDefinitions: { name: string; priority: number }[];
    rows: { cells: unknown[] }[];
  };
  return Object.fromEntries(t.columnDefinitions.map((c, i) => [c.name, t.rows[0]!.cells[i]]));
};

describe('jobs: STATUS, COMPLETIONS, DURATION', () => {
  it.each([
    ['running, started 90 s ago', {}, { startTime: at(90) }, 'Running', '0/1', '90s'],
    [
      'complete after 150 s',
      {},
      {
        startTime: at(400),
        completionTime: at(250),
        succeeded: 1,
        conditions: [{ type: 'Complete', status: 'True' }],
      },
      'Complete',
      '1/1',
      '2m30s',
    ],
    [
      'failed',
      {},
      { startTime: at(60), conditions: [{ type: 'Failed', status: 'True' }] },
      'Failed',
      '0/1',
      '60s',
    ],
    ['not started', {}, {}, 'Running', '0/1', ''],
    ['3 completions', { completions: 3 }, { succeeded: 2 }, 'Running', '2/3', ''],
    ['work queue of 4', { parallelism: 4 }, {}, 'Running', '0/1 of 4', ''],
  ])('%s', (_, spec, status, s, completions, duration) => {
    const c = cells('jobs', { spec, status });
    expect([c.Status, c.Completions, c.Duration, c.Age]).toEqual([s, completions, duration, '10m']);
  });
});

describe('horizontalpodautoscalers: REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS', () => {
  const spec = (metrics: object[]) => ({
    scaleTargetRef: { kind: 'Deployment', name: 'resnet50-infer' },
    minReplicas: 1,
    maxReplicas: 8,
    metrics,
  });
  const pods = {
    type: 'Pods',
    pods: { metric: { name: 'gpu_util' }, target: { type: 'AverageValue', averageValue: '80' } },
  };
  it.each([
    ['pods metric before the first read', [pods], undefined, '<unknown>/80'],
    ['pods metric read', [pods], [{ type: 'Pods', pods: { current: { averageValue: '45' } } }], '45/80'],
    [
      'cpu utilisation',
      [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
      [{ type: 'Resource', resource: { current: { averageUtilization: 12 } } }],
      'cpu: 12%/70%',
    ],
    [
      'external average value',
      [
        {
          type: 'External',
          external: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '30' } },
        },
      ],
      [{ type: 'External', external: { current: { averageValue: '12' } } }],
      '12/30 (avg)',
    ],
    ['three metrics: two shown', [pods, pods, pods], undefined, '<unknown>/80, <unknown>/80 + 1 more...'],
    ['no metrics', [], undefined, '<none>'],
  ])('%s', (_, metrics, currentMetrics, targets) => {
    const c = cells('horizontalpodautoscalers', {
      spec: spec(metrics),
      status: { currentReplicas: 3, currentMetrics },
    });
    expect(c).toMatchObject({
      Reference: 'Deployment/resnet50-infer',
      Targets: targets,
      MinPods: 1,
      MaxPods: 8,
      Replicas: 3,
    });
  });
});

describe('deployments, pods, events, bindings', () => {
  it('deployment READY is ready/desired, with UP-TO-DATE, AVAILABLE and the template in wide', () => {
    const c = cells('deployments', {
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'a' } },
        template: { spec: { containers: [{ name: 'a', image: 'img:1' }] } },
      },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
    });
    expect(c).toMatchObject({
      Ready: '2/3',
      'Up-to-date': 3,
      Available: 2,
      Containers: 'a',
      Images: 'img:1',
      Selector: 'app=a',
    });
  });

  it.each([
    ['OOMKilled container', { state: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }, 'OOMKilled'],
    ['image pull', { state: { waiting: { reason: 'ImagePullBackOff' } } }, 'ImagePullBackOff'],
    ['exit code without reason', { state: { terminated: { exitCode: 2 } } }, 'ExitCode:2'],
    ['running and ready', { ready: true, state: { running: {} } }, 'Running'],
  ])('pod STATUS: %s', (_, status, text) => {
    const c = cells('pods', {
      spec: { containers: [{ name: 'c' }] },
      status: { phase: 'Running', containerStatuses: [status] },
    });
    expect(c.Status).toBe(text);
  });

  it('pod RESTARTS says how long ago the last one was', () => {
    const c = cells('pods', {
      spec: { containers: [{ name: 'c' }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ restartCount: 2, lastState: { terminated: { finishedAt: at(300) } } }],
      },
    });
    expect(c.Restarts).toBe('2 (5m ago)');
  });

  it('event OBJECT is kind/name in lower case; LAST SEEN from lastTimestamp', () => {
    const c = cells('events', {
      involvedObject: { kind: 'Pod', name: 'bench-x' },
      reason: 'Scheduled',
      type: 'Normal',
      message: 'assigned ',
      lastTimestamp: at(30),
      count: 2,
    });
    expect(c).toMatchObject({ 'Last Seen': '30s', Object: 'pod/bench-x', Message: 'assigned', Count: 2 });
  });

  it('rolebinding ROLE and the service accounts (wide)', () => {
    const c = cells('rolebindings', {
      roleRef: { kind: 'ClusterRole', name: 'gpuops-benchmark' },
      subjects: [{ kind: 'ServiceAccount', name: 'gpuops', namespace: 'gpuops-system' }],
    });
    expect(c).toMatchObject({
      Role: 'ClusterRole/gpuops-benchmark',
      ServiceAccounts: 'gpuops-system:gpuops',
      Users: '',
    });
  });
});
