import { Job } from 'kubernetes-models/batch/v1/Job';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { beforeEach, describe, expect, it } from 'vitest';
import { specHash } from '../../src/benchmark/spec-hash.js';
import { renderBenchmarkJob } from '../../src/manifests/benchmark-job.js';
import {
  hpaAverageValue,
  renderDeployment,
  renderHpa,
  renderWorkloadFiles,
  workloadDeletions,
} from '../../src/manifests/workloads.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { algorithmsFromYaml, algorithmYaml, policyWith } from '../benchmark/fixtures.js';
import { templates } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */

let gpuops: Policy;
let hpa: Policy;
let alg: ResolvedAlgorithm;

beforeEach(async () => {
  gpuops = await policyWith();
  hpa = await policyWith((p) => (p.scaling.engine = 'hpa'));
  [alg] = algorithmsFromYaml(
    algorithmYaml({
      name: 'resnet50-infer',
      gpus: 2,
      extra:
        '  args: ["--port=8080"]\n  env: [{name: BATCH, value: "32"}]\n  scaling: {minReplicas: 2, maxReplicas: 6}',
    }),
    gpuops,
  ) as [ResolvedAlgorithm];
});

const input = (policy: Policy, extra: Partial<Parameters<typeof renderDeployment>[0]> = {}) => ({
  algorithm: alg,
  pool: 'long-task' as const,
  policy: policy.spec,
  cluster: 'prod',
  templates: templates(),
  ...extra,
});

describe('renderDeployment', () => {
  it('engine gpuops: replicas start at minReplicas; a given count wins', () => {
    expect((renderDeployment(input(gpuops)) as any).spec.replicas).toBe(2);
    expect((renderDeployment(input(gpuops, { replicas: 5 })) as any).spec.replicas).toBe(5);
  });

  it('engine hpa: no replicas field at all, so the HPA is the only owner', () => {
    const d = renderDeployment(input(hpa, { replicas: 5 })) as any;
    expect('replicas' in d.spec).toBe(false);
  });

  it('pins to the pool and tolerates the GPU and pool taints; GPUs in requests and limits', () => {
    const d = renderDeployment(input(gpuops)) as any;
    const pod = d.spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'gpuops.dev/pool': 'long-task' });
    expect(pod.tolerations).toEqual([
      { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'gpuops.dev/pool', operator: 'Equal', value: 'long-task', effect: 'NoSchedule' },
    ]);
    const c = pod.containers[0];
    expect(c.image).toBe('registry.example.com/ml/resnet50-infer:1.0.0');
    expect(c.command).toEqual(['python', 'run.py']);
    expect(c.args).toEqual(['--port=8080']);
    expect(c.env).toEqual([{ name: 'BATCH', value: '32' }]);
    expect(c.resources.limits).toEqual({ 'nvidia.com/gpu': '2', cpu: '2', memory: '8Gi' });
    expect(c.resources.requests).toEqual(c.resources.limits);
    expect(d.metadata.annotations['argocd.argoproj.io/sync-wave']).toBe('0');
    expect(d.metadata.labels).toMatchObject({
      'app.kubernetes.io/name': 'resnet50-infer',
      'app.kubernetes.io/managed-by': 'gpuops',
      'gpuops.dev/algorithm': 'resnet50-infer',
    });
    for (const [k, v] of Object.entries(d.spec.selector.matchLabels))
      expect(d.spec.template.metadata.labels[k]).toBe(v);
  });

  it('a custom pool label key and taint effect reach the nodeSelector and toleration', async () => {
    const p = await policyWith((s) => {
      s.pools.labelKey = 'example.com/pool';
      s.pools.taint.effect = 'NoExecute';
    });
    const pod = (renderDeployment(input(p, { pool: 'short-task' })) as any).spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'example.com/pool': 'short-task' });
    expect(pod.tolerations[1]).toEqual({
      key: 'example.com/pool',
      operator: 'Equal',
      value: 'short-task',
      effect: 'NoExecute',
    });
  });

  it('rejects a negative or fractional replica count', () => {
    expect(() => renderDeployment(input(gpuops, { replicas: -1 }))).toThrow(/replicas/);
    expect(() => renderDeployment(input(gpuops, { replicas: 1.5 }))).toThrow(/replicas/);
  });

  it('does not change the shared template', () => {
    const before = JSON.stringify(templates().deployment);
    renderDeployment(input(gpuops));
    expect(JSON.stringify(templates().deployment)).toBe(before);
  });
});

