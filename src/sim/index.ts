/**
 * The simulated cluster: an HTTP server on loopback that speaks the Kubernetes REST API, over an
 * in-memory store, with a clock that can run faster than real time and pluggable behaviour
 * (controllers) and extra routes (dcgm-exporter pages). Start it with {@link startSimCluster}.
 */
export { startSimCluster } from './cluster.js';
export type { SimCluster, SimClusterOptions, SimRoute } from './cluster.js';
export type { KubeObject, Resource, SimClock, SimController, SimStore, WatchEvent } from './types.js';
export { SimApiError } from './types.js';
export type { AccessRecord, SimRbac } from './rbac.js';
export type { WatchFaults } from './watch.js';
