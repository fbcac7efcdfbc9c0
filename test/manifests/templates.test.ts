/** Parsing the workload templates of `templates/`: every rule that rejects a file, and the copy. */
import { describe, expect, it } from 'vitest';
import {
  cloneTemplate,
  parseWorkloadTemplates,
  WORKLOAD_TEMPLATE_FILES,
  type WorkloadTemplates,
} from '../../src/manifests/templates.js';

/** Minimal valid texts: each template's apiVersion and kind, and one marker field. */
const VALID: Record<keyof WorkloadTemplates, string> = {
  benchmarkJob: 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {backoffLimit: 0}\n',
  deployment: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n',
  hpa: 'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n',
  kustomization: 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n',
};

describe('WORKLOAD_TEMPLATE_FILES', () => {
  it('names each template file and the apiVersion/kind it must hold', () => {
    expect(WORKLOAD_TEMPLATE_FILES).toEqual({
      benchmarkJob: { file: 'benchmark-job.yaml', apiVersion: 'batch/v1', kind: 'Job' },
      deployment: { file: 'deployment.yaml', apiVersion: 'apps/v1', kind: 'Deployment' },
      hpa: { file: 'hpa.yaml', apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
      kustomization: {
        file: 'kustomization.yaml',
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
      },
    });
  });
});

describe('parseWorkloadTemplates', () => {
  it('parses every template; one without metadata gets an empty name', () => {
    const t = parseWorkloadTemplates(VALID);
    expect(t.benchmarkJob).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: { backoffLimit: 0 },
    });
    expect(t.deployment.metadata).toEqual({ name: 'd' });
    expect(t.hpa.metadata).toEqual({ name: 'h' });
    expect(t.kustomization).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      metadata: { name: '' },
      resources: [],
    });
  });

  it.each<{ name: string; key: keyof WorkloadTemplates; text: string; error: string }>([
    {
      name: 'not YAML',
      key: 'hpa',
      text: 'apiVersion: [autoscaling/v2\n',
      error: 'templates/hpa.yaml: not valid YAML: ',
    },
    {
      name: 'empty (null)',
      key: 'deployment',
      text: '',
      error: 'templates/deployment.yaml: must be one YAML mapping (a Kubernetes object)',
    },
    {
      name: 'a scalar',
      key: 'deployment',
      text: 'just text\n',
      error: 'templates/deployment.yaml: must be one YAML mapping (a Kubernetes object)',
    },
    {
      name: 'a list',
      key: 'benchmarkJob',
      text: '- apiVersion: batch/v1\n  kind: Job\n',
      error: 'templates/benchmark-job.yaml: must be one YAML mapping (a Kubernetes object)',
    },
    {
      name: 'the wrong kind',
      key: 'benchmarkJob',
      text: 'apiVersion: batch/v1\nkind: CronJob\n',
      error: 'templates/benchmark-job.yaml: expected apiVersion batch/v1 kind Job, got batch/v1 CronJob',
    },
    {
      name: 'the wrong apiVersion',
      key: 'hpa',
      text: 'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\n',
      error:
        'templates/hpa.yaml: expected apiVersion autoscaling/v2 kind HorizontalPodAutoscaler, got autoscaling/v1 HorizontalPodAutoscaler',
    },
    {
      name: 'no apiVersion and kind',
      key: 'kustomization',
      text: 'resources: []\n',
      error:
        'templates/kustomization.yaml: expected apiVersion kustomize.config.k8s.io/v1beta1 kind Kustomization, got undefined undefined',
    },
  ])('rejects $name, naming the file', ({ key, text, error }) => {
    let thrown: unknown;
    try {
      parseWorkloadTemplates({ ...VALID, [key]: text });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(Error);
    const message = (thrown as Error).message;
    if (error.endsWith(': ')) {
      expect(message.startsWith(error)).toBe(true);
      expect(message.length).toBeGreaterThan(error.length);
    } else expect(message).toBe(error);
  });
});

describe('cloneTemplate', () => {
  it('is a deep copy: filling it leaves the template alone', () => {
    const template = { metadata: { name: '', labels: { a: '1' } } };
    const copy = cloneTemplate(template);
    expect(copy).toEqual(template);
    copy.metadata.labels.a = '2';
    expect(template.metadata.labels.a).toBe('1');
  });
});
