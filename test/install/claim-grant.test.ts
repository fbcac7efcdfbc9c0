/**
 * A standby claim relabels a pod (and a scale-down may delete a claimed pod), so gpuops needs
 * `get`, `patch` and `delete` on Pods — but only in the namespaces of the policy's standby sets:
 * the install ships `gpuops-claim` unbound, and the namespace files of the pools change set bind it
 * there. Evaluated with the shipped install files and the namespace files gpuops renders, by the
 * simulated API server's RBAC authorizer.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDefaultPolicy } from '../../src/definitions/load.js';
import type { Policy, ResolvedAlgorithm, StandbySet } from '../../src/definitions/types.js';
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

const set = (namespace: string): StandbySet => ({
  name: `llm-${namespace}`,
  pool: 'short-task',
  namespace,
  image: 'registry.example.com/ml/multi-model:2.1',
  algorithms: [`serve-${namespace}`],
  gpus: 1,
  port: 8000,
  readinessPath: '/ready',
  wakePath: '/wake',
  claimSeconds: 5,
});

/** The shipped install plus the namespace files of the pools change set, algorithms in `algorithms` and `vision`. */
function cluster(standby: StandbySet[] | undefined, mode: 'patch' | 'pull-request' = 'pull-request') {
  const policy = structuredClone(defaults);
  policy.spec.scaling.mode = mode;
  if (standby) policy.spec.standby = standby;
  const changes = poolChanges({
    pools: [],
    nodes: [],
    algorithms: [alg('algorithms'), alg('vision')],
    git: { cluster: 'prod', files: new Map(), movedNodes: new Set(), deployments: new Map() } as never,
    policy,
  });
  const files = changes.files.filter((f) => f.path.includes('/namespaces/')).map((f) => f.content!);
  return rbacStore([...rbacObjects({ dir: INSTALL }), ...files.flatMap((text) => rbacObjects({ text }))]);
}

const pod = (verb: string, namespace: string) => ({ verb, resource: '/pods', namespace, name: 'p' });

describe('standby claims: Pods relabelled only where a standby set lives', () => {
  it.each(['pull-request', 'patch'] as const)(
    '%s mode: get, patch and delete Pods in the standby set namespace',
    (mode) => {
      const store = cluster([set('algorithms')], mode);
      for (const verb of ['get', 'patch', 'delete'])
        expect(can(store, SA, pod(verb, 'algorithms')), verb).toBe(true);
    },
  );

  it('…and nowhere else: another algorithm namespace, kube-system, the controller namespace; never create', () => {
    const store = cluster([set('algorithms')]);
    for (const ns of ['vision', 'kube-system', 'gpuops-system', 'team-other'])
      expect(can(store, SA, pod('patch', ns)), ns).toBe(false);
    expect(can(store, SA, pod('delete', 'vision'))).toBe(false);
    expect(can(store, SA, pod('create', 'algorithms'))).toBe(false);
    expect(can(store, SA, { verb: 'patch', resource: 'apps/deployments', namespace: 'algorithms' })).toBe(
      false,
    );
  });

  it('no standby set (absent or empty): no Pod write anywhere', () => {
    for (const standby of [undefined, []]) {
      const store = cluster(standby);
      for (const ns of ['algorithms', 'vision']) expect(can(store, SA, pod('patch', ns)), ns).toBe(false);
    }
  });

  it('two sets in two namespaces: both bound', () => {
    const store = cluster([set('algorithms'), set('vision')]);
    for (const ns of ['algorithms', 'vision']) expect(can(store, SA, pod('patch', ns)), ns).toBe(true);
  });
});
