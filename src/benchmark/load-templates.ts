import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parseWorkloadTemplates,
  WORKLOAD_TEMPLATE_FILES,
  type WorkloadTemplates,
} from '../manifests/index.js';

/**
 * The `templates/` folder shipped with gpuops: the first ancestor of this module's folder that
 * holds `templates/benchmark-job.yaml` (works from `src/` under tsx and from `dist/`).
 * @throws Error when none is found
 */
export function defaultTemplatesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, 'templates');
    if (existsSync(path.join(candidate, WORKLOAD_TEMPLATE_FILES.benchmarkJob.file))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('templates/: not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/**
 * Reads and parses the workload templates (Job, Deployment, HPA, Kustomization) once; pass the
 * result to the pure renderers.
 * @param dir the templates folder; default {@link defaultTemplatesDir}
 * @throws Error naming the file when one is missing or invalid
 */
export function loadWorkloadTemplates(dir = defaultTemplatesDir()): WorkloadTemplates {
  const texts = {} as Record<keyof WorkloadTemplates, string>;
  for (const [key, { file }] of Object.entries(WORKLOAD_TEMPLATE_FILES)) {
    const p = path.join(dir, file);
    try {
      texts[key as keyof WorkloadTemplates] = readFileSync(p, 'utf8');
    } catch (err) {
      throw new Error(`${p}: cannot read template: ${(err as Error).message}`);
    }
  }
  return parseWorkloadTemplates(texts);
}
