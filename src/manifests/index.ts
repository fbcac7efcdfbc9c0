/** Pure rendering of what gpuops writes to Git: Deployments, HPAs, Services, Nodes, benchmark Jobs, YAML. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export {
  BENCHMARK_CONTAINER,
  BENCHMARK_JOB_LABEL,
  benchmarkJobName,
  QUEUE_NAME_LABEL,
  renderBenchmarkJob,
  SPEC_HASH_ANNOTATION,
} from './benchmark-job.js';
export { isKustomizationFile, legacyKustomizationDeletions } from './cluster-layout.js';
export type { FileChange } from './file-change.js';
export { MODEL_CACHE_FILL, modelCacheFilePath, modelCacheFillName } from './model-cache.js';
export {
  bindsScaleRole,
  DEFAULT_SERVICE_ACCOUNT,
  namespaceFilePath,
  renderNamespaceFiles,
} from './namespaces.js';
export { movedNodes, nodeFilePath, nodesDir, renderNodeFiles } from './nodes.js';
export { prePullFiles } from './prepull.js';
export { setDeploymentReplicas } from './replicas.js';
export { affinityProducts, algorithmVendor } from './scheduling.js';
export {
  CLAIMED_FROM_LABEL,
  claimPatch,
  giveBackPatch,
  STANDBY_AFFINITY_WEIGHT,
  STANDBY_LABEL,
  standbyFile,
  standbyName,
  standbyPath,
  standbyVendor,
} from './standby.js';
export { parseWorkloadTemplates, WORKLOAD_TEMPLATE_FILES } from './templates.js';
export type { WorkloadTemplates } from './templates.js';
export { renderDeployment, renderWorkloadFiles, workloadDeletions, workloadDir } from './workloads.js';
export type { WorkloadInput } from './workloads.js';
export { RenderCache, renderYaml, sortKeys } from './yaml.js';
