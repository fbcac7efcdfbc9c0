import { loadWorkloadTemplates } from '../../src/benchmark/load-templates.js';
import type { WorkloadTemplates } from '../../src/manifests/templates.js';

let cached: WorkloadTemplates | undefined;

/** The shipped templates/, read once per test file. */
export function templates(): WorkloadTemplates {
  cached ??= loadWorkloadTemplates();
  return cached;
}
