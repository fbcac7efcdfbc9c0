/** The composition root: builds the adapters and the running controller from settings. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { startRunCache } from './cluster-cache.js';
export type { RunCache } from './cluster-cache.js';
export { clusterInput, planJobsInput, readObjectList, takeSnapshot } from './cluster-input.js';
export { compose, createReconciler } from './compose.js';
export { readControllerStatus } from './controller-status.js';
export { startRunningController } from './controller.js';
export type { RunPlan } from './controller.js';
export { jobApiOf, kubeConfigOf } from './kube.js';
export { metricsSettingsOf, utilizationSource } from './metrics.js';
export { dryRunDatabase, openDatabase, openExistingStore, sqliteFile } from './store.js';
