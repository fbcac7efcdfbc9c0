/**
 * The workload renderers on hand-made templates: a bare one shows every field gpuops writes itself,
 * a rich one shows what it keeps from the template. Also renderPlacedWorkloads and the paths.
 */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../src/cluster/object.js';
import type { WorkloadTemplates } from '../../src/manifests/templates.js';
import {
  renderDeployment,
  renderHpa,
  renderPlacedWorkloads,
  renderWorkloadFiles,
  workloadDeletions,
  workloadDir,
  type WorkloadInput,
} from '../../src/manifests/workloads.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

const gpuops = (await policyWith()).spec;
const hpa = (
  await policyWith((p) => {
    p.scaling.engine = 'hpa';
    p.pools.labelKey = 'example.com/pool';
    p.scaling.scaleUp.stabilizationWindowSeconds = 30;
    p.scaling.scaleDown.stabilizationWindowSeconds = 600;
  })
).spec;

const algorithm = (name: string, over: Partial<ResolvedAlgorithm> = {}): ResolvedAlgorithm => ({
  name,
  namespace: 'ml',
  spec: { image: `registry.example.com/${name}:2`, resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 4, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 3, timeoutSeconds: 600 },
  placement: 'auto',
  source: { file: 'algorithms/a.yaml', line: 1 },
  ...over,
});

const object = (apiVersion: string, kind: string, rest: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion, kind, metadata: { name: '' }, ...rest }) as KubeObject;

/** Templates with nothing but what the parser requires (and a pod spec). */
const bare: WorkloadTemplates = {
  benchmarkJob: object('batch/v1', 'Job'),
  deployment: object('apps/v1', 'Deployment', { spec: { template: { spec: {} } } }),
  hpa: object('autoscaling/v2', 'HorizontalPodAutoscaler'),
  kustomization: object('kustomize.config.k8s.io/v1beta1', 'Kustomization'),
};

/** Templates with labels, annotations and fields of their own, which the renderers must keep. */
const rich: WorkloadTemplates = {
  ...bare,
  deployment: object('apps/v1', 'Deployment', {
    metadata: { name: '', labels: { team: 'ml' }, annotations: { note: 'kept' } },
    spec: {
      replicas: 9,
      revisionHistoryLimit: 3,
      template: {
        metadata: { labels: { team: 'ml' }, annotations: { pod: 'kept' } },
        spec: { containers: [{ name: '', imagePullPolicy: 'Always' }], priorityClassName: 'gpu' },
      },
    },
  }),
  hpa: object('autoscaling/v2', 'HorizontalPodAutoscaler', {
    metadata: { name: '', labels: { team: 'ml' }, annotations: { note: 'kept' } },
    spec: { extra: 1 },
  }),
};

const input = (over: Partial<WorkloadInput> = {}): WorkloadInput => ({
  algorithm: algorithm('serve', {
    spec: {
      image: 'registry.example.com/serve:2',
      command: ['serve'],
      args: ['--port=80'],
      resources: { gpus: 2, cpu: '1' },
    },
  }),
  pool: 'short-task',
  policy: gpuops,
  cluster: 'prod',
  templates: bare,
  ...over,
});

const labels = {
  'app.kubernetes.io/name': 'serve',
  'app.kubernetes.io/managed-by': 'gpuops',
  'gpuops.dev/algorithm': 'serve',
};

