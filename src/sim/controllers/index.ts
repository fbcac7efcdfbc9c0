/**
 * The simulated cluster's behaviour: the controllers that make the simulated API server act like
 * a cluster (see each module for its rules). `startSimCluster({ controllers: defaultControllers() })`
 * runs them after every write and on every clock tick.
 *
 * Order within one pass (each controller is level-triggered, idempotent, and also converges when
 * passes repeat until the store's resourceVersion stops moving):
 * 1. `kubelet-finish` ends containers whose simulated run time is over, so that
 * 2. (`garbage-collector`, only with `garbageCollection: true`), `horizontal-pod-autoscaler`, `deployment`, `replicaset`, `daemonset` and `job` see
 *    the pods' final state (a Job deadline is judged against exact finish times), create pods,
 * 3. `scheduler` binds them, and
 * 4. `kubelet` starts them (Running, Ready) in the same pass, and
 * 5. `endpointslice` lists each Service's matching pods with an IP in its EndpointSlice.
 */
import type { SimController } from '../types.js';
import { resolveConfig, type SimBehaviourConfig } from './config.js';
import { daemonSetController } from './daemonset-controller.js';
import { deploymentController } from './deployment-controller.js';
import { endpointSliceController } from './endpointslice-controller.js';
import { garbageCollector } from './garbage-collector.js';
import { hpaController } from './hpa-controller.js';
import { jobController } from './job-controller.js';
import { kubeletController } from './kubelet.js';
import { replicaSetController } from './replicaset-controller.js';
import { schedulerController } from './scheduler.js';

export type { SimBehaviourConfig } from './config.js';
export { simulatedRun, durationForImage, type SimulatedRun } from './run-rule.js';

/**
 * Fresh controller instances (each keeps small per-instance state, so use one set per store).
 * @throws Error naming the field when `config` holds a negative or non-finite number
 */
export function defaultControllers(config: SimBehaviourConfig = {}): SimController[] {
  const resolved = resolveConfig(config);
  return [
    kubeletController(resolved, true),
    ...(resolved.garbageCollection ? [garbageCollector()] : []),
    hpaController(resolved),
    deploymentController(),
    replicaSetController(),
    daemonSetController(),
    jobController(),
    schedulerController(resolved),
    kubeletController(resolved),
    endpointSliceController(),
  ];
}