describe('renderHpa', () => {
  it('autoscaling/v2 on the Deployment, min/max from the spec, DCGM Pods metric at the policy target', () => {
    const h = renderHpa(input(hpa)) as any;
    expect(h.apiVersion).toBe('autoscaling/v2');
    expect(h.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'resnet50-infer',
    });
    expect(h.spec.minReplicas).toBe(2);
    expect(h.spec.maxReplicas).toBe(6);
    expect(h.spec.metrics).toEqual([
      {
        type: 'Pods',
        pods: {
          metric: { name: 'DCGM_FI_DEV_GPU_UTIL' },
          target: { type: 'AverageValue', averageValue: '60' },
        },
      },
    ]);
    expect(h.spec.behavior.scaleDown.stabilizationWindowSeconds).toBe(300);
  });

  it.each([
    {
      name: 'GPU_UTIL percent target stays a percent',
      metric: 'DCGM_FI_DEV_GPU_UTIL',
      target: 75,
      want: '75',
    },
    {
      name: 'GR_ENGINE_ACTIVE ratio target becomes milli-units',
      metric: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
      target: 60,
      want: '600m',
    },
  ] as const)('$name', async ({ metric, target, want }) => {
    const p = await policyWith((s) => {
      s.scaling.metric = metric;
      s.scaling.hpa.targetUtilization = target;
    });
    expect(hpaAverageValue(p.spec)).toBe(want);
  });
});

describe('renderWorkloadFiles', () => {
  it('engine gpuops: the Deployment only (no kustomization: Argo CD and Flux read the folder)', () => {
    const files = renderWorkloadFiles(input(gpuops));
    expect(files.map((f) => f.path)).toEqual(['clusters/prod/algorithms/resnet50-infer/deployment.yaml']);
  });

  it('engine hpa: the Deployment and the HPA', () => {
    const files = renderWorkloadFiles(input(hpa));
    expect(files.map((f) => f.path.split('/').pop())).toEqual(['deployment.yaml', 'hpa.yaml']);
  });

  it('is byte-stable and starts with the generated-file comment', () => {
    const a = renderWorkloadFiles(input(hpa));
    const b = renderWorkloadFiles(input(hpa));
    expect(a).toEqual(b);
    for (const f of a) expect(f.content!.startsWith('# Generated by gpuops')).toBe(true);
  });
});

describe('workloadDeletions', () => {
  const present = [
    'clusters/prod/algorithms/kept/deployment.yaml',
    'clusters/prod/algorithms/kept/hpa.yaml',
    'clusters/prod/algorithms/kept/kustomization.yaml',
    'clusters/prod/algorithms/gone/deployment.yaml',
    'clusters/prod/algorithms/gone/kustomization.yaml',
    'clusters/prod/algorithms/pending/deployment.yaml',
    'clusters/prod/kustomization.yaml',
    'clusters/other/algorithms/gone/deployment.yaml',
  ];
  const rendered = [
    { path: 'clusters/prod/algorithms/kept/deployment.yaml', content: 'x' },
    { path: 'clusters/prod/algorithms/kept/kustomization.yaml', content: 'x' },
  ];

  it('removes a removed algorithm folder and a stale hpa.yaml; keeps a pending one and other clusters', () => {
    expect(
      workloadDeletions({ cluster: 'prod', algorithmsInGit: ['kept', 'pending'], present, rendered }).map(
        (f) => [f.path, f.content],
      ),
    ).toEqual([
      ['clusters/prod/algorithms/gone/deployment.yaml', null],
      ['clusters/prod/algorithms/gone/kustomization.yaml', null],
      ['clusters/prod/algorithms/kept/hpa.yaml', null],
    ]);
  });

  it('nothing to delete when Git and the folders agree', () => {
    expect(
      workloadDeletions({
        cluster: 'prod',
        algorithmsInGit: ['kept', 'gone', 'pending'],
        present: present.filter((p) => !p.endsWith('hpa.yaml')),
        rendered,
      }),
    ).toEqual([]);
  });
});

describe('Kubernetes OpenAPI schema (kubernetes-models 4.5.0)', () => {
  it.each(['gpuops', 'hpa'] as const)(
    'the Deployment of engine %s is a valid apps/v1 Deployment',
    (engine) => {
      const d = renderDeployment(input(engine === 'hpa' ? hpa : gpuops));
      expect(() => new Deployment(d as any).validate()).not.toThrow();
    },
  );

  it('the HPA is a valid autoscaling/v2 HorizontalPodAutoscaler', () => {
    expect(() => new HorizontalPodAutoscaler(renderHpa(input(hpa)) as any).validate()).not.toThrow();
  });

  it('the benchmark Job is a valid batch/v1 Job', () => {
    const job = renderBenchmarkJob({
      algorithm: alg,
      policy: gpuops.spec,
      specHash: specHash(alg.spec, alg.annotations),
      sequence: 1,
      template: templates().benchmarkJob,
    });
    expect(() => new Job(job as any).validate()).not.toThrow();
  });

  it('the validator does catch a broken object (the check can fail)', () => {
    const d = renderDeployment(input(gpuops)) as any;
    d.spec.replicas = 'two';
    expect(() => new Deployment(d).validate()).toThrow();
  });
});
