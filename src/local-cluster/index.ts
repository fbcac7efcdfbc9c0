/** The real control plane built from source (kube-apiserver, etcd, KWOK, Flux, Prometheus) for tests and the demo. */
// Re-exports written by scripts/faces.ts from what the other folders import (run it; do not edit the list).
export { httpsGet } from './control-plane.js';
export { installGpuopsRbac, issuerOf, serviceAccountKubeconfig } from './install.js';
export { startLocalCluster } from './local-cluster.js';
export { LocalClusterError } from './process.js';
