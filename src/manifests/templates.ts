import type { KubeObject } from '../cluster/index.js';
import { parse } from 'yaml';

/**
 * The base objects in `templates/` that the workload renderers fill. Parsed once at the edge
 * (`src/benchmark/load-templates.ts` reads the files) and passed in, so the renderers stay pure.
 */
export interface WorkloadTemplates {
  /** `templates/benchmark-job.yaml`: a batch/v1 Job. */
  benchmarkJob: KubeObject;
  /** `templates/deployment.yaml`: an apps/v1 Deployment. */
  deployment: KubeObject;
  /** `templates/hpa.yaml`: an autoscaling/v2 HorizontalPodAutoscaler. */
  hpa: KubeObject;
  /** `templates/kustomization.yaml`: a kustomize.config.k8s.io/v1beta1 Kustomization. */
  kustomization: KubeObject;
}

/** File name in `templates/` and the `apiVersion`/`kind` it must hold, per template. */
export const WORKLOAD_TEMPLATE_FILES: Record<
  keyof WorkloadTemplates,
  { file: string; apiVersion: string; kind: string }
> = {
  benchmarkJob: { file: 'benchmark-job.yaml', apiVersion: 'batch/v1', kind: 'Job' },
  deployment: { file: 'deployment.yaml', apiVersion: 'apps/v1', kind: 'Deployment' },
  hpa: { file: 'hpa.yaml', apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' },
  kustomization: {
    file: 'kustomization.yaml',
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
  },
};

/**
 * Parses the template texts (file contents of `templates/<file>`) into base objects.
 * @throws Error naming the template file when one is not YAML, not a mapping, or holds the wrong
 *   `apiVersion`/`kind`.
 */
export function parseWorkloadTemplates(texts: Record<keyof WorkloadTemplates, string>): WorkloadTemplates {
  const out: Partial<WorkloadTemplates> = {};
  for (const key of Object.keys(WORKLOAD_TEMPLATE_FILES) as (keyof WorkloadTemplates)[]) {
    const { file, apiVersion, kind } = WORKLOAD_TEMPLATE_FILES[key];
    let value: unknown;
    try {
      value = parse(texts[key]);
    } catch (err) {
      throw new Error(`templates/${file}: not valid YAML: ${(err as Error).message}`);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(`templates/${file}: must be one YAML mapping (a Kubernetes object)`);
    }
    const obj = value as KubeObject;
    if (obj.apiVersion !== apiVersion || obj.kind !== kind) {
      throw new Error(
        `templates/${file}: expected apiVersion ${apiVersion} kind ${kind}, got ${String(obj.apiVersion)} ${String(obj.kind)}`,
      );
    }
    obj.metadata ??= { name: '' };
    out[key] = obj;
  }
  return out as WorkloadTemplates;
}

/** A deep copy of a template, safe to fill. */
export function cloneTemplate<T>(template: T): T {
  return structuredClone(template);
}
