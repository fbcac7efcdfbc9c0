/** The Argo CD-like applier: syncs a GitOps folder to a cluster (demo and tests). */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { applyGitOpsFolder } from './apply-folder.js';
export { readKustomizeTree } from './kustomize-tree.js';
export { kubeObjectApi } from './object-api.js';
export type { ApplySummary } from './types.js';
