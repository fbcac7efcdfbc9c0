/**
 * Patch mode's `deployments/scale` grant was cluster-wide (a ClusterRoleBinding of `gpuops-patch`):
 * gpuops could set the replicas of every Deployment of the cluster. Now the patch-mode component
 * ships `gpuops-scale` unbound, and the namespace files of the pools pull request bind it in each
 * algorithm namespace while `scaling.mode` is `patch`. Evaluated with the shipped install files
 * and the namespace file gpuops renders, by the simulated API server's RBAC authorizer.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy, ResolvedAlgorithm } from '../../src/definitions/types.js';
import { poolChanges } from '../../src/plan/pool-changes.js';
import { can, rbacObjects, rbacStore } from './rbac-eval.js';

const INSTALL = path.resolve(import.meta.dirname, '../../templates/install');
const SA = { namespace: 'gpuops-system', name: 'gpuops' };

let defaults: Policy;
beforeAll(async () => {
  defaults = await loadDefaultPolicy();
});

const alg = (namespace: string): ResolvedAlgorithm => ({
  name: `serve-${namespace}`,
  namespace,
  spec: { image: 'x:1', resources: { gpus: 1 } },
  scaling: { minReplicas: 1, maxReplicas: 2, utilization: { min: 30, max: 80 } },
  benchmark: { args: undefined, runs: 3, timeoutSeconds: 60 },
  placement: 'auto',
  source: { file: `algorithms/${namespace}.yaml`, line: 1 },
});

/** The namespace files of the pools change set for `mode`, with algorithms in `algorithms` and `vision`. */
function namespaceFiles(mode: 'patch' | 'pull-request'): string[] {
  const policy = structuredClone(defaults);
  policy.spec.scaling.mode = mode;
  const set = poolChanges({
    pools: [],
    nodes: [],
    algorithms: [alg('algorithms'), alg('vision')],
    git: { cluster: 'prod', files: new Map(), movedNodes: new Set(), deployments: new Map() } as never,
    policy,
  });
  return set.files.filter((f) => f.path.includes('/namespaces/')).map((f) => f.content!);
}

/** The shipped install with the patch-mode component, plus what the namespace files grant. */
function cluster(mode: 'patch' | 'pull-request') {
  return rbacStore([
    ...rbacObjects({ dir: INSTALL }),
    ...rbacObjects({ dir: path.join(INSTALL, 'components/patch-mode') }),
    ...namespaceFiles(mode).flatMap((text) => rbacObjects({ text })),
  ]);
}

const scale = (verb: string, namespace: string) => ({
  verb,
  resource: 'apps/deployments/scale',
  namespace,
  name: 'serve',
});

const deployment = (verb: string, namespace: string) => ({
  verb,
  resource: 'apps/deployments',
  namespace,
  name: 'serve',
});

describe("patch mode's scale grant: per algorithm namespace", () => {
  it('patch mode: gpuops reads and patches Deployments scale in each algorithm namespace', () => {
    const store = cluster('patch');
    for (const ns of ['algorithms', 'vision'])
      for (const verb of ['get', 'patch'])
        expect(can(store, SA, scale(verb, ns)), `${verb} in ${ns}`).toBe(true);
  });

  it('patch mode: gpuops reads and patches the Deployment itself there (the hand-over of replicas’ ownership)', () => {
    const store = cluster('patch');
    for (const ns of ['algorithms', 'vision'])
      for (const verb of ['get', 'patch'])
        expect(can(store, SA, deployment(verb, ns)), `${verb} in ${ns}`).toBe(true);
    // No other verb: no list, watch, update, create or delete of Deployments.
    for (const verb of ['list', 'watch', 'update', 'create', 'delete'])
      expect(can(store, SA, deployment(verb, 'algorithms')), verb).toBe(false);
  });

  it('…and nowhere else: kube-system, the controller namespace, a namespace with no algorithm', () => {
    const store = cluster('patch');
    for (const ns of ['kube-system', 'gpuops-system', 'team-other']) {
      expect(can(store, SA, scale('patch', ns)), ns).toBe(false);
      expect(can(store, SA, deployment('patch', ns)), ns).toBe(false);
      expect(can(store, SA, deployment('get', ns)), ns).toBe(false);
    }
  });

  it('pull-request mode binds no scale grant anywhere; Nodes stay patchable cluster-wide by the component', () => {
    const store = cluster('pull-request');
    expect(can(store, SA, scale('patch', 'algorithms'))).toBe(false);
    expect(can(store, SA, deployment('patch', 'algorithms'))).toBe(false);
    expect(can(store, SA, { verb: 'patch', resource: '/nodes', name: 'gpu-1' })).toBe(true);
  });

  it('the namespace file of patch mode holds the RoleBinding of gpuops-scale to gpuops', () => {
    const [file] = namespaceFiles('patch');
    expect(file).toContain('name: gpuops-scale');
    expect(namespaceFiles('pull-request')[0]).not.toContain('gpuops-scale');
  });
});