describe('renderDeployment on a bare template', () => {
  it('writes every field itself', () => {
    expect(renderDeployment(input())).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'serve',
        namespace: 'ml',
        labels,
        annotations: { 'argocd.argoproj.io/sync-wave': '0' },
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'serve', 'gpuops.dev/algorithm': 'serve' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: { ...labels, 'gpuops.dev/pool': 'short-task' } },
          spec: {
            nodeSelector: { 'gpuops.dev/pool': 'short-task' },
            tolerations: [
              { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
              { key: 'gpuops.dev/pool', operator: 'Equal', value: 'short-task', effect: 'NoSchedule' },
            ],
            // A bare template says nothing: gpuops mounts no ServiceAccount token (issue 29 item 1).
            automountServiceAccountToken: false,
            // ... and renders Pod Security "restricted" (manifests/pod-security.ts).
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'serve',
                image: 'registry.example.com/serve:2',
                command: ['serve'],
                args: ['--port=80'],
                env: undefined,
                resources: {
                  requests: { 'nvidia.com/gpu': '2', cpu: '1' },
                  limits: { 'nvidia.com/gpu': '2', cpu: '1' },
                },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    });
  });

  it.each([
    { name: 'zero replicas are allowed', replicas: 0, want: 0 },
    { name: 'a given count', replicas: 3, want: 3 },
    { name: 'minReplicas by default', replicas: undefined, want: 1 },
  ])('engine gpuops: $name', ({ replicas, want }) => {
    expect((renderDeployment(input({ replicas })) as any).spec.replicas).toBe(want);
  });

  it.each([-1, 0.5])('engine gpuops: %s replicas throw, naming the algorithm', (replicas) => {
    expect(() => renderDeployment(input({ replicas }))).toThrow(
      new RangeError(`serve: replicas must be an integer ≥ 0, got ${replicas}`),
    );
  });
});

describe('renderDeployment on a rich template', () => {
  it("keeps the template's own labels, annotations and fields; gpuops's win", () => {
    const d = renderDeployment(input({ templates: rich })) as any;
    expect(d.metadata.labels).toEqual({ team: 'ml', ...labels });
    expect(d.metadata.annotations).toEqual({ note: 'kept', 'argocd.argoproj.io/sync-wave': '0' });
    expect(d.spec.revisionHistoryLimit).toBe(3);
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.template.metadata).toEqual({
      labels: { team: 'ml', ...labels, 'gpuops.dev/pool': 'short-task' },
      annotations: { pod: 'kept' },
    });
    expect(d.spec.template.spec.priorityClassName).toBe('gpu');
    expect(d.spec.template.spec.containers).toHaveLength(1);
    expect(d.spec.template.spec.containers[0]).toMatchObject({ name: 'serve', imagePullPolicy: 'Always' });
  });

  it('engine hpa: drops the replica count the template has', () => {
    const d = renderDeployment(input({ templates: rich, policy: hpa, replicas: 5 })) as any;
    expect(d.spec).not.toHaveProperty('replicas');
    expect(d.spec.template.metadata.labels['example.com/pool']).toBe('short-task');
    expect(d.spec.template.spec.nodeSelector).toEqual({ 'example.com/pool': 'short-task' });
  });
});

describe('renderHpa', () => {
  it('on a bare template: every field', () => {
    expect(renderHpa(input({ policy: hpa }))).toEqual({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: {
        name: 'serve',
        namespace: 'ml',
        labels,
        annotations: { 'argocd.argoproj.io/sync-wave': '0' },
      },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'serve' },
        minReplicas: 1,
        maxReplicas: 4,
        metrics: [
          {
            type: 'Pods',
            pods: {
              metric: { name: hpa.scaling.metric },
              target: { type: 'AverageValue', averageValue: String(hpa.scaling.hpa.targetUtilization) },
            },
          },
        ],
        behavior: {
          scaleUp: { stabilizationWindowSeconds: 30 },
          scaleDown: { stabilizationWindowSeconds: 600 },
        },
      },
    });
  });

  it("on a rich template: keeps the template's labels, annotations and spec fields", () => {
    const h = renderHpa(input({ policy: hpa, templates: rich })) as any;
    expect(h.metadata.labels).toEqual({ team: 'ml', ...labels });
    expect(h.metadata.annotations).toEqual({ note: 'kept', 'argocd.argoproj.io/sync-wave': '0' });
    expect(h.spec.extra).toBe(1);
  });
});

