/**
 * A scale change set is built again every pass while its pull request is open; through a
 * reconciler's render cache (`PassCaches.rendered`) its Deployment edit is made once. Memo equals
 * fresh: the same files with and without the cache, on a miss and on a hit, for each kind of file
 * the edit meets (a count to change, none yet, one already right) and for a file it cannot edit
 * (a flow-style spec: rendered whole, never cached).
 */
import { describe, expect, it } from 'vitest';
import { RenderCache } from '../../src/manifests/yaml.js';
import { readGitModel } from '../../src/plan/git-model.js';
import { scaleChanges, type ScalingPlan } from '../../src/plan/scaling.js';
import type { ResolvedAlgorithm } from '../../src/definitions/types.js';
import { RESNET } from '../scaling/one-deployment.js';
import type { ScalingDecision } from '../../src/scaling/types.js';
import { policy, now, snapshot, templates } from '../support/cluster-mixed.js';

const PATH = 'clusters/prod/algorithms/serve/deployment.yaml';
/** resnet50-infer of `one-deployment.ts` as `serve`, up to 8 replicas, 3 benchmark runs. */
const alg: ResolvedAlgorithm = {
  ...RESNET,
  name: 'serve',
  spec: { ...RESNET.spec, image: 'registry.example.com/ml/serve:1.0.0' },
  scaling: { ...RESNET.scaling, maxReplicas: 8 },
  benchmark: { ...RESNET.benchmark, runs: 3 },
  source: { file: 'algorithms/serve.yaml', line: 1 },
};
const block = (replicas: string) =>
  `# a person's comment\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: serve, namespace: algorithms}\nspec:\n${replicas}  template:\n    spec:\n      nodeSelector: {gpuops.dev/pool: short-task}\n`;

/** The scale change set's files for one decision `from → to` on `text`. */
function filesOf(text: string, from: number, to: number, renderCache?: RenderCache) {
  const git = readGitModel('prod', new Map([[PATH, text]]), 'gpuops.dev/pool');
  const decision: ScalingDecision = {
    algorithm: 'serve',
    action: to > from ? 'scale-up' : 'scale-down',
    replicas: { from, to },
    utilization: 90,
    nodes: [],
    reason: to > from ? 'AboveMax' : 'BelowMin',
    message: '',
  };
  const step = {
    states: new Map([['serve', { algorithm: alg, pool: 'short-task', replicas: from }]]),
    decisions: [decision],
    pass: { decisions: [decision], attribution: { byAlgorithm: new Map() } },
  } as unknown as ScalingPlan;
  const [input] = scaleChanges({
    step,
    git,
    pools: [],
    nodes: snapshot.nodes,
    policy,
    templates,
    now,
    renderCache,
  });
  return input!.files;
}

describe('scaleChanges through a render cache', () => {
  const cache = new RenderCache();
  it.each([
    ['a count to change', block('  replicas: 3\n'), 3, 4, '  replicas: 4\n'],
    ['the same file, another count', block('  replicas: 3\n'), 3, 2, '  replicas: 2\n'],
    ['no count yet', block(''), 1, 2, '  replicas: 2\n'],
    ['a file that already says the new count', block('  replicas: 5\n'), 4, 5, '  replicas: 5\n'],
    [
      'a flow-style spec (rendered whole)',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: serve, namespace: algorithms}\nspec: {replicas: 3}\n',
      3,
      4,
      'replicas: 4',
    ],
  ])('%s: the same files with the cache, miss and hit', (_, text, from, to, want) => {
    const fresh = filesOf(text, from, to);
    expect(fresh[0]!.content).toContain(want);
    expect(filesOf(text, from, to, cache)).toEqual(fresh);
    expect(filesOf(text, from, to, cache)).toEqual(fresh);
  });

  it('holds one entry per edit it made, none for a file it could not edit', () => {
    expect(cache.entries).toBe(4);
  });
});
