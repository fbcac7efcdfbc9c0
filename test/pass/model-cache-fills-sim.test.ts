/**
 * The model cache fill read against the simulated cluster over HTTP, through
 * `@kubernetes/client-node` (`createKubeJobApi`): however many fills wait, the pass sends one
 * `list` of Jobs per namespace where one waits, selected by gpuops's fill labels, and no `get`.
 * The Jobs' states come from what the API server answers: Complete, running, absent.
 */
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeJobApi } from '../../src/cluster/jobs.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import {
  modelCacheFillName,
  modelCacheFilePath,
  renderModelCacheFill,
} from '../../src/manifests/model-cache.js';
import { renderYaml } from '../../src/manifests/yaml.js';
import { readModelCacheFills } from '../../src/pass/model-cache-fills.js';
import { parseGenerated, readGitModel } from '../../src/plan/git-model.js';
import { startSimCluster, type SimCluster } from '../../src/sim/index.js';

const cache = { claimName: 'models', mountPath: '/models', fill: { image: 'fetch:1', args: ['x'] } };
const alg = (name: string, namespace: string) =>
  ({
    name,
    namespace,
    spec: { image: 'x:1', resources: { gpus: 1 }, modelCache: cache },
  }) as unknown as ResolvedAlgorithm;

/** Eight algorithms waiting for their fill in two namespaces (three Complete, three running, two absent). */
const WAITING = [
  ...['a1', 'a2', 'a3', 'a4', 'a5'].map((n) => alg(n, 'team-a')),
  ...['b1', 'b2', 'b3'].map((n) => alg(n, 'team-b')),
];
const COMPLETE = new Set(['a1', 'a2', 'b1']);
const ABSENT = new Set(['a5', 'b3']);

let sim: SimCluster;
beforeAll(async () => {
  sim = await startSimCluster({});
  for (const a of WAITING) {
    if (ABSENT.has(a.name)) continue;
    const job = renderModelCacheFill(a)!;
    const status = COMPLETE.has(a.name)
      ? { conditions: [{ type: 'Complete', status: 'True' }], succeeded: 1 }
      : { active: 1 };
    sim.store.create('jobs', { ...job, status } as never);
  }
  // A benchmark Job of the same namespace (no fill label): never in the answer.
  sim.store.create('jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'bench-a1', namespace: 'team-a', labels: { 'app.kubernetes.io/managed-by': 'gpuops' } },
    spec: { template: { spec: { containers: [] } } },
  } as never);
});
afterAll(async () => {
  await sim?.close();
});

describe('readModelCacheFills on the simulated API server', () => {
  it('one list per namespace where a fill waits, no get, and each state from the answer', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(sim.kubeconfig());
    const files = new Map(
      WAITING.map((a) => [modelCacheFilePath('prod', a.name), renderYaml([renderModelCacheFill(a)!])]),
    );
    const git = readGitModel('prod', files, 'gpuops.dev/pool');
    const before = sim.requests();
    const states = await readModelCacheFills(createKubeJobApi(kc), WAITING, git, parseGenerated);
    const after = sim.requests();
    expect(after.total - before.total).toBe(2);
    expect(
      Object.fromEntries(
        Object.entries(after.byPath)
          .filter(([k, n]) => n !== (before.byPath[k] ?? 0))
          .map(([k, n]) => [k, n - (before.byPath[k] ?? 0)]),
      ),
    ).toEqual({
      'LIST /apis/batch/v1/namespaces/team-a/jobs': 1,
      'LIST /apis/batch/v1/namespaces/team-b/jobs': 1,
    });
    expect(Object.fromEntries(states)).toEqual(
      Object.fromEntries(
        WAITING.map((a) => [
          `${a.namespace}/${modelCacheFillName(a.name, cache)}`,
          COMPLETE.has(a.name) ? 'Complete' : ABSENT.has(a.name) ? 'Absent' : 'Running',
        ]),
      ),
    );
  });
});