describe('renderWorkloadFiles', () => {
  it('writes the rendered objects under the algorithm folder', () => {
    const files = renderWorkloadFiles(input({ policy: hpa }));
    expect(files.map((f) => f.path)).toEqual([
      'clusters/prod/algorithms/serve/deployment.yaml',
      'clusters/prod/algorithms/serve/hpa.yaml',
    ]);
    expect(files[0]!.content).toContain('kind: Deployment\n');
    expect(files[1]!.content).toContain('kind: HorizontalPodAutoscaler\n');
  });

  it('the folder is clusters/<cluster>/algorithms/<name>', () => {
    expect(workloadDir('eu', 'a')).toBe('clusters/eu/algorithms/a');
  });
});

describe('renderPlacedWorkloads', () => {
  const algorithms = [algorithm('zeta'), algorithm('alpha'), algorithm('pending'), algorithm('unplaced')];
  const placements = [
    { algorithm: 'alpha', pool: 'long-task' as const },
    { algorithm: 'zeta', pool: 'short-task' as const },
    { algorithm: 'pending', pool: null },
  ];

  it('renders the placed algorithms on their pools, sorted by path; no pool, no files', () => {
    const files = renderPlacedWorkloads({
      algorithms,
      placements,
      policy: hpa,
      cluster: 'prod',
      templates: bare,
    });
    expect(files.map((f) => f.path)).toEqual([
      'clusters/prod/algorithms/alpha/deployment.yaml',
      'clusters/prod/algorithms/alpha/hpa.yaml',
      'clusters/prod/algorithms/zeta/deployment.yaml',
      'clusters/prod/algorithms/zeta/hpa.yaml',
    ]);
    expect(files[0]!.content).toContain('example.com/pool: long-task');
    expect(files[2]!.content).toContain('example.com/pool: short-task');
  });

  it('writes the given replica count, minReplicas for the others', () => {
    const files = renderPlacedWorkloads({
      algorithms,
      placements,
      policy: gpuops,
      cluster: 'prod',
      templates: templates(),
      replicas: new Map([['zeta', 3]]),
    });
    expect(files.map((f) => [f.path, /replicas: (\d+)/.exec(f.content!)?.[1]])).toEqual([
      ['clusters/prod/algorithms/alpha/deployment.yaml', '1'],
      ['clusters/prod/algorithms/zeta/deployment.yaml', '3'],
    ]);
  });
});

describe('workloadDeletions', () => {
  it('sorts by path and reads each present path once', () => {
    const present = [
      'clusters/prod/algorithms/b/deployment.yaml',
      'clusters/prod/algorithms/a/hpa.yaml',
      'clusters/prod/algorithms/b/deployment.yaml',
      'clusters/prod/algorithms/a/deployment.yaml',
    ];
    expect(workloadDeletions({ cluster: 'prod', algorithmsInGit: [], present, rendered: [] })).toEqual([
      { path: 'clusters/prod/algorithms/a/deployment.yaml', content: null },
      { path: 'clusters/prod/algorithms/a/hpa.yaml', content: null },
      { path: 'clusters/prod/algorithms/b/deployment.yaml', content: null },
    ]);
  });

  it.each(['test', 'prod-2'])(
    'a rendered file of cluster %s does not make a folder of cluster prod stale',
    (other) => {
      expect(
        workloadDeletions({
          cluster: 'prod',
          algorithmsInGit: ['a'],
          present: ['clusters/prod/algorithms/a/hpa.yaml', `clusters/${other}/algorithms/a/hpa.yaml`],
          rendered: [{ path: `clusters/${other}/algorithms/a/deployment.yaml`, content: 'x' }],
        }),
      ).toEqual([]);
    },
  );

  it('an algorithm name that is a prefix of another is its own folder', () => {
    expect(
      workloadDeletions({
        cluster: 'prod',
        algorithmsInGit: ['a', 'ab'],
        present: ['clusters/prod/algorithms/ab/hpa.yaml', 'clusters/prod/algorithms/a/hpa.yaml'],
        rendered: [{ path: 'clusters/prod/algorithms/a/deployment.yaml', content: 'x' }],
      }),
    ).toEqual([{ path: 'clusters/prod/algorithms/a/hpa.yaml', content: null }]);
  });
});
