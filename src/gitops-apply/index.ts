/** The Argo CD-like applier: syncs a GitOps folder to a cluster (demo and tests). */
export {
  applyGitOpsFolder,
  describeRef,
  MANAGED_BY_SELECTOR,
  PRUNABLE_KINDS,
  TRACKING_ANNOTATION,
} from './apply-folder.js';
export type { ApplyFolderOptions } from './apply-folder.js';
export { readKustomizeTree, KUSTOMIZATION_FILES } from './kustomize-tree.js';
export type { KustomizeTree } from './kustomize-tree.js';
export { kubeObjectApi } from './object-api.js';
export type { ObjectApi, LiveObject } from './object-api.js';
export {
  KIND_ORDER,
  sortForSync,
  syncOptions,
  syncWave,
  SYNC_OPTIONS_ANNOTATION,
  SYNC_WAVE_ANNOTATION,
} from './sync-order.js';
export type * from './types.js';
