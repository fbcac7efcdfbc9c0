/**
 * The simulated cluster: an HTTP server on loopback that speaks the Kubernetes REST API, over an
 * in-memory store, with a clock that can run faster than real time and pluggable behaviour
 * (controllers) and extra routes (dcgm-exporter pages). Start it with {@link startSimCluster}.
 */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { ADMIN_TOKEN, randomToken } from './authn.js';
export { startSimCluster } from './cluster.js';
export type { SimCluster, SimClusterOptions } from './cluster.js';
export { applyBehavior, defaultBehavior } from './controllers/hpa-behavior.js';
export { recommendReplicas } from './controllers/hpa-controller.js';
export { defaultControllers } from './controllers/index.js';
export { nodeGpuCount } from './controllers/kubelet.js';
export { controllerOf, holdsResources, podGpus } from './controllers/pods.js';
export { dcgmGpus, formatDcgmPage } from './dcgm/page.js';
export { DcgmPages, inProcessDcgmFetch } from './dcgm/pages.js';
export { dcgmRoute } from './dcgm/route.js';
export { generateFleet } from './fleet.js';
export { GitLabStandIn } from './forges/gitlab.js';
export { isLoopbackAddress } from './host-check.js';
export { LoadModel, servingAlgorithm } from './load-model.js';
export { listItems } from './load.js';
export { selfSignedCert } from './tls-cert.js';
export type { KubeObject, Resource, SimController, SimStore } from './types.js';
